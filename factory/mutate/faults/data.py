"""Faults in the world's data (data/seed.db) and in the app's own invariant checker.

Every row stays inside its declared constraints (unlike the classic suite's corrupt rows), so only a
check that knows what the data should be finds them:

    row_deleted           one row of an entity is missing
    total_off_by_cent     one stored number (a balance, a total, a count) is one unit (a cent) off
    reference_repointed   one row references another user's row (a transaction on someone else's account)
    invariant_masked      one invariant's check in app/backend/invariants.py is always satisfied, and the
                          data breaks that invariant: only a check independent of the app's finds it

Rows are chosen with the injection's seeded generator, so the same seed hits the same rows.
"""

from __future__ import annotations

import ast
import datetime as dt
import json
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from episodes.dbfiles import copy_db
from factory.mutate.faults.code import INVARIANTS_PY, NUMERIC, owned
from factory.mutate.mutations.base import Applied, Mutation, MutationError, Target, WorldView, splice
from factory.mutate.mutations.pysource import char_span, compiles, parse_module
from factory.world.layout import SEED_DB, World

ROWS_TRIED = 3  # rows an invariant fault breaks: a few, so a check that samples one row may miss them


@contextmanager
def _reading(view: WorldView) -> Iterator[sqlite3.Connection]:
    """The seed database opened read-only (listing targets must not touch the world)."""
    with closing(sqlite3.connect(f"file:{view.root / SEED_DB}?mode=ro", uri=True)) as conn:
        yield conn


@contextmanager
def _writing(view: WorldView, path: Path | None = None) -> Iterator[sqlite3.Connection]:
    """The seed database (or a copy of it) opened for one fault's writes, committed on success."""
    if path is None:
        view.ensure_clean(SEED_DB)
        path = view.root / SEED_DB
    with closing(sqlite3.connect(path)) as conn:
        yield conn
        conn.commit()


def _counts(view: WorldView) -> dict[str, int]:
    if not (view.root / SEED_DB).is_file():
        return {}
    with _reading(view) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}


def _stored(view: WorldView) -> list[Any]:
    counts = _counts(view)
    return [e for e in view.spec.entities if not e.builtin and counts.get(e.table, 0) > 0]


def _owner_columns(entity: Any) -> list[str]:
    return [f.column for f in entity.fields if f.name in entity.owner_fields]


def _done(view: WorldView) -> None:
    view.written.append(SEED_DB)


# ---------------------------------------------------------------- row_deleted


def _row_targets(view: WorldView) -> list[Target]:
    return [Target(f"one {e.name} row", e) for e in _stored(view)]


def _row_deleted(view: WorldView, target: Target, rng: random.Random) -> Applied:
    entity = target.ref
    with _writing(view) as conn:
        ids = [r[0] for r in conn.execute(f'SELECT id FROM "{entity.table}" ORDER BY id')]
        if not ids:
            raise MutationError(f"{SEED_DB}: table {entity.table} is empty")
        victim = rng.choice(ids)
        if conn.execute(f'DELETE FROM "{entity.table}" WHERE id = ?', (victim,)).rowcount != 1:
            raise MutationError(f"{SEED_DB}: deleting {entity.table} #{victim} deleted nothing")
    _done(view)
    return Applied(f"{entity.table} #{victim} is missing from {SEED_DB}", (SEED_DB,))


# ---------------------------------------------------------------- total_off_by_cent


def _number_fields(entity: Any) -> list[Any]:
    return [f for f in entity.fields if f.type in NUMERIC and f.name not in entity.owner_fields]


def _total_targets(view: WorldView) -> list[Target]:
    stored = _stored(view)
    if not stored:
        return []
    found = []
    with _reading(view) as conn:
        for entity in stored:
            for field in _number_fields(entity):
                # only columns that hold a value somewhere: a fault on NULLs would change nothing
                if conn.execute(f'SELECT 1 FROM "{entity.table}" WHERE "{field.column}" IS NOT NULL LIMIT 1').fetchone():
                    unit = "a cent" if field.type == "money" else "one"
                    found.append(Target(f"{entity.name}.{field.name} off by {unit}", (entity, field)))
    return found


