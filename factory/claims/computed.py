"""Computed-field claims: the API shows each computed field's value on rows of the seed database, and
shows the new value right after a workflow changes what it is computed from (never a stale one).
Currency claims: a row whose label writes an amount in a currency of its own (`currency`, or the
row's `currency_field`) is labelled with that currency's symbol, one row per currency.

Every expected value is the interpreter's (`factory.predict.derived`): the seed's expression worked
out over the seed database, or over the rows a witness call is predicted to leave behind.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

from factory.claims.context import ClaimContext
from factory.claims.model import Claim, HttpStep, StatusIs
from factory.errors import PredictionError
from factory.predict.effects import predict
from factory.predict.interpreter import Interpreter, computed_value
from factory.predict.overlay import Rows
from factory.runtime.step import Step
from factory.spec.labels import currency_of
from factory.spec.model import EntitySpec
from factory.spec.roles import sees

ROWS_PER_ENTITY = 3


def computed_claims(ctx: ClaimContext) -> list[Claim]:
    """Per entity with computed fields: a few rows' values as read, and one row's value after a write."""
    out: list[Claim] = []
    for e in ctx.spec.entities:
        if not e.computed or "read" not in e.operations:
            continue
        picked = _rows(ctx, e)
        if not picked:
            ctx.unwitnessed.append(f"data:computed:{e.name}: no user sees a {e.label.lower()} to read")
            continue
        rows = Rows(ctx.spec, ctx.oracle.db)
        try:
            before = {rid: _values(ctx, rows, e, rid) for rid, _ in picked}
        finally:
            rows.close()
        for rid, user in picked:
            shown = ", ".join(f"{k} {v!r}" for k, v in before[rid].items())
            out.append(ctx.http(f"data:computed:{e.name}:{rid}", "computed_value", f"entities[{e.name}].computed",
                                f"{e.label} {rid} shows its computed fields as their expressions give them ({shown})",
                                [HttpStep(method="GET", path=f"/api/{e.path}/{rid}", user=ctx.usernames[user])],
                                StatusIs(status=200, json_subset=before[rid])))
        after = _after_write(ctx, e, picked, before)
        if after is not None:
            out.append(after)
    return out


def currency_claims(ctx: ClaimContext) -> list[Claim]:
    """Per entity whose label writes an amount in a currency: one row per currency, labelled as the
    interpreter labels it (`€12.50`, not `$12.50`)."""
    out: list[Claim] = []
    for e in ctx.spec.entities:
        shown = [f for f in e.fields if f.type == "money" and (f.currency or f.currency_field) and f.name in e.display_fields]
        if not shown or "read" not in e.operations:
            continue
        rows = Rows(ctx.spec, ctx.oracle.db)
        try:
            interpreter = Interpreter(rows, {}, ctx.oracle.today, "")
            seen: set[str] = set()
            for user in ctx.spec.users:
                for rid in ctx.rows.visible_ids(e.name, user.id, limit=200):
                    row = rows.get(e.name, rid)
                    assert row is not None
                    currency = currency_of(shown[0], row) or "USD"
                    if currency in seen:
                        continue
                    seen.add(currency)
                    label = interpreter.label(e.name, row)
                    out.append(ctx.http(f"data:currency:{e.name}:{rid}", "currency_label", f"entities[{e.name}].fields",
                                        f"{e.label} {rid} is labelled {label!r}, its amount in {currency}",
                                        [HttpStep(method="GET", path=f"/api/{e.path}/{rid}", user=ctx.usernames[user.id])],
                                        StatusIs(status=200, json_subset={"label": label})))
        finally:
            rows.close()
    return out


def _rows(ctx: ClaimContext, e: EntitySpec) -> list[tuple[int, int]]:
    """A few (row, user who sees it) pairs, spread over the users (personas first)."""
    picked: list[tuple[int, int]] = []
    for user in ctx.spec.users:
        for rid in ctx.rows.visible_ids(e.name, user.id, limit=50):
            if all(rid != r for r, _ in picked):
                picked.append((rid, user.id))
                break
        if len(picked) == ROWS_PER_ENTITY:
            break
    return picked


def _values(ctx: ClaimContext, rows: Rows, e: EntitySpec, rid: int) -> dict[str, Any]:
    """The computed fields of one row as the API's JSON writes them."""
    row = rows.get(e.name, rid)
    assert row is not None
    interpreter = Interpreter(rows, {}, ctx.oracle.today, "")
    return {f.name: _json(computed_value(interpreter, e.name, row, f.name)) for f in e.computed}


