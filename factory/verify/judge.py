"""Predicates: judge what a getter fetched. Pure functions of the evidence, no I/O."""

from __future__ import annotations

from typing import Any

from factory.claims.model import EffectsExactly, EntriesAre, Expected, IdsAmong, ListIs, RejectedUnchanged, StatusIs


def _changes(diff: Any) -> dict[str, dict[str, Any]]:
    """table → {"inserted": n, "deleted": n, "updated_columns": set} from a verifiers DbDiff."""
    out: dict[str, dict[str, Any]] = {}
    for table in diff.tables:
        if not (table.inserted or table.deleted or table.updated):
            continue
        columns: set[str] = set()
        for change in table.updated:
            columns.update(change.changed)
        out[table.table] = {"inserted": len(table.inserted), "deleted": len(table.deleted), "updated_columns": columns}
    return out


def _show(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in sorted(values.items()))


def judge_exact(expect: Expected, diff: Any) -> tuple[bool, str]:
    """The diff is exactly the expected change: the same rows updated with the same new values,
    the same rows created (as multisets of their values), the same rows deleted, nothing else."""
    if diff is None:
        return False, "no database difference was recorded"
    updated = {(r.table, r.id): r.values for r in expect.updated}
    seen: set[tuple[str, Any]] = set()
    inserted_expected = sorted((r.table, _show(r.values)) for r in expect.inserted)
    inserted_actual: list[tuple[str, str]] = []
    deleted_expected = sorted((r.table, r.id) for r in expect.deleted)
    deleted_actual: list[tuple[str, Any]] = []
    for table in diff.tables:
        for change in table.updated:
            key = (table.table, change.key[0] if len(change.key) == 1 else change.key)
            want = updated.get(key)
            got = {c: change.after.get(c) for c in change.changed}
            if want is None:
                return False, f"changed {table.table} #{key[1]} ({_show(got)}), which the call must not change"
            if got != want:
                return False, (f"{table.table} #{key[1]}: stored {_show(got)}; the spec's effects give {_show(want)} "
                               f"(before: {_show({c: change.before.get(c) for c in sorted(set(want) | set(got))})})")
            seen.add(key)
        for row in table.inserted:
            inserted_actual.append((table.table, _show({k: v for k, v in row.items() if k != "id"})))
        for row in table.deleted:
            deleted_actual.append((table.table, row.get("id")))
    missing = sorted(set(updated) - seen, key=str)
    if missing:
        table, rid = missing[0]
        return False, f"{table} #{rid} did not change; the spec's effects give {_show(updated[missing[0]])}"
    expected_rows = sorted((t, v) for t, v in inserted_expected)
    actual_rows = sorted(inserted_actual)
    if expected_rows != actual_rows:
        extra = [r for r in actual_rows if r not in expected_rows]
        lacking = [r for r in expected_rows if r not in actual_rows]
        if lacking and extra:
            return False, f"created {extra[0][0]} ({extra[0][1]}); the spec's effects give ({lacking[0][1]})"
        if lacking:
            return False, f"no {lacking[0][0]} row ({lacking[0][1]}) was created"
        return False, f"created {extra[0][0]} ({extra[0][1]}), which the call must not create"
    if sorted(deleted_actual, key=str) != sorted(deleted_expected, key=str):
        return False, f"deleted {deleted_actual[:4]}, expected {deleted_expected[:4]}"
    return True, (f"exactly the expected change: {len(expect.updated)} updated, {len(expect.inserted)} created, "
                  f"{len(expect.deleted)} deleted")


def judge_status(predicate: StatusIs, status: int, body: Any, content_type: str) -> tuple[bool, str]:
    if status != predicate.status:
        return False, f"status {status}, expected {predicate.status}"
    if predicate.html and "text/html" not in content_type:
        return False, f"expected the HTML page, got {content_type or 'no content type'}"
    for key, value in (predicate.json_subset or {}).items():
        if not isinstance(body, dict) or body.get(key) != value:
            return False, f"expected {key}={value!r} in the response"
    return True, f"status {status}"