def _total_off(view: WorldView, target: Target, rng: random.Random) -> Applied:
    entity, field = target.ref
    with _writing(view) as conn:
        rows = [r[0] for r in conn.execute(
            f'SELECT id FROM "{entity.table}" WHERE "{field.column}" IS NOT NULL ORDER BY id')]
        if not rows:
            raise MutationError(f"{SEED_DB}: no {entity.table} row has a {field.column}")
        victim = rng.choice(rows)
        # one unit up; where a bound forbids it (a maximum reached), one unit down
        (value,) = conn.execute(f'SELECT "{field.column}" FROM "{entity.table}" WHERE id = ?', (victim,)).fetchone()
        scale = 100 if field.type == "money" else 1
        step = -1 if field.max is not None and value + 1 > field.max * scale else 1
        conn.execute(f'UPDATE "{entity.table}" SET "{field.column}" = ? WHERE id = ?', (value + step, victim))
    _done(view)
    shown = "cent" if field.type == "money" else "unit"
    return Applied(f"{entity.table} #{victim}: {field.column} {value} → {value + step} (one {shown} "
                   f"{'more' if step > 0 else 'less'}) in {SEED_DB}", (SEED_DB,))


# ---------------------------------------------------------------- reference_repointed


def _repoint_targets(view: WorldView) -> list[Target]:
    stored = [e for e in _stored(view) if owned(e)]
    if not stored:
        return []
    found = []
    with _reading(view) as conn:
        for entity in stored:
            for field in entity.fields:
                if field.type != "reference" or field.name in entity.owner_fields or not field.ref:
                    continue
                target_entity = view.entity(field.ref)
                # a reference nobody set cannot be re-pointed
                if owned(target_entity) and conn.execute(
                        f'SELECT 1 FROM "{entity.table}" WHERE "{field.column}" IS NOT NULL LIMIT 1').fetchone():
                    found.append(Target(f"{entity.name}.{field.name} → another user's {field.ref}",
                                        (entity, field, target_entity)))
    return found


def _repointed(view: WorldView, target: Target, rng: random.Random) -> Applied:
    entity, field, target_entity = target.ref
    owner, target_owner = _owner_columns(entity)[0], _owner_columns(target_entity)[0]
    with _writing(view) as conn:
        rows = conn.execute(f'SELECT id, "{owner}", "{field.column}" FROM "{entity.table}" '
                            f'WHERE "{field.column}" IS NOT NULL ORDER BY id').fetchall()
        rng.shuffle(rows)
        for row_id, row_owner, current in rows:
            others = [r[0] for r in conn.execute(
                f'SELECT id FROM "{target_entity.table}" WHERE "{target_owner}" != ? AND id != ? ORDER BY id',
                (row_owner, current))]
            if others:
                new = rng.choice(others)
                conn.execute(f'UPDATE "{entity.table}" SET "{field.column}" = ? WHERE id = ?', (new, row_id))
                break
        else:
            raise MutationError(f"{SEED_DB}: no {entity.table} row can point at another user's {target_entity.table}")
    _done(view)
    return Applied(f"{entity.table} #{row_id} (user {row_owner}) now references {target_entity.table} #{new}, "
                   f"another user's, instead of #{current} ({SEED_DB})", (SEED_DB,))


# ---------------------------------------------------------------- invariant_masked


def _invariant_targets(view: WorldView) -> list[Target]:
    if not (view.root / INVARIANTS_PY).is_file() or not (view.root / SEED_DB).is_file():
        return []
    text = (view.root / INVARIANTS_PY).read_text()
    return [Target(f"invariant {i.name}", i) for i in view.spec.invariants if _violation_test(text, i.name) is not None]


