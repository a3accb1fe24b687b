"""A reward program in words: one sentence per check, as a reviewer reads it (docs in verifiers/reward.py).

Works on the program as the task record holds it (JSON), so an unknown check type still reads
as its type and fields instead of failing the site.
"""

from __future__ import annotations

import json
from typing import Any


def _value(value: Any) -> str:
    return "NULL" if value is None else json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)


def _pairs(values: dict[str, Any] | None) -> str:
    return ", ".join(f"{k} = {_value(v)}" for k, v in sorted((values or {}).items())) or "any values"


def _rows(count: Any) -> str:
    n = 1 if count is None else count
    return f"exactly {n} row{'' if n == 1 else 's'}"


def _allowed(allowed: dict[str, Any]) -> str:
    if not allowed:
        return "nothing in the database changes (rows or schema)"
    parts = []
    for table, rule in sorted(allowed.items()):
        what = []
        insert = rule.get("insert")
        if insert is True:
            what.append("any inserts")
        elif isinstance(insert, int) and insert:
            what.append(f"at most {insert} insert{'' if insert == 1 else 's'}")
        update = rule.get("update")
        if update is True:
            what.append("updates of any column")
        elif update:
            what.append(f"updates of {', '.join(update)}")
        if rule.get("delete"):
            what.append("deletes")
        if rule.get("rows"):
            what.append(f"only on rows {', '.join(str(r) for r in rule['rows'])}")
        parts.append(f"{table}: {', '.join(what) or 'nothing'}")
    return "nothing changes beyond " + "; ".join(parts) + " (schema changes never allowed)"


def check_words(check: dict[str, Any]) -> str:
    """One check as a sentence."""
    kind = str(check.get("type", "?"))
    table = check.get("table", "")
    db = " in the initial database" if check.get("db") == "initial" else ""
    if kind == "row_matches":
        text = f"the {table} row with {_pairs(check.get('key'))} has {_pairs(check.get('expect'))}{db}"
    elif kind == "field_delta":
        tolerance = f" (± {check['tolerance']})" if check.get("tolerance") else ""
        text = (f"the {table} row with {_pairs(check.get('key'))}: {check.get('column')} changes by "
                f"{check.get('delta')}{tolerance}")
    elif kind in ("rows_added", "rows_removed"):
        verb = "inserted into" if kind == "rows_added" else "deleted from"
        text = f"{_rows(check.get('count'))} {verb} {table} with {_pairs(check.get('where'))}"
    elif kind == "diff_within":
        text = _allowed(check.get("allowed") or {})
    elif kind == "unchanged":
        text = f"tables {', '.join(check.get('tables') or [])} are unchanged"
    elif kind == "sql":
        text = f"the query `{check.get('query')}` on the {check.get('db', 'final')} database returns {check.get('expect')}"
    elif kind == "answer":
        expected = check["one_of"] if "one_of" in check else check.get("expected")
        alias = f" (also accepted: {', '.join(map(str, check['aliases']))})" if check.get("aliases") else ""
        text = f"the answer asserts the {check.get('kind', 'text')} {_value(expected)}{alias}"
    else:
        rest = {k: v for k, v in check.items() if k not in ("id", "type", "description", "weight")}
        text = f"{kind}: {json.dumps(rest, sort_keys=True, ensure_ascii=False)}"
    weight = f" [weight {check['weight']}]" if check.get("weight") not in (None, 1) else ""
    return f"{check.get('id', '?')}: {text}{weight}"


def mode_words(reward: dict[str, Any]) -> str:
    """How the checks make a score."""
    if reward.get("mode") == "checklist":
        return "checklist: the score is the passed weight over the total weight; the task is solved only at 1"
    return "all: the score is 1 when every check passes, else 0"


__all__ = ["check_words", "mode_words"]
