"""The spec's own answer to a call: what the app must do, worked out without the app.

Claims are a deterministic function of the spec and the seed database, so `prove` can compile them
again and compare. Nothing here runs the generated code: the rows a form offers come from the
parameter's option filter (its seed source, in SQL's three-valued logic), and the outcome of a
sequence of calls from the expression interpreter of stage two (`factory.predict.effects.predict`),
which replays preconditions and effects the way the seed defines them.

An `Outcome` is what the last call answers (200, 409 with the precondition, or the 4xx the app's
validation gives) and the exact row-level change the whole sequence leaves behind, in the storage
form a row diff sees (cents, ISO text, 0/1).
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from factory.claims.model import Expected, RowValues
from factory.errors import ExpressionError, PredictionError
from factory.expr.pycode import mentions
from factory.expr.syntax import Query, parse
from factory.expr.typecheck import BOOL, Scope, Type, check, field_type
from factory.predict.derived import spec_schema
from factory.predict.effects import predict
from factory.predict.overlay import Prediction

# What the interpreter's refusals mean over HTTP, by the words its messages use.
from factory.runtime.step import Step
from factory.spec.model import Spec, WorkflowSpec
from factory.spec.roles import sees

_STATUS_WORDS = (("role only (403)", 403), ("does not exist or is not visible", 404), ("would repeat the unique", 409),
                 ("would break the reference", 409), ("would reject parameter", 422), ("would refuse to store", 422),
                 ("must be", 422), ("is missing", 422), ("unknown parameter", 422))


@dataclass(frozen=True)
class Call:
    """One workflow call by one user, with API-level parameters (cents, ids, ISO dates)."""

    workflow: str
    user: int
    params: dict[str, Any]


@dataclass
class Outcome:
    """What a sequence of calls does: the last call's answer and the whole sequence's changes."""

    status: int
    precondition: str | None = None
    setups_ok: bool = True  # every call before the last succeeded
    prediction: Prediction | None = None
    error: str = ""
    message: str = ""  # a 409: the text the app answers with

    @property
    def ok(self) -> bool:
        return self.status == 200 and self.setups_ok


@dataclass
class Oracle:
    """Option lists and outcomes over one (read-only) seed database."""

    spec: Spec
    db: Path
    tries: int = 0
    _options: dict[tuple[str, str, int], list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.conn = sqlite3.connect(f"file:{quote(str(self.db.resolve()))}?mode=ro", uri=True)
        self.conn.row_factory = sqlite3.Row
        self.today = dt.date.fromisoformat(self.spec.today)

    def close(self) -> None:
        self.conn.close()

    # ---- rows -----------------------------------------------------------------------------
    def visible_ids(self, entity: str, user: int) -> list[int]:
        e = self.spec.entity(entity)
        if not sees(self.spec, e, user):  # the user's role does not see the entity at all
            return []
        if e.visibility == "public" or e.builtin:
            return [r[0] for r in self.conn.execute(f'SELECT id FROM "{e.table}" ORDER BY id')]
        owners = " OR ".join(f'"{o}_id" = ?' for o in e.owner_fields)
        return [r[0] for r in self.conn.execute(f'SELECT id FROM "{e.table}" WHERE {owners} ORDER BY id',
                                                [user] * len(e.owner_fields))]

    def row(self, entity: str, row_id: int) -> dict[str, Any]:
        found = self.conn.execute(f'SELECT * FROM "{self.spec.entity(entity).table}" WHERE id = ?', (row_id,)).fetchone()
        return dict(found) if found else {}

    def options(self, wf: WorkflowSpec, param: str, user: int) -> list[int]:
        """The rows a workflow form offers for a reference parameter: visible, and meeting its filter."""
        key = (wf.name, param, user)
        if key not in self._options:
            p = next(x for x in wf.params if x.name == param)
            ids = self.visible_ids(p.ref or "", user)
            if p.where:
                held = self._rows_where(wf, p.name, p.ref or "", p.where, user)
                ids = ([i for i in ids if i in held] if held is not None
                       else [i for i in ids if self._where_holds(wf, p.name, p.ref or "", p.where, i, user)])
            self._options[key] = ids
        return self._options[key]

    def _rows_where(self, wf: WorkflowSpec, param: str, entity: str, source: str, user: int) -> set[int] | None:
        """The ids of every row the option filter holds for, in one pass over the table.

        A filter that names only the row (`it`), `me` and constants has the same value per row
        whichever row the parameter is bound to, so one scan answers for all of them; a filter
        that names the parameter itself (None here) is asked row by row by `_where_holds`."""
        from factory.predict.interpreter import Interpreter
        from factory.predict.overlay import Ref, Rows  # the interpreter's own row model

        probe = f"exists(it in {entity} where ({source}))"
        try:
            node = parse(probe)
            check(probe, node, self.scope(wf), BOOL, False)
        except ExpressionError:
            return set()  # as `_where_holds` answers for a filter that does not check: no row
        if not isinstance(node, Query) or node.where is None or mentions(node.where, param):
            return None
        rows = Rows(self.spec, self.db)
        held: set[int] = set()
        try:
            interpreter = Interpreter(rows, {"me": Ref("user", user)}, self.today, probe)
            for row_id, row in rows.table(entity).items():
                try:
                    if interpreter.sql(node.where, node.var, row) is True:
                        held.add(row_id)
                except PredictionError:
                    continue  # this row cannot be asked about: not offered, as `_where_holds` says
        finally:
            rows.close()
        return held

    def scope(self, wf: WorkflowSpec) -> Scope:
        """The names a workflow's expressions may use: `me` and its parameters, typed."""
        schema = spec_schema(self.spec)
        return Scope(schema, {"me": Type("ref", entity="user"),
                              **{p.name: field_type(p.type, p.ref, p.values) for p in wf.params}})

    def _where_holds(self, wf: WorkflowSpec, param: str, entity: str, source: str, row_id: int, user: int) -> bool:
        """The option filter for one row, in SQL's logic (NULL is not true), via a one-step query."""
        # `exists(it in <entity> where it.id == <row> and <filter>)` asks the interpreter the same
        # question the app's OPTION_QUERIES asks SQLite, with the same NULL semantics.
        probe = f"exists(it in {entity} where it == {param} and ({source}))"
        outcome = self._evaluate(wf, user, probe, {param: row_id})
        return outcome is True

    def _evaluate(self, wf: WorkflowSpec, user: int, source: str, params: dict[str, Any]) -> Any:
        from factory.predict.interpreter import Interpreter
        from factory.predict.overlay import Ref, Rows  # the interpreter's own row model

        try:
            node = parse(source)
            check(source, node, self.scope(wf), BOOL, False)
        except ExpressionError:
            return None
        rows = Rows(self.spec, self.db)
        try:
            env: dict[str, Any] = {"me": Ref("user", user)}
            for p in wf.params:
                if p.name in params:
                    env[p.name] = Ref(p.ref or "", params[p.name]) if p.type == "reference" else params[p.name]
            return Interpreter(rows, env, self.today, source).value(node)
        except PredictionError:
            return None
        finally:
            rows.close()

    # ---- outcomes -------------------------------------------------------------------------
    def outcome(self, calls: list[Call]) -> Outcome:
        """What the app must answer to the last call, after the calls before it (all by one user)."""
        self.tries += 1
        user = calls[-1].user
        try:
            prediction = predict(self.spec, self.db, user, [Step(c.workflow, c.params) for c in calls])
        except PredictionError as exc:
            text = str(exc)
            last = f"step {len(calls)} " in text
            status = next((code for words, code in _STATUS_WORDS if words in text), 500)
            return Outcome(status=status if last else 0, setups_ok=last, error=text)
        setups_ok = all(index == len(calls) - 1 for index, _ in prediction.refusals)
        refused = next((code for index, code in prediction.refusals if index == len(calls) - 1), None)
        if refused is not None:
            return Outcome(status=409, precondition=refused, setups_ok=setups_ok, prediction=prediction,
                           message=prediction.messages[-1] if prediction.messages else "")
        return Outcome(status=200, setups_ok=setups_ok, prediction=prediction)

    def expected(self, prediction: Prediction) -> Expected:
        """A prediction as the exact change a row diff against the seed database must show.

        Assignments of the value a row already held are no change to a diff, so they are left out;
        a row whose assignments all were is left out too."""
        updated: list[RowValues] = []
        for (table, row_id), columns in sorted(prediction.updates.items()):
            before = self._row_by_table(table, row_id)
            changed = {c: v for c, v in sorted(columns.items()) if before.get(c) != v or c not in before}
            if changed:
                updated.append(RowValues(table=table, id=row_id, values=changed))
        inserted = [RowValues(table=table, id=None, values=dict(sorted(values.items())))
                    for table, values in prediction.inserts]
        deleted = [RowValues(table=table, id=row_id) for table, row_id in sorted(prediction.deletes)]
        return Expected(updated=updated, inserted=inserted, deleted=deleted)

    def _row_by_table(self, table: str, row_id: int) -> dict[str, Any]:
        found = self.conn.execute(f'SELECT * FROM "{table}" WHERE id = ?', (row_id,)).fetchone()
        return dict(found) if found else {}