def _violation_test(text: str, name: str) -> ast.expr | None:
    """The violation condition of one invariant: the `if` of `violations[<name>] = [row_id(x) for x in ... if <it>]`."""
    for node in ast.walk(parse_module(text, f"{INVARIANTS_PY} ({name})")):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript)
                and isinstance(node.targets[0].slice, ast.Constant) and node.targets[0].slice.value == name
                and isinstance(node.value, ast.ListComp) and len(node.value.generators) == 1
                and len(node.value.generators[0].ifs) == 1):
            return node.value.generators[0].ifs[0]
    return None


# Runs the app's own checker (`backend.invariants.main`, as `python -m backend.invariants --db X` does) on
# several databases in one interpreter: importing the app costs more than checking a small database.
_CHECKER = """
import contextlib, io, json, sys
from backend import invariants
found = []
for db in sys.argv[1:]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        invariants.main(["--db", db])
    found.append(json.loads(out.getvalue()))
json.dump(found, sys.stdout)
"""


def check_invariants(view: WorldView, *dbs: Path) -> list[dict[str, list[int]]]:
    """The app's own invariant checker (as the world was built) run on each of `dbs`: name → violating ids."""
    result = subprocess.run([sys.executable, "-c", _CHECKER, *map(str, dbs)], cwd=World(view.root).app_dir,
                            capture_output=True, text=True, timeout=600, check=False)
    if result.returncode != 0:
        tail = " ".join(result.stderr.strip().splitlines()[-2:])
        raise MutationError(f"{view.root}: the app's invariant checker failed: {tail}")
    found: list[dict[str, list[int]]] = json.loads(result.stdout)
    return found


def _mentioned(view: WorldView, invariant: Any) -> list[Any]:
    """Fields of the checked row the invariant reads (`b.check_out`, `b.listing`), in order of first use."""
    entity = view.entity(invariant.entity)
    # the seed's own name of the row (`l`), which the generated code may have renamed (`l_`)
    var = (invariant.for_each or "").split(" in ", 1)[0].strip() or invariant.row_var
    names = dict.fromkeys(re.findall(rf"(?<![\w.]){re.escape(var)}\.(\w+)", invariant.source))
    return [entity.field_named(n) for n in names if n in {f.name for f in entity.fields}]


def _changes(conn: sqlite3.Connection, view: WorldView, entity: Any, field: Any, value: Any,
             owner: Any) -> list[Any]:
    """Candidate replacement values for one stored value, the likeliest to break an invariant first."""
    if value is None:
        return []
    if field.type in NUMERIC:
        return [value + 1, value + 1000, value - 1]
    if field.type in ("date", "datetime"):
        text = str(value)
        day = dt.date.fromisoformat(text[:10])
        return [(day + dt.timedelta(days=d)).isoformat() + text[10:] for d in (-3650, 3650, 1, -1)]
    if field.type == "bool":
        return [0 if value else 1]
    if field.type == "enum":
        return [v for v in field.values or [] if v != value]
    if field.type == "reference" and field.ref:
        ref = view.entity(field.ref)
        columns = _owner_columns(ref) if not ref.builtin else ["id"]
        query = f'SELECT id FROM "{ref.table}" WHERE id != ? ' + \
            (f'AND "{columns[0]}" != ? ' if columns and owner is not None else "") + "ORDER BY id LIMIT 3"
        args = (value, owner) if columns and owner is not None else (value,)
        return [r[0] for r in conn.execute(query, args)]
    return [f"{value}x"]


def _apply_change(conn: sqlite3.Connection, view: WorldView, entity: Any, field: Any, ids: list[int],
                  attempt: int) -> dict[int, str]:
    """Give each row of `ids` the `attempt`-th candidate value of `field`; row id → what changed."""
    owners = _owner_columns(entity)
    changed: dict[int, str] = {}
    for row_id in ids:
        select = f'SELECT "{field.column}", ' + (f'"{owners[0]}"' if owners else "NULL")
        value, owner = conn.execute(f'{select} FROM "{entity.table}" WHERE id = ?', (row_id,)).fetchone()
        options = _changes(conn, view, entity, field, value, owner)
        if attempt < len(options):
            conn.execute(f'UPDATE "{entity.table}" SET "{field.column}" = ? WHERE id = ?', (options[attempt], row_id))
            changed[row_id] = f"#{row_id} {value!r} → {options[attempt]!r}"
    conn.commit()
    return changed


