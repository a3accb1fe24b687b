"""Witnesses the seed data cannot give: rows planted so that a workflow has something to act on.

A bulk workflow that runs on a clock ("flag every open invoice past its due date", "close every
ticket resolved more than five days ago") finds nothing to do in a seed database whose storyline
already ran it on schedule: every call is refused ("None of your open invoices is past due") and,
without a witness, its effects would go unclaimed. The plant is a small change to one or two rows
(a status, a due date, an owner) that makes the rows the workflow's `exists(...)` rules and
`for_each` selectors ask for, found one column at a time (`predict.solve.descend`) by the
interpreter on the row in memory. The witness search then runs again on a copy of the seed database
with the plant applied, and every claim made from that witness carries the plant's SQL, so the
verifier applies it to its own fresh copy and judges the change against the planted copy.

Only conditions on the selected row itself are solved (`t.status == 'resolved'`,
`i.due_on < today()`, `i.dispatcher == me`); a condition that names a call parameter is left to the
search, which tries the planted database like any other.
"""

from __future__ import annotations

import datetime as dt
import logging
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from factory.claims.oracle import Oracle
from factory.claims.search import Witness, WitnessSearch
from factory.errors import ExpressionError, PredictionError
from factory.expr.syntax import Attr, Binary, Literal, Name, Node, Query, parse, parse_rows
from factory.expr.typecheck import BOOL, check
from factory.predict.interpreter import NOW_TIME, Interpreter
from factory.predict.overlay import Ref, Rows, stored
from factory.predict.solve import descend
from factory.spec.model import EntitySpec, FieldSpec, Spec, WorkflowSpec
from factory.spec.roles import may_run
from verifiers.sqlrender import value_literal

log = logging.getLogger(__name__)

ROWS_TRIED = 40  # rows per user whose columns the plant may change
PLANTED_ROWS = 2  # two rows, so a bulk effect cut to its first row shows
PLANT_USERS = 3  # users a plant is tried for
_DAY_OFFSETS = (-1, -2, -7, -8, -30, -31, -90, -400, 0, 1, 2, 7, 8, 30, 31, 90, 400)


class Selector:
    """The row condition a workflow needs some row of `entity` to meet, split into its conjuncts."""

    def __init__(self, entity: str, var: str, conjuncts: list[Node]) -> None:
        self.entity, self.var, self.conjuncts = entity, var, conjuncts


def _conjuncts(node: Node) -> list[Node]:
    if isinstance(node, Binary) and node.op == "and":
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


def _positive_queries(node: Node) -> list[Query]:
    """The `exists(...)` queries a rule needs to hold (not those under a `not` or an `or`)."""
    if isinstance(node, Query) and node.fn == "exists":
        return [node]
    if isinstance(node, Binary) and node.op == "and":
        return _positive_queries(node.left) + _positive_queries(node.right)
    if isinstance(node, Binary) and node.op in (">", ">=") and isinstance(node.left, Query) and node.left.fn == "count":
        return [node.left]
    return []


def selectors(spec: Spec, oracle: Oracle, wf: WorkflowSpec) -> list[Selector]:
    """Every row condition of the workflow's rules and bulk effects, type-checked, one per entity
    and row variable (a rule and a `for_each` that name their row alike share their conditions)."""
    scope = oracle.scope(wf)
    found: dict[tuple[str, str], Selector] = {}
    sources = [c.source for c in wf.preconditions] + [e.for_each for e in wf.effects if e.for_each]
    for source in sources:
        try:
            node = parse_rows(source) if _is_rows(source) else parse(source)
        except ExpressionError:
            continue
        probes = [node] if isinstance(node, Query) and node.fn == "rows" else _positive_queries(node)
        for query in probes:
            if query.where is None:
                continue
            # the query itself, typed as an `exists` in the workflow's scope (its own node: a
            # second query over the same rows in the same rule is never mistaken for it)
            typed = Query(query.pos, "exists", query.var, query.entity, query.where)
            try:
                check(source, typed, scope, BOOL, False)
            except ExpressionError:
                continue
            assert typed.where is not None
            selector = found.setdefault((query.entity, query.var), Selector(query.entity, query.var, []))
            for part in _conjuncts(typed.where):
                if part not in selector.conjuncts:
                    selector.conjuncts.append(part)
    return [s for s in found.values() if s.conjuncts]


def _is_rows(source: str) -> bool:
    head = source.strip().split(" ", 2)
    return len(head) == 3 and head[1] == "in"


def _candidates(spec: Spec, f: FieldSpec, user: int, today: dt.date, numbers: list[float]) -> list[Any]:
    """Values a planted column may take, in the interpreter's loaded form."""
    out: list[Any] = []
    if f.type == "enum":
        out = list(f.values or [])
    elif f.type == "reference":
        out = [user] if f.ref == "user" else []
    elif f.type in ("date", "datetime"):
        # a day either side of every span the rule names ("more than five days ago": days(5))
        spans = sorted({round(n) + step for n in numbers if 0 < n <= 3660 for step in (0, 1, 2)})
        offsets = list(_DAY_OFFSETS) + [sign * d for d in spans for sign in (-1, 1)]
        if f.type == "date":
            out = [today + dt.timedelta(days=d) for d in offsets]
        else:
            now = dt.datetime.combine(today, NOW_TIME)
            out = [now + dt.timedelta(days=d, hours=-1) for d in offsets]
    elif f.type == "bool":
        out = [True, False]
    elif f.type in ("int", "money"):
        scale = 100 if f.type == "money" else 1
        out = sorted({round(n * scale) + step for n in numbers for step in (-1, 0, 1)} | {0, 1})
    if not f.required:
        out.append(None)
    return out


