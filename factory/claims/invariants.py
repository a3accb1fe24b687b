"""Seed invariants evaluated by the factory, never by the app.

The verifier used to run the world's generated `app/backend/invariants.py`; a repair (or a fault)
could edit that file to pass while the data broke the invariant. Here each `InvariantSpec` is
interpreted from its seed sources over the database with the expression semantics of
`factory.predict.effects` (the independent interpreter reward generation already relies on).

The semantics reproduce the generated checker's (`rows_py`, `row_var`, `check_py`):
`select(Model).where(<selector>).order_by(Model.id)` picks a row only when the selector's
condition is TRUE in SQL's three-valued logic, and the row is reported when `not (<check>)`
holds in Python with the row bound to the selector's variable. One difference on purpose: a row
whose check cannot be computed (a NULL compared with a number, a reference to a missing row)
stops the generated checker with an error that fails every invariant; here that row is a
violation of its own invariant only, so the evidence names it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from factory.errors import ExpressionError, FactoryError, PredictionError, WorldError
from factory.expr.syntax import Node, Query, parse, parse_rows
from factory.expr.typecheck import BOOL, Schema, Scope, Type, check
from factory.predict.derived import spec_schema
from factory.predict.interpreter import Interpreter
from factory.predict.overlay import Ref, Rows
from factory.seed.loader import load_seed
from factory.spec.model import InvariantSpec, Spec
from factory.world.layout import World


class InvariantError(FactoryError):
    """An invariant cannot be evaluated from the spec (no row selector source, or one that no
    longer parses or type-checks against the spec's entities)."""


def _schema(spec: Spec) -> Schema:
    """The entities as the type checker sees them (as `effects._Step` builds its scope)."""
    return spec_schema(spec)


def compiled(spec: Spec, invariant: InvariantSpec) -> tuple[Query, Node]:
    """The invariant's row selector and check, parsed and type-checked against the spec."""
    if invariant.for_each is None:
        raise InvariantError(f"invariant {invariant.name}: the spec keeps no row selector source "
                             "(a spec.json older than `InvariantSpec.for_each`); rebuild the world")
    schema = _schema(spec)
    try:
        selector = parse_rows(invariant.for_each)
        check(invariant.for_each, selector, Scope(schema, {}))
        condition = parse(invariant.source)
        check(invariant.source, condition, Scope(schema, {selector.var: Type("ref", entity=selector.entity)}), BOOL)
    except ExpressionError as exc:
        raise InvariantError(f"invariant {invariant.name}: {exc}") from exc
    if selector.entity != invariant.entity:
        raise InvariantError(f"invariant {invariant.name}: its row selector picks {selector.entity} rows, "
                             f"but the spec says it is about {invariant.entity}")
    return selector, condition


def invariant_violations(spec: Spec, db: Path, invariant: InvariantSpec) -> list[int]:
    """Ids of the rows of `db` that break `invariant`, in id order (empty when the data is consistent)."""
    selector, condition = compiled(spec, invariant)
    today = dt.date.fromisoformat(spec.today)  # the app's frozen clock (`Clock.today`)
    rows = Rows(spec, Path(db))
    try:
        picker = Interpreter(rows, {}, today, invariant.for_each or "")
        found: list[int] = []
        try:
            table = rows.table(selector.entity)
        except PredictionError as exc:  # the table is missing or unreadable: the data is broken
            raise InvariantError(f"invariant {invariant.name}: {exc}") from exc
        for row_id in sorted(table):
            row = table[row_id]
            try:
                if selector.where is not None and picker.sql(selector.where, selector.var, row) is not True:
                    continue
                env = {selector.var: Ref(selector.entity, row_id)}
                holds = Interpreter(rows, env, today, invariant.source).value(condition)
            except PredictionError:
                holds = False  # not computable for this row: see the module docstring
            if not holds:
                found.append(row_id)
        return found
    finally:
        rows.close()


def with_row_selectors(spec: Spec, world: Path) -> list[InvariantSpec]:
    """The spec's invariants, with the row selector taken from the world's `seed.yaml` when the spec
    predates `InvariantSpec.for_each`; the seed must be the one the spec was built from (same sha256)."""
    if all(inv.for_each is not None for inv in spec.invariants):
        return list(spec.invariants)
    path = World(world).seed_file
    if not path.is_file():
        raise WorldError(f"{path} is missing, and the spec keeps no row selector of its invariants; rebuild the world")
    loaded = load_seed(path)
    if loaded.sha256 != spec.seed_sha256:
        raise WorldError(f"{path} is not the seed spec.json was built from (sha256 {loaded.sha256[:12]} ≠ "
                         f"{spec.seed_sha256[:12]}); rebuild the world")
    sources = {inv.name: inv.for_each for inv in loaded.seed.invariants}
    return [inv if inv.for_each is not None else inv.model_copy(update={"for_each": sources.get(inv.name)})
            for inv in spec.invariants]


def all_violations(spec: Spec, world: Path, db: Path) -> dict[str, list[int]]:
    """Every invariant's violating row ids over `db` (the verifier's evidence for `state:invariant:*`)."""
    return {inv.name: invariant_violations(spec, db, inv) for inv in with_row_selectors(spec, world)}


__all__ = ["InvariantError", "all_violations", "compiled", "invariant_violations", "with_row_selectors"]