def _break_invariant(view: WorldView, invariant: Any, rng: random.Random, work: Path) -> tuple[Path, str]:
    """A copy of the seed database (in `work`) with a few rows changed so the app's checker reports
    `invariant`, and what was changed.

    Which rows the invariant reads is the app's business (its `for_each` query), so a candidate change
    (a field the check reads, a value for it) is first made on every row, to learn which rows it breaks;
    the first that breaks some is then made on a few of those only. Candidates go in rounds (the first
    value of every field, then the second, ...), each round checked in one run of the checker.
    """
    entity = view.entity(invariant.entity)
    seed = view.root / SEED_DB
    with closing(sqlite3.connect(seed)) as conn:
        ids = [r[0] for r in conn.execute(f'SELECT id FROM "{entity.table}" ORDER BY id')]
    fields = _mentioned(view, invariant)
    for attempt in range(4):  # the n-th candidate value of each field
        candidates: list[tuple[Any, Path, dict[int, str]]] = []
        for field in fields:
            db = copy_db(seed, work / f"candidate-{attempt}-{len(candidates)}.db")
            with closing(sqlite3.connect(db)) as conn:
                changed = _apply_change(conn, view, entity, field, ids, attempt)
            if changed:
                candidates.append((field, db, changed))
        reports = check_invariants(view, *(db for _, db, _ in candidates)) if candidates else []
        for (field, _, changed), report in zip(candidates, reports, strict=True):
            broken = sorted(set(report.get(invariant.name, [])) & set(changed))
            if not broken:
                continue
            hit = sorted(rng.sample(broken, min(ROWS_TRIED, len(broken))))
            db = copy_db(seed, work / "fault.db")
            with closing(sqlite3.connect(db)) as conn:
                few = _apply_change(conn, view, entity, field, hit, attempt)
            if check_invariants(view, db)[0].get(invariant.name):
                return db, f"{entity.table}.{field.column} on " + ", ".join(few[i] for i in hit)
    raise MutationError(f"{SEED_DB}: no change of {', '.join(f.column for f in fields)} "
                        f"breaks invariant {invariant.name}")


def _masked(view: WorldView, target: Target, rng: random.Random) -> Applied:
    invariant = target.ref
    view.ensure_clean(SEED_DB)
    text = view.read(INVARIANTS_PY)
    where = f"{INVARIANTS_PY} ({invariant.name})"
    test = _violation_test(text, invariant.name)
    if test is None:
        raise MutationError(f"{where}: no `violations[{invariant.name!r}] = [... if <violation>]`; the generated code "
                            "changed shape")
    with tempfile.TemporaryDirectory(prefix="invariant-") as tmp:
        db, what = _break_invariant(view, invariant, rng, Path(tmp))
        shutil.copyfile(db, view.root / SEED_DB)
    _done(view)
    # `False and ...` short-circuits: the query still runs, no row can be reported any more
    start, end = char_span(text, test)
    masked = splice(text, start, end, f"False and ({text[start:end]})")
    compiles(INVARIANTS_PY, masked)
    view.write(INVARIANTS_PY, masked)
    return Applied(f"invariant {invariant.name} is broken by {what} ({SEED_DB}), and the app's checker can no longer "
                   f"see it: its violation condition reads `False and ...` ({INVARIANTS_PY})", (SEED_DB, INVARIANTS_PY))


MUTATIONS = (
    Mutation("row_deleted", "db", _row_targets, _row_deleted, "one row of an entity is missing from the data"),
    Mutation("total_off_by_cent", "db", _total_targets, _total_off,
             "one stored amount or count is one unit (a cent) off"),
    Mutation("reference_repointed", "db", _repoint_targets, _repointed,
             "one row references another user's row"),
    Mutation("invariant_masked", "db", _invariant_targets, _masked,
             "the app's check of one invariant is always satisfied while the data breaks it"),
)
