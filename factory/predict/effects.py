"""Predict what workflows do to a database by interpreting the seed's expressions, never the app.

reward-gen sees the instruction, the spec and the initial database; it must not run the backend.
`predict` replays the asked-for workflows on an overlay of the read-only database the way the
generated `workflows.run` does: parameters are checked and their rows loaded (visible to the
actor), preconditions evaluated, then the effects applied in order, each expression seeing the
earlier ones; several steps share one overlay. An effect with `when` applies only where its
condition, asked where the effect runs, is true; one with `for_each` applies to every row its
selector picks (selected once, before any changes, in id order, as the app's loop); a set or delete
on a path (`loan.copy`) follows the references as the app's `get_row` does, and fails where one is
empty. What each conditional and bulk effect did is kept in `Prediction.trace` for the claims.
`reward_checks` turns the prediction into `verifiers` checks: the predicted rows, plus a
`diff_within` that allows nothing else. The overlay lives in `factory.predict.overlay`, the
interpreter in `factory.predict.interpreter`.

The interpreter walks the type-checked AST of `factory.expr` with the semantics `pycode` documents:
money in integer cents (a number written next to money is an amount for + - and comparisons, a
factor for * / %), integer division rounding down, `x.f` on a reference following its `<f>_id`
column, `text()` as the app's `money_text`/`label_of`/`value_text`, `now()` as today at 09:00, and
queries over every row of the entity (visibility does not apply) with SQL's NULL logic inside
`where` and `sum`. It is an independent oracle on purpose: where the generated code strays from
those semantics, the golden gate fails instead of the reward repeating the bug. Two such places
are known, both inside query conditions and used by no seed today: `pycode` writes a number next
to money in cents even as a factor (`x.amount * 2`), and SQLAlchemy divides with `/` as reals.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from factory.errors import ExpressionError, PredictionError
from factory.expr.syntax import Node, parse, parse_rows
from factory.expr.typecheck import (
    BOOL,
    Scope,
    Type,
    check,
    field_type,
)
from factory.predict.derived import LOOKUP_CODE, LookupRefused, spec_schema
from factory.predict.interpreter import Interpreter, as_text
from factory.predict.messages import render_message
from factory.predict.overlay import Prediction, Ref, Rows, ref_id
from factory.predict.rows import money_text
from factory.runtime.step import Step
from factory.spec.model import (
    EffectSpec,
    EntitySpec,
    FieldSpec,
    ParamSpec,
    Spec,
    WorkflowSpec,
)
from factory.spec.roles import may_run, refusal, role_of


def _rule_problem(f: FieldSpec | ParamSpec, value: Any) -> str | None:
    """The app's `check_value` message for `value`, or None when the value passes."""
    if value is None or value == "":
        return f"{f.label} is required." if f.required and f.type != "bool" else None
    if f.values is not None and value not in f.values:
        return f"{f.label} must be one of: {', '.join(f.values)}."
    if f.max_length is not None and isinstance(value, str) and len(value) > f.max_length:
        return f"{f.label} must be at most {f.max_length} characters."
    scale = 100 if f.type == "money" else 1
    shown = money_text if f.type == "money" else as_text
    if f.min is not None and value < round(f.min * scale):
        return f"{f.label} must be at least {shown(round(f.min * scale))}."
    if f.max is not None and value > round(f.max * scale):
        return f"{f.label} must be at most {shown(round(f.max * scale))}."
    return None


