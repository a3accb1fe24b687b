"""Load a world's generated app into this process, once, and check it has the episode seam.

The generated backend is the Python package `backend` under the world's `app/` folder, so one
process serves one world. Its `backend.deps` must read the request's engine from the ASGI scope
(`ENGINE_SCOPE_KEY`) and make unpooled engines; a world built before episodes were served lacks
both and is refused with the command that rebuilds it.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from starlette.types import ASGIApp

from episodes.dbfiles import copy_db
from episodes.errors import WorldNotServable
from episodes.world import ServedWorld


@dataclass(frozen=True)
class LoadedApp:
    asgi: ASGIApp
    make_engine: Callable[[Path], Engine]
    sign: Callable[[int], str]
    session_cookie: str


def load_app(world: ServedWorld, park: Path) -> LoadedApp:
    """The world's app, its own engine on `park` (a private copy of the seed no episode uses)."""
    app_dir = str(world.app_dir)
    if app_dir not in sys.path:
        sys.path.insert(0, app_dir)
    loaded = sys.modules.get("backend")
    if loaded is not None and Path(str(getattr(loaded, "__file__", ""))).resolve().parent.parent != world.app_dir:
        raise WorldNotServable(f"this process already serves another world ({loaded.__file__}); one world per process")
    deps: Any = importlib.import_module("backend.deps")
    application: Any = importlib.import_module("backend.app")
    if not hasattr(deps, "ENGINE_SCOPE_KEY") or "pooled" not in inspect.signature(deps.make_engine).parameters:
        raise WorldNotServable(f"{world.root} was built before episodes could be served (its backend/deps.py has no "
                               f"per-episode engine); rebuild it: make world SEED={world.root / 'seed.yaml'}")
    copy_db(world.seed_db, park)

    def make_engine(db: Path) -> Engine:
        engine: Engine = deps.make_engine(db, wal=True, pooled=False)
        # An episode's database is thrown away at reset or close: a commit need not wait for the
        # disk (no fsync), which is most of a write's time; a crash loses only a disposable copy.
        event.listen(engine, "connect", _no_fsync)
        return engine

    return LoadedApp(asgi=application.create_app(park), make_engine=make_engine, sign=deps.sign,
                     session_cookie=str(deps.SESSION_COOKIE))


def _no_fsync(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous=OFF")
    cursor.close()
