"""Predicates: judge what a getter fetched. Pure functions of the evidence, no I/O."""

from __future__ import annotations

from typing import Any

from factory.claims.model import EffectsExactly, IdsAmong, ListIs, RejectedUnchanged, StatusIs


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
