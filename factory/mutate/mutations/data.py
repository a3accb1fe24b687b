"""Faults in the seed database: rows that break a constraint the spec declares (enum, bounds, length, reference)."""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing
from typing import Any

from factory.mutate.mutations.base import Applied, Mutation, MutationError, Target, WorldView
from factory.world.layout import SEED_DB

ROWS_HIT = 3  # a few rows, so a check that samples one row may miss it but a full scan will not
_NUMERIC = ("int", "money", "number", "float", "decimal")


def _violations(field: Any) -> list[str]:
    """Which constraints of a field a corrupt row can break."""
    found = []
    if field.type == "enum" and field.values:
        found.append("outside enum")
    if field.type in _NUMERIC and field.min is not None:
        found.append("below minimum")
    if field.type in _NUMERIC and field.max is not None:
        found.append("above maximum")
    if field.type == "reference" and field.ref:
        found.append("dangling reference")
    if field.max_length:
        found.append("too long")
    return found


def _counts(view: WorldView) -> dict[str, int]:
    with closing(sqlite3.connect(view.root / SEED_DB)) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}


def _targets(view: WorldView) -> list[Target]:
    if not (view.root / SEED_DB).is_file():
        return []
    counts = _counts(view)
    return [Target(f"{e.name}.{f.name} rows ({v})", (e, f, v)) for e in view.spec.entities
            if not e.builtin and counts.get(e.table, 0) > 0 for f in e.fields for v in _violations(f)]


def _bad_value(conn: sqlite3.Connection, view: WorldView, field: Any, violation: str) -> Any:
    """A value that breaks `violation` for `field`, in storage units (money in cents)."""
    scale = 100 if field.type == "money" else 1  # spec bounds of money are in major units
    if violation == "outside enum":
        return next(v for v in ("corrupt", "corrupt_value", "__corrupt__") if v not in field.values)
    if violation == "below minimum":
        return round(field.min * scale) - scale
    if violation == "above maximum":
        return round(field.max * scale) + scale
    if violation == "dangling reference":
        table = view.entity(field.ref).table
        return int(conn.execute(f'SELECT COALESCE(MAX(id), 0) FROM "{table}"').fetchone()[0]) + 1000
    return "X" * (int(field.max_length) + 1)


def _corrupt_seed_rows(view: WorldView, target: Target, rng: random.Random) -> Applied:
    entity, field, violation = target.ref
    view.ensure_clean(SEED_DB)
    with closing(sqlite3.connect(view.root / SEED_DB)) as conn:
        ids = [r[0] for r in conn.execute(f'SELECT id FROM "{entity.table}" ORDER BY id')]
        if not ids:
            raise MutationError(f"{SEED_DB}: table {entity.table} is empty; nothing to corrupt")
        hit = sorted(rng.sample(ids, min(ROWS_HIT, len(ids))))
        value = _bad_value(conn, view, field, violation)
        marks = ", ".join("?" for _ in hit)
        # foreign keys are off on a plain sqlite3 connection, which is how a dangling reference gets in
        changed = conn.execute(f'UPDATE "{entity.table}" SET "{field.column}" = ? WHERE id IN ({marks})',
                               [value, *hit]).rowcount
        conn.commit()
        stored = conn.execute(f'SELECT COUNT(*) FROM "{entity.table}" WHERE "{field.column}" = ? AND id IN ({marks})',
                              [value, *hit]).fetchone()[0]
    if changed != len(hit) or stored != len(hit):
        raise MutationError(f"{SEED_DB}: corrupting {entity.table}.{field.column} changed {changed} rows, "
                            f"expected {len(hit)}")
    view.written.append(SEED_DB)
    shown = value if len(str(value)) <= 24 else f"{str(value)[:8]}…({len(str(value))} chars)"
    return Applied(f"{entity.table}.{field.column} = {shown!r} on rows {hit} ({violation}) in {SEED_DB}", (SEED_DB,))


MUTATIONS = (Mutation("corrupt_seed_rows", "db", _targets, _corrupt_seed_rows),)
