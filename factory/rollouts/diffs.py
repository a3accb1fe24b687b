"""Row-level diffs as triage reads them: the JSON form `verifiers.diff_databases(...).to_json()`
gives (a rollout's `final_diff`, a golden run's, a task's reference change), compared change by
change.

`same_changes` says whether two diffs made the same changes (the rows' final values, not how the
server happened to order them). `compare` lists how a rollout's changes differ from the golden
run's, one finding per difference, each naming its table, row and column:

    row      the rollout acted on another row: another key of the table the golden run changed,
             or another row in a reference column (another notebook for the same note)
    value    the right row left with another value than the golden run leaves in one of its
             columns (or a new row like the golden one but for its values)
    missing  a change of the golden run the rollout did not make at all
    extra    a change the rollout made that the golden run did not
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

Key = tuple[Any, ...]


@dataclass(frozen=True)
class Finding:
    kind: str  # row | value | missing | extra
    table: str
    key: list[Any] | None = None
    column: str | None = None
    golden: Any = None
    rollout: Any = None
    ref: str | None = None  # the referenced entity's table, for a row found in a reference column

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "table": self.table, "key": self.key, "column": self.column,
               "golden": self.golden, "rollout": self.rollout, "ref": self.ref}
        return {k: v for k, v in out.items() if v is not None}

    def describe(self) -> str:
        where = f"{self.table}" + (f" #{_key_text(self.key)}" if self.key else "")
        if self.kind == "row":
            if self.column:
                return f"{where}: {self.column} names row {self.rollout!r} instead of {self.golden!r}"
            return f"{self.table}: row #{self.rollout} changed instead of #{self.golden}"
        if self.kind == "value":
            return f"{where}: {self.column} = {self.rollout!r} instead of {self.golden!r}"
        if self.kind == "missing":
            return f"{where}: the golden change ({self.golden}) was not made"
        return f"{where}: an extra change ({self.rollout})"


def _key_text(key: list[Any] | None) -> str:
    return ",".join(str(k) for k in key or [])


def _tables(diff: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    found = (diff or {}).get("tables") or {}
    return {name: t for name, t in found.items() if t.get("inserted") or t.get("deleted") or t.get("updated")
            or t.get("schema", "same") != "same"}


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _canonical(diff: dict[str, Any] | None) -> dict[str, Any]:
    """What a diff changed, in a form two equal sets of changes share whatever their order."""
    out: dict[str, Any] = {}
    for name, t in _tables(diff).items():
        out[name] = {
            "schema": t.get("schema", "same"),
            "updated": sorted(_dump([u["key"], {c: u["after"].get(c) for c in u["changed"]}])
                              for u in t.get("updated", [])),
            "inserted": sorted(_dump(r) for r in t.get("inserted", [])),
            "deleted": sorted(_dump(r) for r in t.get("deleted", [])),
        }
    if (diff or {}).get("schema"):
        out["__schema__"] = sorted(_dump(c) for c in (diff or {})["schema"])
    return out


def is_empty(diff: dict[str, Any] | None) -> bool:
    return not _canonical(diff)


def same_changes(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """Whether two diffs made exactly the same changes (keys, changed columns and final values)."""
    return _canonical(a) == _canonical(b)


def summary(diff: dict[str, Any] | None) -> str:
    """One clause per changed table, as `DbDiff.summary` words it (`note: 1 updated (status)`)."""
    clauses: list[str] = []
    for name, t in sorted(_tables(diff).items()):
        parts: list[str] = []
        if t.get("inserted"):
            parts.append(f"{len(t['inserted'])} inserted")
        if t.get("updated"):
            columns = list(dict.fromkeys(c for u in t["updated"] for c in u["changed"]))
            parts.append(f"{len(t['updated'])} updated ({', '.join(columns)})")
        if t.get("deleted"):
            parts.append(f"{len(t['deleted'])} deleted")
        if t.get("schema", "same") != "same":
            parts.append(f"schema {t['schema']}")
        clauses.append(f"{name}: {', '.join(parts)}")
    return "; ".join(clauses) or "no changes"


def _without(row: dict[str, Any], columns: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in columns}


def compare(golden: dict[str, Any] | None, rollout: dict[str, Any] | None,
            references: dict[str, dict[str, str]]) -> list[Finding]:
    """How `rollout`'s changes differ from `golden`'s (both diffs of the same initial state).

    `references` maps a table to its reference columns and the table each points at; a difference
    in one of those columns is another row, any other column's is another value."""
    out: list[Finding] = []
    g_tables, r_tables = _tables(golden), _tables(rollout)
    for name in sorted(set(g_tables) | set(r_tables)):
        g, r = g_tables.get(name, {}), r_tables.get(name, {})
        refs = references.get(name, {})
        keys = tuple(g.get("key_columns") or r.get("key_columns") or ["id"])
        out += _updates(name, g.get("updated", []), r.get("updated", []), refs)
        out += _rows(name, "inserted", g.get("inserted", []), r.get("inserted", []), refs, keys)
        out += _rows(name, "deleted", g.get("deleted", []), r.get("deleted", []), refs, keys)
    return out