def _json(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value


def _observe(ctx: ClaimContext, e: EntitySpec, picked: list[tuple[int, int]], rows: Rows,
             into: dict[int, dict[str, Any]], owners: dict[int, list[int]]) -> None:
    """The computed values, after a predicted call, of the rows of `e` it created and of the picked
    rows; with the users each row names in its owner fields (`owners`), who may read it."""
    created = [rid for entity, rid in rows.created if entity == e.name]
    for rid in created + [r for r, _ in picked]:
        row = rows.get(e.name, rid)
        if row is not None:
            into[rid] = _values(ctx, rows, e, rid)
            owners[rid] = [row[c] for o in e.owner_fields for c in [e.field_named(o).column]
                           if isinstance(row.get(c), int)]


def _created_viewer(ctx: ClaimContext, e: EntitySpec, caller: int, owners: list[int]) -> int | None:
    """Who reads a row the call created: the caller when they may (a public row, one they own),
    else the first user it names as an owner whose role sees it (a host seats a party; the
    table's order is the waiter's), else None."""
    if e.visibility == "public" or e.builtin or caller in owners:
        return caller if sees(ctx.spec, e, caller) else None
    return next((u for u in owners if sees(ctx.spec, e, u) and u in ctx.usernames), None)


def _after_write(ctx: ClaimContext, e: EntitySpec, picked: list[tuple[int, int]],
                 before: dict[int, dict[str, Any]]) -> Claim | None:
    """The first witnessed workflow call after which a row of `e` (one it creates, or a picked one)
    computes another value, as a claim that the API shows the new value at once."""
    for wf in ctx.spec.workflows:
        witness = ctx.witnesses.get(wf.name)
        if wf.system or witness is None or witness.user is None or witness.params is None or witness.plant:
            continue
        seen: dict[int, dict[str, Any]] = {}
        owners: dict[int, list[int]] = {}
        try:
            prediction = predict(ctx.spec, ctx.oracle.db, witness.user, [Step(wf.name, witness.params)],
                                 functools.partial(_observe, ctx, e, picked, into=seen, owners=owners))
        except PredictionError:
            continue
        if prediction.refusals:
            continue
        for rid, values in seen.items():
            if values == before.get(rid):
                continue
            viewer = next((u for r, u in picked if r == rid), witness.user)
            if rid not in before and rid not in ctx.rows.visible_ids(e.name, viewer, limit=10**6):
                found = _created_viewer(ctx, e, witness.user, owners.get(rid, []))
                if found is None:
                    continue  # no user of the world may read the new row
                viewer = found
            shown = ", ".join(f"{k} {v!r}" for k, v in values.items())
            return ctx.http(f"data:computed:{e.name}:after:{wf.name}", "computed_fresh", f"entities[{e.name}].computed",
                            f"right after {wf.label.lower()}, {e.label.lower()} {rid} shows its new computed values "
                            f"({shown}), never stale ones",
                            [HttpStep(method="POST", path=wf.path, user=ctx.usernames[witness.user], body=witness.params),
                             HttpStep(method="GET", path=f"/api/{e.path}/{rid}", user=ctx.usernames[viewer])],
                            StatusIs(status=200, json_subset=values), fresh=True)
    return None


__all__ = ["computed_claims", "currency_claims"]