# ---- predict ---------------------------------------------------------------------------------
def predict(spec: Spec, db: Path, user_id: int, steps: list[Step],
            observe: Callable[[Rows], None] | None = None) -> Prediction:
    """The changes `steps`, run in order by user `user_id`, make to database `db`.

    A step whose preconditions fail changes nothing; their messages are collected in `failed` and
    later steps still run. Raises PredictionError for what the app would reject before or after
    the preconditions: an unknown workflow or parameter, a missing, unknown or invisible row, a
    parameter breaking its rule (422), or effects storing a row that breaks a field rule (422), a
    uniqueness constraint or a reference (409). `observe`, when given, reads the predicted rows after
    the last step (a computed field's value then).
    """
    rows = Rows(spec, Path(db))
    try:
        if rows.get("user", user_id) is None:
            raise PredictionError(f"acting user #{user_id} does not exist in {db}")
        failed: list[str] = []
        refusals: list[tuple[int, str]] = []
        trace: list[tuple[int, int, str]] = []
        shown: list[str] = []
        for index, step in enumerate(steps, 1):
            workflow = next((w for w in spec.workflows if w.name == step.workflow and not w.system), None)
            if workflow is None:
                raise PredictionError(f"step {index}: no workflow {step.workflow!r} with an endpoint in {spec.world}")
            runner = _Step(spec, rows, user_id, workflow)
            try:
                code = runner.run(step.params, failed)
            except PredictionError as exc:
                raise PredictionError(f"step {index} ({workflow.name}): {exc}") from exc
            if code is not None:
                refusals.append((index - 1, code))
            trace += [(index - 1, effect, what) for effect, what in runner.trace]
            if code is not None:
                shown.append(runner.shown)
        prediction = rows.prediction(failed)
        prediction.refusals = refusals
        prediction.trace = trace
        prediction.messages = shown
        if observe is not None:
            observe(rows)
        return prediction
    finally:
        rows.close()