def _updates(table: str, golden: list[dict[str, Any]], rollout: list[dict[str, Any]],
             refs: dict[str, str]) -> list[Finding]:
    out: list[Finding] = []
    g_by = {tuple(u["key"]): u for u in golden}
    r_by = {tuple(u["key"]): u for u in rollout}
    for key, g in g_by.items():
        r = r_by.get(key)
        if r is None:
            continue
        # the same row on both sides: any column whose final value differs (one the golden run set,
        # or one it left as it was, e.g. a reason the golden call gave as the value already stored)
        for column in dict.fromkeys([*g["changed"], *r["changed"]]):
            want, got = g["after"].get(column), r["after"].get(column)
            if want != got:
                kind = "row" if column in refs else "value"
                out.append(Finding(kind, table, list(key), column, want, got, refs.get(column)))
    missing = [k for k in g_by if k not in r_by]
    extra = [k for k in r_by if k not in g_by]
    # a row the golden run changed left alone while another row of the same table was changed: the
    # wrong row (paired in key order); what is left over is missing or extra
    for g_key, r_key in zip(missing, extra, strict=False):
        out.append(Finding("row", table, None, None, _one(g_key), _one(r_key)))
    for key in missing[len(extra):]:
        out.append(Finding("missing", table, list(key), None, f"{', '.join(g_by[key]['changed'])} updated"))
    for key in extra[len(missing):]:
        out.append(Finding("extra", table, list(key), None, None, f"{', '.join(r_by[key]['changed'])} updated"))
    return out


def _one(key: Key) -> Any:
    return key[0] if len(key) == 1 else list(key)


def _rows(table: str, what: str, golden: list[dict[str, Any]], rollout: list[dict[str, Any]],
          refs: dict[str, str], keys: tuple[str, ...]) -> list[Finding]:
    """Inserted (or deleted) rows: equal rows (keys aside: a new row's id is the app's choice) pair
    off; a remaining golden row is paired with the remaining rollout row most like it."""
    left = [_without(r, keys) for r in golden]
    right = [_without(r, keys) for r in rollout]
    for row in list(left):
        if row in right:
            left.remove(row)
            right.remove(row)
    out: list[Finding] = []
    for g in left:
        if not right:
            out.append(Finding("missing", table, None, None, f"a row {what}"))
            continue
        r = max(right, key=lambda c: sum(c.get(k) == v for k, v in g.items()))
        right.remove(r)
        for column in sorted(set(g) | set(r)):
            if g.get(column) != r.get(column):
                kind = "row" if column in refs else "value"
                out.append(Finding(kind, table, None, column, g.get(column), r.get(column), refs.get(column)))
    for _r in right:
        out.append(Finding("extra", table, None, None, None, f"a row {what}"))
    return out


__all__ = ["Finding", "compare", "is_empty", "same_changes", "summary"]