def _numbers(nodes: list[Node]) -> list[float]:
    out: list[float] = []
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, Literal) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            out.append(float(node.value))
        for child in vars(node).values():
            if isinstance(child, Node):
                stack.append(child)
            elif isinstance(child, list):
                stack += [c for c in child if isinstance(c, Node)]
    return out


def _fields_named(selector: Selector, e: EntitySpec) -> list[FieldSpec]:
    """The row's own fields its conditions compare (`t.status`, `i.due_on`), in field order."""
    names: set[str] = set()
    stack = list(selector.conjuncts)
    while stack:
        node = stack.pop()
        if isinstance(node, Attr) and isinstance(node.obj, Name) and node.obj.id == selector.var:
            names.add(node.name)
        for child in vars(node).values():
            if isinstance(child, Node):
                stack.append(child)
            elif isinstance(child, list):
                stack += [c for c in child if isinstance(c, Node)]
    return [f for f in e.fields if f.name in names and f.compute is None]


def _solve_row(selector: Selector, interpreter: Interpreter, row: dict[str, Any], fields: list[FieldSpec],
               domains: dict[str, list[Any]]) -> dict[str, Any] | None:
    """The columns to change so that `row` meets every conjunct (None when it cannot)."""
    keys = {f.name: (f"{f.name}_id" if f.type == "reference" else f.name) for f in fields}

    def failures(values: dict[str, Any]) -> float | None:
        trial = {**row, **{keys[n]: v for n, v in values.items()}}
        try:
            return float(sum(interpreter.sql(c, selector.var, trial) is not True for c in selector.conjuncts))
        except (PredictionError, KeyError, TypeError):
            return None

    start = {f.name: row.get(keys[f.name]) for f in fields}
    solved = descend(start, {n: v for n, v in domains.items() if v}, failures)
    if solved is None:
        return None
    return {keys[n]: v for n, v in solved.items() if v != start[n]}


def plant_rows(spec: Spec, oracle: Oracle, wf: WorkflowSpec, user: int) -> list[str]:
    """UPDATE statements that make up to two rows meet the workflow's row conditions for `user`
    (empty when no row can be made to)."""
    found = selectors(spec, oracle, wf)
    if not found:
        return []
    selector = found[0]
    e = spec.entity(selector.entity)
    if e.builtin:
        return []
    rows = Rows(spec, oracle.db)
    try:
        interpreter = Interpreter(rows, {"me": Ref("user", user)}, oracle.today, "plant")
        fields = _fields_named(selector, e)
        numbers = _numbers(selector.conjuncts)
        domains = {f.name: _candidates(spec, f, user, oracle.today, numbers) for f in fields}
        table = rows.table(e.name)
        # the user's own rows first: a plant that also hands a row to the user changes more
        ordered = sorted(table, key=lambda rid: (not rows.visible(e.name, table[rid], user), rid))
        solutions: list[tuple[int, int, dict[str, Any]]] = []
        for rid in ordered[:ROWS_TRIED]:
            changes = _solve_row(selector, interpreter, table[rid], fields, domains)
            if changes is not None:
                solutions.append((len(changes), rid, changes))
    finally:
        rows.close()
    chosen = sorted(solutions, key=lambda s: (s[0], s[1]))[:PLANTED_ROWS]
    columns = {f"{f.name}_id" if f.type == "reference" else f.name: f.column for f in e.fields}
    out = []
    for _, rid, changes in sorted(chosen, key=lambda s: s[1]):
        if not changes:
            continue
        sets = ", ".join(f'"{columns.get(k, k)}" = {value_literal(stored(v))}' for k, v in sorted(changes.items()))
        out.append(f'UPDATE "{e.table}" SET {sets} WHERE id = {rid}')
    return out


class Plantings:
    """Planted databases for the witnesses the seed data cannot give; `close` removes them."""

    def __init__(self, spec: Spec, oracle: Oracle) -> None:
        self.spec, self.oracle = spec, oracle
        self.folder = Path(tempfile.mkdtemp(prefix="plant-"))
        self.oracles: list[Oracle] = []

    def close(self) -> None:
        for oracle in self.oracles:
            oracle.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def witness(self, wf: WorkflowSpec) -> Witness | None:
        """A witness on planted rows, with the plant's SQL and the oracle of the planted copy."""
        tried = 0
        for u in self.spec.users:
            if tried >= PLANT_USERS or not may_run(self.spec, wf, u.id):
                continue
            plant = plant_rows(self.spec, self.oracle, wf, u.id)
            if not plant:
                continue
            tried += 1  # each try is a whole witness search: bounded for a workflow nothing completes
            db = self.folder / f"{wf.name}-{u.id}.db"
            shutil.copyfile(self.oracle.db, db)
            with sqlite3.connect(db) as conn:
                for statement in plant:
                    conn.execute(statement)
            conn.close()
            oracle = Oracle(self.spec, db)
            self.oracles.append(oracle)
            search = WitnessSearch(self.spec, oracle)
            witness = search.search(wf)
            if witness.params is None:
                continue
            witness.plant, witness.oracle = plant, oracle
            search.boundaries(wf, witness)
            search.branches(wf, witness)
            log.info("%s: witnessed on %d planted row(s) for user %d", wf.name, len(plant), u.id)
            return witness
        return None


__all__ = ["Plantings", "Selector", "plant_rows", "selectors"]
