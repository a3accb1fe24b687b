"""The database after a prediction, as a `UserView` held in memory: what a task that acts and then
reports reads its answer from (reward-gen's sandbox may write no file, so the copy is `:memory:`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from factory.errors import PredictionError
from factory.predict.overlay import Prediction
from factory.predict.rows import UserView, connect_ro
from factory.spec.model import Spec


def view_after(spec: Spec, db: Path, prediction: Prediction) -> UserView:
    """`db` with the predicted changes applied, in memory; PredictionError when they do not apply."""
    source = connect_ro(db)
    memory = sqlite3.connect(":memory:")
    try:
        source.backup(memory)
    finally:
        source.close()
    try:
        for (table, row_id), columns in prediction.updates.items():
            sets = ", ".join(f'"{c}" = ?' for c in columns)
            memory.execute(f'UPDATE "{table}" SET {sets} WHERE id = ?', [*columns.values(), row_id])
        for table, values in prediction.inserts:
            names = ", ".join(f'"{c}"' for c in values)
            memory.execute(f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" for _ in values)})',
                           list(values.values()))
        for table, row_id in prediction.deletes:
            memory.execute(f'DELETE FROM "{table}" WHERE id = ?', [row_id])
    except sqlite3.DatabaseError as exc:
        memory.close()
        raise PredictionError(f"the predicted changes do not apply to {db.name}: {exc}") from exc
    memory.row_factory = sqlite3.Row
    return UserView(spec, memory)