class _Step:
    """One workflow call: the parameters, the preconditions, the effects."""

    def __init__(self, spec: Spec, rows: Rows, user_id: int, workflow: WorkflowSpec) -> None:
        self.rows, self.user_id, self.workflow, self.spec = rows, user_id, workflow, spec
        self.today = dt.date.fromisoformat(spec.today)
        schema = spec_schema(spec)
        self.scope = Scope(schema, {"me": Type("ref", entity="user"),
                                    **{p.name: field_type(p.type, p.ref, p.values) for p in workflow.params}})
        self.env: dict[str, Any] = {"me": Ref("user", user_id)}
        self.trace: list[tuple[int, str]] = []  # (effect index, "when:true" | "when:false" | "rows:N")
        self.shown = ""  # a refused call: the text the app answers with

    def compiled(self, source: str, expect: Type | None = None, nullable: bool = False) -> Node:
        try:
            node = parse(source)
            check(source, node, self.scope, expect, nullable)
        except ExpressionError as exc:
            raise PredictionError(f"cannot interpret `{source}`: {exc}") from exc
        return node

    def evaluate(self, source: str, node: Node, want: Type | None = None) -> Any:
        return Interpreter(self.rows, self.env, self.today, source).value(node, want)

    def run(self, raw: dict[str, Any], failed: list[str]) -> str | None:
        """Apply the step; the id of the first failing precondition when it is refused."""
        for effect in self.workflow.effects:
            needs = {"set": (effect.target, effect.to), "delete": (effect.target,), "create": (effect.values,)}
            if any(part is None for part in needs[effect.kind]):  # a spec.json older than the sources
                raise PredictionError(f"the spec keeps no expression sources for `{effect.source}`; rebuild the world")
        if not may_run(self.spec, self.workflow, self.user_id):  # checked before any row is loaded
            raise PredictionError(f"the app would refuse user #{self.user_id} ({role_of(self.spec, self.user_id)}): "
                                  f"{refusal(self.workflow)} (403)")
        self.load_params(raw)
        messages: list[str] = []
        first: str | None = None
        refused = self.lookups()
        if refused is not None:  # `find_row` refuses before any check runs
            failed.append(refused)
            self.shown = refused
            return LOOKUP_CODE
        for pre in self.workflow.preconditions:
            node = self.compiled(pre.source, BOOL)
            try:
                holds = self.evaluate(pre.source, node)
            except PredictionError:
                if messages:  # the app stops at the first failing check and never gets here
                    continue
                raise
            if not holds:
                if not messages:  # the app builds only the first failing check's message
                    self.shown = self.message(pre.message) if pre.message_py else pre.message
                messages.append(pre.message)
                first = first or pre.id
        if messages:
            failed.extend(messages)
            return first
        touched: dict[tuple[str, int], None] = {}
        removed: list[tuple[str, int]] = []
        before = self.rows.snapshot()
        try:
            for index, effect in enumerate(self.workflow.effects):
                if effect.when is not None:
                    holds = self.evaluate(effect.when, self.compiled(effect.when, BOOL)) is True
                    self.trace.append((index, f"when:{str(holds).lower()}"))
                    if not holds:
                        continue
                for _ in self.each(index, effect):
                    if effect.kind == "set":
                        touched[self.set(effect)] = None
                    elif effect.kind == "create":
                        touched[self.create(effect)] = None
                    else:
                        removed.append(self.delete(effect))
        except LookupRefused as exc:  # an effect's lookup found nothing: the transaction rolls back (409)
            self.rows.restore(before)
            failed.append(exc.message)
            self.shown = exc.message
            return LOOKUP_CODE
        self.check_rows([t for t in touched if t not in removed], removed)
        return None

    def lookups(self) -> str | None:
        """Fill each parameter left out that has a lookup, in order; the message of one that finds nothing."""
        for p in self.workflow.params:
            if p.lookup is None or self.env.get(p.name) is not None:
                continue
            others = Scope(self.scope.schema, {k: v for k, v in self.scope.names.items() if k != p.name})
            try:
                node = parse(p.lookup)
                check(p.lookup, node, others, Type("ref", entity=p.ref), False)
            except ExpressionError as exc:
                raise PredictionError(f"cannot interpret `{p.lookup}`: {exc}") from exc
            try:
                self.env[p.name] = self.evaluate(p.lookup, node)
            except LookupRefused as exc:
                return exc.message
        return None

    def message(self, template: str) -> str:
        """A failing check's message with its values filled in, as the app builds it."""
        return render_message(template, self.scope, Interpreter(self.rows, self.env, self.today, template))

    def each(self, index: int, effect: EffectSpec) -> Iterator[None]:
        """Once for a plain effect; once per selected row for a `for_each` one, the row bound to its name.

        The rows are selected once, before any is changed (as the app's loop over `.all()`), in id order."""
        if effect.for_each is None:
            yield None
            return
        try:
            query = parse_rows(effect.for_each)
            check(effect.for_each, query, self.scope)
        except ExpressionError as exc:
            raise PredictionError(f"cannot interpret `{effect.for_each}`: {exc}") from exc
        found = Interpreter(self.rows, self.env, self.today, effect.for_each).select(query)
        self.trace.append((index, f"rows:{len(found)}"))
        outer = self.scope
        self.scope = outer.child(query.var, Type("ref", entity=query.entity))
        try:
            for ref in found:
                self.env[query.var] = ref
                yield None
        finally:
            self.scope = outer
            self.env.pop(query.var, None)

    # ---- parameters, as `workflows.run` validates and loads them --------------------------
    def load_params(self, raw: dict[str, Any]) -> None:
        declared = {p.name: p for p in self.workflow.params}
        unknown = sorted(set(raw) - set(declared))
        if unknown:
            raise PredictionError(f"unknown parameter(s) {', '.join(unknown)} "
                                  f"(declared: {', '.join(declared) or 'none'})")
        for p in self.workflow.params:
            if p.name in raw and raw[p.name] is None and p.required:
                # the parameter model's annotation is not Optional: pydantic refuses null (422)
                raise PredictionError(f"the app would reject parameter {p.name!r}: {p.label} is required.")
            if p.name in raw:
                value = _api_value(p, raw[p.name])
            elif p.default is not None:
                value = _default(p.type, p.default)
            elif not p.required:
                value = None
            else:
                raise PredictionError(f"parameter {p.name!r} is missing")
            problem = _rule_problem(p, value) if p.type != "reference" or value is None else None
            if problem:
                raise PredictionError(f"the app would reject parameter {p.name!r}: {problem}")
            if p.type == "reference" and value is not None:
                row = self.rows.get(p.ref or "", value)
                if row is None or not self.rows.visible(p.ref or "", row, self.user_id):
                    raise PredictionError(f"parameter {p.name!r}: {p.ref} #{value} does not exist or is "
                                          f"not visible to user #{self.user_id}")
                value = Ref(p.ref or "", value)
            self.env[p.name] = value

    # ---- effects -------------------------------------------------------------------------
    def target(self, effect: EffectSpec) -> Ref:
        """The row a set or delete touches: a parameter, the for_each row, or a row a path leads to."""
        path = effect.target or ""
        if path in self.env:
            ref = self.env[path]
        else:  # `loan.copy`: followed as the app's get_row follows it (an empty reference fails)
            ref = self.evaluate(path, self.compiled(path))
        if not isinstance(ref, Ref) or self.rows.get(ref.entity, ref.id) is None:
            raise PredictionError(f"`{effect.source}`: {effect.target} is null or already deleted "
                                  "(the app would answer with a server error)")
        return ref

    def set(self, effect: EffectSpec) -> tuple[str, int]:
        ref = self.target(effect)
        f = _field(self.rows.entities[effect.entity], effect.field or "")
        want = field_type(f.type, f.ref, f.values)
        value = self.evaluate(effect.source, self.compiled(effect.to or "", want, not f.required), want)
        self.rows.assign(effect.entity, ref.id, f.column, ref_id(value))
        return (effect.entity, ref.id)

    def create(self, effect: EffectSpec) -> tuple[str, int]:
        entity = self.rows.entities[effect.entity]
        values: dict[str, Any] = {}
        for name, source in (effect.values or {}).items():
            f = _field(entity, name)
            want = field_type(f.type, f.ref, f.values)
            values[f.column] = ref_id(self.evaluate(source, self.compiled(source, want, not f.required), want))
        for owner in entity.owner_fields:  # as the compiled rule: an owner not given is the actor
            values.setdefault(f"{owner}_id", self.user_id)
        for f in entity.fields:
            if f.column in values:
                continue
            if not f.required:
                values[f.column] = None  # the model's default=None
            elif f.default is not None and f.type != "datetime":  # a datetime default is stored unparsed
                values[f.column] = _default(f.type, f.default)
        return (effect.entity, self.rows.insert(effect.entity, values))

    def delete(self, effect: EffectSpec) -> tuple[str, int]:
        ref = self.target(effect)
        self.rows.delete(effect.entity, ref.id)
        return (effect.entity, ref.id)

    def check_rows(self, written: list[tuple[str, int]], removed: list[tuple[str, int]]) -> None:
        """What the flush would refuse: field rules (422), uniqueness and references (409)."""
        for entity_name, row_id in written:
            entity = self.rows.entities[entity_name]
            row = self.rows.table(entity_name)[row_id]
            for f in entity.fields:
                problem = _rule_problem(f, row.get(f.column))
                if problem:
                    raise PredictionError(f"the app would refuse to store {entity_name} #{row_id}: {problem}")
                value = row.get(f.column)
                if f.unique and value is not None and any(
                        other["id"] != row_id and other.get(f.column) == value
                        for other in self.rows.table(entity_name).values()):
                    raise PredictionError(f"{entity_name} #{row_id} would repeat the unique {f.name} {value!r} (409)")
        for entity_name, row_id in removed:
            for other in self.rows.entities.values():
                for f in other.fields:
                    if f.ref != entity_name:
                        continue
                    holder = next((r for r in self.rows.table(other.name).values() if r.get(f.column) == row_id), None)
                    if holder is not None:
                        raise PredictionError(f"deleting {entity_name} #{row_id} would break the reference from "
                                              f"{other.name} #{holder['id']}.{f.name} (409)")


