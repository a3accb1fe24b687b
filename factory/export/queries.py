"""What the Echoverse judge needs beyond our records, derived from each task's own instruction:
SQL that shows a READ's answer (`read_query`) and the row a READ_WRITE finds (`found_answer`).

Both parse the goal with the instruction language reward-gen parses it with, resolve it on the
task's initial database, and check themselves before they are used: the query, run on the initial
database, must give the answer the task's reward program expects; the row found must be the one
the golden steps act on. Where a check fails or the goal does not parse, the fallback says so
(`how` and `note`): a read's query then selects the rows its answer is grounded in.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any, Literal

from factory.errors import FactoryError
from factory.predict.rows import UserView
from factory.spec.model import EntitySpec, Spec
from factory.spec.roles import sees
from factory.tasks.language.asks import Cond, Question
from factory.tasks.language.phrasing import parse
from factory.tasks.language.resolve import answer, extreme, field_value, resolve_ref
from factory.tasks.model import TaskRecord
from verifiers.sqlrender import value_literal

How = Literal["question", "grounding"]


@dataclass(frozen=True)
class Derived:
    """A derived value, how it was derived, and (for a fallback) why the question could not be used."""

    value: str
    how: How
    note: str = ""


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _visible(spec: Spec, entity: EntitySpec, user_id: int) -> list[str]:
    """The app's visibility rule as SQL: public, or one of the owner columns names the user (none
    at all for a role that does not see the entity)."""
    if not sees(spec, entity, user_id):
        return ["0"]
    if entity.visibility == "public" or not entity.owner_fields:
        return []
    owners = [f"{_ident(entity.field_named(o).column)} = {user_id}" for o in entity.owner_fields]
    return [owners[0] if len(owners) == 1 else "(" + " OR ".join(owners) + ")"]


def _condition(view: UserView, entity: EntitySpec, cond: Cond, user_id: int) -> str:
    f = entity.field_named(cond.field)
    column = _ident(f.column)
    if cond.upper is not None:
        low = field_value(view, entity.name, cond.field, cond.value, user_id)
        high = field_value(view, entity.name, cond.field, cond.upper, user_id)
        side = f"substr({column}, 1, 10)" if f.type == "date" else column
        return f"{side} BETWEEN {value_literal(low)} AND {value_literal(high)}"
    want = field_value(view, entity.name, cond.field, cond.value, user_id)
    if f.type == "string":  # the app compares names without regard to case
        return f"lower({column}) = lower({value_literal(want)})"
    return f"{column} = {value_literal(want)}"


def question_sql(view: UserView, q: Question, user_id: int) -> str:
    """SQL over the database that computes what `q` asks, as the acting user sees the rows."""
    entity = view.entity(q.entity)
    table = _ident(entity.table)
    where = _visible(view.spec, entity, user_id) + [_condition(view, entity, c, user_id) for c in q.conds]
    if q.op == "lookup":
        assert q.target is not None and q.field is not None
        row = resolve_ref(  # the row named in the goal, by its label
            view, q.entity, user_id, q.target)
        where.append(f'"id" = {row["id"]}')
        select = _ident(entity.field_named(q.field).column)
    elif q.op == "count":
        select = "count(*)"
    elif q.op == "sum":
        assert q.field is not None
        f = entity.field_named(q.field)
        select = f"sum({_ident(f.column)}) / 100.0" if f.type == "money" else f"sum({_ident(f.column)})"
    else:
        assert q.field is not None
        column = _ident(entity.field_named(q.field).column)
        where.append(f"{column} IS NOT NULL")
        order = f"{column} {'DESC' if q.op == 'max' else 'ASC'}"
        if q.tie and entity.display_fields:  # "name the first alphabetically": by the label's leading field
            main = entity.field_named(entity.display_fields[0])
            if main.type != "reference":
                order += f", lower({_ident(main.column)})"
        clause = " WHERE " + " AND ".join(where) if where else ""
        return f'SELECT "id", {column} FROM {table}{clause} ORDER BY {order}, "id" LIMIT 1'
    clause = " WHERE " + " AND ".join(where) if where else ""
    return f"SELECT {select} FROM {table}{clause}"


def _expected(record: TaskRecord) -> Any:
    checks = record.reward.get("checks", [])
    found = next((c for c in checks if c.get("type") == "answer"), None)
    return None if found is None else found.get("expected")


def _agrees(view: UserView, q: Question, user_id: int, sql: str, record: TaskRecord) -> str:
    """'' when the SQL, run on the initial database, gives the answer the reward expects; else why not."""
    resolved = answer(view, q, user_id)
    expected = _expected(record)
    if expected is not None and resolved.value != expected:
        return f"the goal resolves to {resolved.value!r}, the reward expects {expected!r}"
    try:
        rows = view.conn.execute(sql).fetchall()
    except sqlite3.Error as exc:
        return f"the derived SQL fails: {exc}"
    got = rows[0][0] if rows else None
    if q.op in ("max", "min"):
        return "" if got == resolved.rows[0] else f"the derived SQL picks row {got}, the goal row {resolved.rows[0]}"
    if q.op == "lookup":
        row = view.row(q.entity, resolved.rows[0]) or {}
        raw = row.get(view.field(q.entity, q.field or "").column)
        return "" if got == raw else f"the derived SQL gives {got!r}, the row holds {raw!r}"
    if q.op == "sum" and isinstance(got, int | float) and isinstance(resolved.value, int | float):
        return "" if abs(got - resolved.value) < 0.005 else f"the derived SQL gives {got!r}, the answer is {resolved.value!r}"
    return "" if got == resolved.value else f"the derived SQL gives {got!r}, the answer is {resolved.value!r}"


def grounding_sql(view: UserView, record: TaskRecord) -> str:
    """The fallback: the rows the task is grounded in, one SELECT per table."""
    by_entity: dict[str, list[int]] = {}
    for r in record.metadata.required_entities:
        by_entity.setdefault(r.entity, []).append(r.id)
    parts = [f'SELECT * FROM {_ident(view.entity(e).table)} WHERE "id" IN ({", ".join(str(i) for i in sorted(ids))})'
             for e, ids in sorted(by_entity.items())]
    return ";\n".join(parts)


def read_query(view: UserView, record: TaskRecord) -> Derived:
    """A READ task's verification query, from its question where possible (see the module's docstring)."""
    user_id = record.metadata.acting_user_id
    try:
        ask = parse(view.spec, record.goal)
        if ask.question is None:
            raise FactoryError("the goal parses as a workflow, not a question")
        sql = question_sql(view, ask.question, user_id)
        problem = _agrees(view, ask.question, user_id, sql, record)
    except (FactoryError, KeyError, ValueError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
    if problem:
        return Derived(grounding_sql(view, record), "grounding", problem)
    return Derived(sql, "question")


def found_answer(view: UserView, record: TaskRecord) -> Derived:
    """A READ_WRITE task's reference answer: the label of the row its goal finds and its golden steps act on."""
    user_id = record.metadata.acting_user_id
    problem = "the goal names no row to find"
    try:
        ask = parse(view.spec, record.goal)
        for ask_step, golden in zip(ask.steps, record.golden_steps, strict=False):
            if ask_step.pick is None:
                continue
            param, q = ask_step.pick
            row = extreme(view, q, user_id)
            if golden.params.get(param) != row["id"]:
                problem = f"the goal finds {q.entity} {row['id']}, the golden step acts on {golden.params.get(param)!r}"
                break
            return Derived(view.label(q.entity, row), "question")
    except (FactoryError, KeyError, ValueError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
    first = record.metadata.required_entities[0] if record.metadata.required_entities else None
    return Derived(first.label or "" if first else "", "grounding", problem)