def judge_effects(predicate: EffectsExactly, status: int, body: Any, diff: Any) -> tuple[bool, str]:
    if status != 200:
        detail = body.get("detail") if isinstance(body, dict) else body
        return False, f"status {status}, expected 200 ({detail})"
    changes = _changes(diff)
    for table, change in sorted(changes.items()):
        allowed = predicate.footprint.get(table)
        if allowed is None:
            return False, f"changed table {table}, which its effects do not touch"
        extra = sorted(change["updated_columns"] - set(allowed.update))
        if extra:
            return False, f"changed {table}.{', '.join(extra)}, which its effects do not set"
        if change["inserted"] and not allowed.insert:
            return False, f"inserted into {table}, which its effects do not create"
        if change["deleted"] and not allowed.delete:
            return False, f"deleted from {table}, which its effects do not delete"
    for table in predicate.must_update:
        if not changes.get(table, {}).get("updated_columns"):
            return False, f"no row of {table} changed, though its effects set it"
    for table in predicate.must_insert:
        if not changes.get(table, {}).get("inserted"):
            return False, f"no row was created in {table}"
    for table in predicate.must_delete:
        if not changes.get(table, {}).get("deleted"):
            return False, f"no row was deleted from {table}"
    if predicate.expect is not None:
        return judge_exact(predicate.expect, diff)
    touched = ", ".join(f"{t}" for t in sorted(changes)) or "nothing"
    return True, f"changed {touched}, all declared"


def judge_rejected(predicate: RejectedUnchanged, status: int, body: Any, diff: Any) -> tuple[bool, str]:
    detail = body.get("detail") if isinstance(body, dict) else None
    if status != predicate.status:
        return False, f"status {status} ({detail}), expected {predicate.status}"
    if predicate.detail is not None and detail != predicate.detail:
        return False, f"message {detail!r}, expected {predicate.detail!r}"
    code = body.get("precondition") if isinstance(body, dict) else None
    if predicate.precondition is not None and code != predicate.precondition:
        return False, f"failed precondition {code!r}, expected {predicate.precondition!r}"
    if predicate.expect is not None:  # setup calls came first: exactly their change, nothing more
        ok, message = judge_exact(predicate.expect, diff)
        return (True, f"refused with {status}; only the setup's change remains") if ok else (False, "refused, but " + message)
    changes = _changes(diff) if diff is not None else {}
    if changes:
        return False, f"refused but changed {', '.join(sorted(changes))}"
    return True, f"refused with {status} and nothing changed"


def judge_list(predicate: ListIs, status: int, body: Any) -> tuple[bool, str]:
    if status != 200 or not isinstance(body, dict):
        return False, f"status {status}, expected a list answer"
    ids = [item.get("id") for item in body.get("items", [])]
    if body.get("total") != predicate.total:
        return False, f"total {body.get('total')}, expected {predicate.total}"
    if ids != predicate.ids:
        return False, f"rows {ids[:8]}, expected {predicate.ids[:8]}"
    return True, f"{len(ids)} rows of {predicate.total}, as expected"


def judge_ids_among(predicate: IdsAmong, status: int, body: Any) -> tuple[bool, str]:
    if status != 200 or not isinstance(body, dict) or not isinstance(body.get(predicate.field), list):
        return False, f"status {status}, expected a 200 answer with a list `{predicate.field}`"
    keys = [item.get(predicate.key) if isinstance(item, dict) else item for item in body[predicate.field]]
    leaked = [k for k in keys if k in predicate.forbidden]
    if leaked:
        return False, f"shows {predicate.key} {leaked[:8]}, which this user must not see"
    missing = [k for k in predicate.required if k not in keys]
    if missing:
        return False, f"lacks {predicate.key} {missing[:8]}, which this user must see"
    if predicate.exact is not None and keys != predicate.exact:
        return False, f"{predicate.key}s {keys[:8]}, expected exactly {predicate.exact[:8]}"
    return True, f"{len(keys)} entries, none foreign" + (", exactly as expected" if predicate.exact is not None else "")


def judge_entries(predicate: EntriesAre, status: int, body: Any) -> tuple[bool, str]:
    if status != 200 or not isinstance(body, dict) or not isinstance(body.get(predicate.field), list):
        return False, f"status {status}, expected a 200 answer with a list `{predicate.field}`"
    got = [{k: item.get(k) for k in predicate.keys} if isinstance(item, dict) else {} for item in body[predicate.field]]
    first = predicate.keys[0]
    leaked = [e[first] for e in got if e.get(first) in predicate.forbidden]
    if leaked:
        return False, f"shows {first} {leaked[:8]}, which this user must not see"
    if got != predicate.entries:
        extra = [e for e in got if e not in predicate.entries]
        missing = [e for e in predicate.entries if e not in got]
        if extra or missing:
            return False, f"shows {extra[:4]} and lacks {missing[:4]} (entries: {', '.join(predicate.keys)})"
        return False, (f"entries in the order {[e.get(first) for e in got][:8]}, "
                       f"expected {[e.get(first) for e in predicate.entries][:8]}")
    return True, f"{len(got)} entries, exactly as expected"