def _field(entity: EntitySpec, name: str) -> FieldSpec:
    try:
        return entity.field_named(name)
    except KeyError as exc:
        raise PredictionError(exc.args[0]) from exc


def _default(kind: str, value: Any) -> Any:
    """A declared default as the generated code writes it (money in major units → cents)."""
    if kind == "money":
        return round(float(value) * 100)
    if kind == "date":
        return dt.date.fromisoformat(str(value))
    if kind == "datetime":
        return dt.datetime.fromisoformat(str(value))
    return value


def _api_value(p: ParamSpec, raw: Any) -> Any:
    """An API-level parameter value in the Python form the app's parameter model gives it."""
    if raw is None:
        return None
    kind = p.type
    ok = True
    if kind in ("int", "money", "reference"):
        ok = isinstance(raw, int) and not isinstance(raw, bool)
    elif kind == "bool":
        ok = isinstance(raw, bool)
    elif kind == "date":
        if isinstance(raw, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", raw):
            raw = dt.date.fromisoformat(raw)
        ok = isinstance(raw, dt.date) and not isinstance(raw, dt.datetime)
    elif kind == "datetime":
        if isinstance(raw, str):
            try:
                raw = dt.datetime.fromisoformat(raw)
            except ValueError:
                ok = False
        ok = ok and isinstance(raw, dt.datetime) and raw.tzinfo is None
    else:
        ok = isinstance(raw, str)
    if not ok:
        forms = {"int": "an integer", "money": "integer cents", "reference": "an integer id", "bool": "true or false",
                 "date": "'YYYY-MM-DD'", "datetime": "'YYYY-MM-DDTHH:MM:SS' (no time zone)"}
        raise PredictionError(f"parameter {p.name!r} must be {forms.get(kind, 'a string')}, not {raw!r}")
    return raw


# ---- reward checks ---------------------------------------------------------------------------
def reward_checks(spec: Spec, db: Path, prediction: Prediction) -> list[dict[str, object]]:
    """Checks (the `verifiers.reward` JSON form) passing exactly on the predicted end state.

    One `row_matches` per updated row, one `rows_added` per distinct inserted row (with how many),
    one `rows_removed` per deleted row, and a `diff_within` allowing just those changes: the
    assigned columns of the updated rows, deletes of the deleted rows, and no more inserts than
    predicted. `db` is the initial database; the rows the checks name must exist in it.
    """
    labels = {e.table: e.label.lower() for e in spec.entities}
    conn = sqlite3.connect(f"file:{quote(str(Path(db).resolve()))}?mode=ro", uri=True)
    try:
        def before(table: str, row_id: int) -> dict[str, Any]:
            if table not in labels:
                raise PredictionError(f"the prediction names table {table!r}, which {spec.world} does not have")
            try:
                cursor = conn.execute(f'SELECT * FROM "{table}" WHERE id = ?', (row_id,))
            except sqlite3.DatabaseError as exc:
                raise PredictionError(f"cannot read {table} #{row_id} from {db}: {exc}") from exc
            found = cursor.fetchone()
            if found is None:
                raise PredictionError(f"{table} #{row_id} is not in the initial database {db}")
            return dict(zip([d[0] for d in cursor.description], found, strict=True))

        checks: list[dict[str, object]] = []
        allowed: dict[str, dict[str, Any]] = {}
        for (table, row_id), columns in sorted(prediction.updates.items()):
            old = before(table, row_id)
            expect = dict(sorted(columns.items()))
            changes = ", ".join(f"{c} {old.get(c)!r} -> {v!r}" for c, v in expect.items())
            checks.append({"id": f"{table}_{row_id}_updated", "type": "row_matches", "table": table,
                           "key": {"id": row_id}, "expect": expect,
                           "description": f"{labels.get(table, table)} #{row_id}: {changes}"})
            entry = allowed.setdefault(table, {})
            entry["update"] = sorted(set(entry.get("update", [])) | set(expect))
            entry.setdefault("rows", set()).add(row_id)
        added: dict[str, Counter[tuple[tuple[str, Any], ...]]] = {}
        for table, values in prediction.inserts:
            if table not in labels:
                raise PredictionError(f"the prediction inserts into table {table!r}, which {spec.world} does not have")
            added.setdefault(table, Counter())[tuple(sorted(values.items()))] += 1
        for table in sorted(added):
            for n, (content, count) in enumerate(added[table].items(), 1):
                what = f"{count} new {labels.get(table, table)} row{'s' if count > 1 else ''}"
                checks.append({"id": f"{table}_added_{n}", "type": "rows_added", "table": table,
                               "where": dict(content), "count": count,
                               "description": f"{what} with the predicted values"})
            allowed.setdefault(table, {})["insert"] = sum(added[table].values())
        for table, row_id in sorted(prediction.deletes):
            before(table, row_id)
            checks.append({"id": f"{table}_{row_id}_removed", "type": "rows_removed", "table": table,
                           "where": {"id": row_id}, "description": f"{labels.get(table, table)} #{row_id} is deleted"})
            entry = allowed.setdefault(table, {})
            entry["delete"] = True
            entry.setdefault("rows", set()).add(row_id)
        for entry in allowed.values():
            if "rows" in entry:
                entry["rows"] = sorted(entry["rows"])
        checks.append({"id": "no_other_changes", "type": "diff_within",
                       "allowed": {t: dict(sorted(allowed[t].items())) for t in sorted(allowed)},
                       "description": "nothing changes beyond the predicted rows"})
        return checks
    finally:
        conn.close()
