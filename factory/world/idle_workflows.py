"""Workflows the built seed database leaves with no row to act on, as build warnings.

A workflow whose required reference parameter offers no row (every bill paid, no card locked) has
no task: the proposer finds nothing to ask for and the workflow goes untested, silently. Which rows
exist is only known after the storyline has run, and running it takes the generated seeder (14 s
on EchoBank), too slow for `factory check`: so this runs on the seed database of a build.

A row counts when a user who may run the workflow sees it, its parameter's `where` holds (with SQL's
null logic, as the option list filters it) and so does every precondition that names no other
parameter than that one (and `me`). Expressions are evaluated by the stage-two interpreter
(`factory.predict`), the same oracle the rewards are predicted with.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factory.errors import ExpressionError, PredictionError
from factory.expr.pycode import mentions
from factory.expr.syntax import Attr, Binary, Call, Name, Node, Query, Unary, names_in, parse, parse_rows
from factory.expr.typecheck import BOOL, Scope, Type, check, field_type
from factory.predict.derived import LookupRefused, spec_schema
from factory.predict.interpreter import Interpreter
from factory.predict.overlay import Ref, Rows
from factory.seed.loaded import LoadedSeed
from factory.spec.labels import value_label
from factory.spec.model import CheckSpec, EntitySpec, ParamSpec, Spec, WorkflowSpec

_SHOWN_VALUES = 4  # values listed per field in a warning: enough to see why, short enough to read
_USER = Type("ref", entity="user")


@dataclass
class _Blocked:
    """Why no row is left: the seed key to point at and the words of the warning."""

    path: tuple[str | int, ...]
    why: str


def idle_workflow_warnings(loaded: LoadedSeed, spec: Spec, db: Path) -> list[str]:
    """One `file:line: key: message` warning per user workflow parameter that no row of the seed
    database can fill (see the module's docstring for what counts)."""
    seed_workflows = {w.name: wi for wi, w in enumerate(loaded.seed.workflows)}
    rows = Rows(spec, db)
    try:
        checker = _Checker(spec, rows)
        warnings: list[str] = []
        for wf in spec.workflows:
            if wf.system or wf.name not in seed_workflows:
                continue
            for pi, param in enumerate(wf.params):
                if param.type != "reference" or not param.required or param.ref in (None, "user"):
                    continue
                blocked = checker.blocked(wf, param, ("workflows", seed_workflows[wf.name], "params", pi))
                if blocked is not None:
                    warnings.append(str(loaded.error(blocked.path, f"workflow {wf.name}: {blocked.why}")))
        return warnings
    finally:
        rows.close()


class _Checker:
    """Looks for one row each parameter can take, over the rows of one database."""

    def __init__(self, spec: Spec, rows: Rows) -> None:
        self.rows = rows
        self.today = dt.date.fromisoformat(spec.today)
        self.schema = spec_schema(spec)
        self.roles = {u.id: u.role for u in spec.users}
        self.entities = {e.name: e for e in spec.entities}

    def blocked(self, wf: WorkflowSpec, param: ParamSpec, path: tuple[str | int, ...]) -> _Blocked | None:
        """Why no row can fill `param` of `wf`, or None when one can."""
        entity = self.entities[param.ref or ""]
        runners = [uid for uid, role in self.roles.items() if not wf.roles or role in wf.roles]
        table = self.rows.table(entity.name)
        if not runners:
            return None  # no user holds the role: a different problem, and no row would help
        kind = entity.label.lower()
        if not table:
            return _Blocked(path, f"the storyline leaves no {kind} row at all, so {param.label!r} has nothing to "
                                  f"offer; seed some (`seed:`) or add an event that creates one")
        scope = Scope(self.schema, {"me": _USER, **{p.name: field_type(p.type, p.ref, p.values) for p in wf.params}})
        try:
            where = self._where(param)
        except ExpressionError:  # the builder compiled it; a spec older than the interpreter is not ours to judge
            return None
        checks = [(ci, pre, node) for ci, pre, node in self._checks(wf, scope) if param.name in names_in(node)
                  and names_in(node) <= {param.name, "me"}]
        personal = (where is not None and mentions(where, "me")) or any(mentions(n, "me") for _c, _p, n in checks)
        seen = 0  # rows a runner sees
        matched = 0  # of those, rows the `where` keeps
        failing: Counter[int] = Counter()  # precondition index → rows it turned away (the first failing one)
        for uid, row_id, kept in self._candidates(entity, runners, where, personal):
            seen += 1
            if not kept:
                continue
            matched += 1
            env = {"me": Ref("user", uid), param.name: Ref(entity.name, row_id)}
            first = next((ci for ci, pre, node in checks if not self._holds(pre.source, node, env)), None)
            if first is None:
                return None
            failing[first] += 1
        where_read = [(where.where, "it")] if where is not None else []
        if not seen:
            return _Blocked(path, f"no user who may run it sees any of the {len(table)} {kind} rows the storyline "
                                  f"leaves, so {param.label!r} has nothing to offer; seed rows those users own")
        if not matched:
            return _Blocked(path + ("where",), (
                f"no {kind} row satisfies `{param.where}` after the storyline (there are {len(table)} {kind} rows"
                f"{self._summary(entity, where_read)}); add a storyline event that leaves some that do, or seed some"))
        ci = failing.most_common(1)[0][0]
        pre = wf.preconditions[ci]
        node = next(n for c, _p, n in checks if c == ci)
        return _Blocked(path[:2] + ("preconditions", ci, "check"), (
            f"{matched} {kind} row(s) can fill {param.label!r} but none passes `{pre.source}` ({pre.message!r}) "
            f"after the storyline (there are {len(table)} {kind} rows"
            f"{self._summary(entity, [*where_read, (node, param.name)])}); add a storyline event that leaves some "
            "that pass, or seed some"))

    def _where(self, param: ParamSpec) -> Query | None:
        """The parameter's `where` as the rows query the option list runs (`it in <entity> where …`)."""
        if not param.where:
            return None
        source = f"it in {param.ref} where {param.where}"
        query = parse_rows(source)
        check(source, query, Scope(self.schema, {"me": _USER}))
        return query

    def _checks(self, wf: WorkflowSpec, scope: Scope) -> Iterator[tuple[int, CheckSpec, Node]]:
        for ci, pre in enumerate(wf.preconditions):
            try:
                node = parse(pre.source)
                check(pre.source, node, scope, BOOL)
            except ExpressionError:  # the builder compiled it; a spec older than the interpreter is not ours to judge
                continue
            yield ci, pre, node

    def _candidates(self, entity: EntitySpec, runners: list[int], where: Query | None, personal: bool
                    ) -> Iterator[tuple[int, int, bool]]:
        """(runner, row id, whether the `where` keeps it) for every row a runner sees. When nothing
        depends on who acts (`personal` false), each row once, with the first runner who sees it."""
        table = self.rows.table(entity.name)
        runners = [uid for uid in runners if not entity.roles or self.roles.get(uid) in entity.roles]
        shared = self._select(where, runners[0]) if where is not None and runners and not personal else None
        if not personal:
            for row_id, row in sorted(table.items()):
                uid = next((u for u in runners if self._sees(entity, row, u)), None)
                if uid is not None:
                    yield uid, row_id, shared is None or row_id in shared
            return
        for uid in runners:
            kept = self._select(where, uid) if where is not None else None
            for row_id, row in sorted(table.items()):
                if self._sees(entity, row, uid):
                    yield uid, row_id, kept is None or row_id in kept

    def _select(self, where: Query, uid: int) -> set[int]:
        try:
            found = Interpreter(self.rows, {"me": Ref("user", uid)}, self.today, "where").select(where)
        except (PredictionError, LookupRefused):
            return set()
        return {ref.id for ref in found}

    def _sees(self, entity: EntitySpec, row: dict[str, Any], uid: int) -> bool:
        if entity.visibility == "public":
            return True
        return any(row.get(f"{owner}_id") == uid for owner in entity.owner_fields)

    def _holds(self, source: str, node: Node, env: dict[str, Any]) -> bool:
        try:
            return Interpreter(self.rows, env, self.today, source).value(node) is True
        except (PredictionError, LookupRefused):  # the app would refuse (or fail on) this row too
            return False

    def _summary(self, entity: EntitySpec, exprs: list[tuple[Node | None, str]]) -> str:
        """", all with status 'paid'" or ", status: 'paid' ×12, 'due' ×3": the values of the fields
        the expressions read of their row variable, over every row of the entity."""
        read: list[str] = []
        for node, var in exprs:
            for name in _fields_read(node, var):
                if name not in read:
                    read.append(name)
        fields = {f.name: f for f in entity.fields}
        table = self.rows.table(entity.name).values()
        parts: list[str] = []
        for name in read:
            f = fields.get(name)
            if f is None or f.type in ("text", "reference"):  # free text and row ids say nothing at a glance
                continue
            values = [row.get(f.column) for row in table]
            present = sorted(v for v in values if v is not None)
            empty = f" ({len(values) - len(present)} empty)" if len(present) < len(values) else ""
            if f.type in ("date", "datetime", "money") and present:
                low, high = value_label(f.type, present[0]), value_label(f.type, present[-1])
                parts.append(f"{f.label.lower()} from {low} to {high}{empty}")
                continue
            counts = Counter(_written(v) for v in values)
            if len(counts) == 1:
                parts.append(f"all with {f.label.lower()} {next(iter(counts))}")
            else:
                shown = ", ".join(f"{value} ×{n}" for value, n in counts.most_common(_SHOWN_VALUES))
                parts.append(f"{f.label.lower()}: {shown}{', …' if len(counts) > _SHOWN_VALUES else ''}")
        return f", {'; '.join(parts)}" if parts else ""


def _fields_read(node: Node | None, var: str) -> Iterator[str]:
    """The fields `var.<field>` that an expression reads, in order."""
    if node is None:
        return
    if isinstance(node, Attr):
        if isinstance(node.obj, Name) and node.obj.id == var:
            yield node.name
        else:
            yield from _fields_read(node.obj, var)
    elif isinstance(node, Unary):
        yield from _fields_read(node.operand, var)
    elif isinstance(node, Binary):
        yield from _fields_read(node.left, var)
        yield from _fields_read(node.right, var)
    elif isinstance(node, Call):
        for arg in node.args:
            yield from _fields_read(arg, var)


def _written(value: Any) -> str:
    """A stored value as a seed writes it in an expression: 'paid', true, 3, null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value) if isinstance(value, str) else str(value)
