"""What every export shares: the world and its task records read once, each task's initial
database, deterministic file writing (sorted JSON, no timestamps, a folder replaced whole) and the
pinned packages the generated app runs on."""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from pydantic import ValidationError

from episodes.dbfiles import apply_patch
from factory.bundle.build import tree
from factory.bundle.manifest import seed_license
from factory.bundle.texts import pinned_requirements
from factory.export.errors import ExportError
from factory.spec.model import Spec
from factory.tasks.model import TaskRecord
from factory.world.layout import BACKEND, FRONTEND, World

# The packages the generated backend imports (FastAPI's Starlette and AnyIO pinned as where its gates ran).
APP_PACKAGES = ("anyio", "fastapi", "pydantic", "sqlalchemy", "sqlmodel", "starlette", "uvicorn")
DIST = f"{FRONTEND}/dist"
MANIFEST = "export.json"


@dataclass(frozen=True)
class Source:
    """A built world with its task corpus, as every exporter reads it."""

    world: World
    records: list[TaskRecord]
    license: str | None

    @property
    def spec(self) -> Spec:
        return self.world.spec

    @property
    def name(self) -> str:
        return self.world.manifest.world


@dataclass
class Exported:
    """What an export wrote: where, how many files and bytes, how many tasks, and what to know about it."""

    format: str
    root: Path
    files: int
    bytes: int
    tasks: int
    notes: list[str] = field(default_factory=list)


def load_source(path: str | Path) -> Source:
    """The world at `path` with its records, each validated against the task model; ExportError naming what is missing."""
    world = World(Path(path))
    if not world.spec_file.is_file() or not world.manifest_file.is_file():
        raise ExportError(f"{path}: not a built world (no spec.json or manifest.json); build one with make world SEED=...")
    if not world.tasks_file.is_file():
        raise ExportError(f"{path}: no {world.relative(world.tasks_file)}; an export needs a task corpus "
                          f"(make tasks WORLD={path})")
    records: list[TaskRecord] = []
    for number, line in enumerate(world.tasks_file.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(TaskRecord.model_validate(json.loads(line)))
        except (ValueError, ValidationError) as exc:
            raise ExportError(f"{world.tasks_file}:{number}: not a task record ({exc})") from exc
    if not records:
        raise ExportError(f"{world.tasks_file}: no tasks; an export is of a world with a task corpus")
    return Source(world, sorted(records, key=lambda r: r.id), seed_license(world))


def app_files(world: World, prefix: str = "") -> dict[str, bytes]:
    """The generated backend and the built frontend, under `prefix` (no caches)."""
    if not (world.root / DIST / "index.html").is_file():
        raise ExportError(f"{world.root}: {DIST}/index.html is missing; rebuild the world's frontend (make world SEED=...)")
    return {**tree(world.root / BACKEND, prefix + "backend"), **tree(world.root / DIST, prefix + "frontend/dist")}


def app_pins() -> list[str]:
    """`name==version` for every package the generated app imports, sorted."""
    return [pin for pin in pinned_requirements() if pin.split("==")[0] in APP_PACKAGES]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def json_bytes(value: Any) -> bytes:
    """JSON as every export writes it: sorted keys, two-space indent, UTF-8, a final newline."""
    return (json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()


def jsonl_bytes(rows: Iterable[Mapping[str, Any]]) -> bytes:
    return "".join(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n" for row in rows).encode()


class InitialStates:
    """Each task's initial database: the seed itself, or the seed with the task's setup patch
    replayed (made once per distinct patch, in a scratch folder removed on close)."""

    def __init__(self, world: World, scratch: Path) -> None:
        self.world = world
        self.scratch = scratch
        self._made: dict[str, Path] = {}

    def path(self, record: TaskRecord) -> Path:
        patch = record.setup.patch
        if not patch.strip():
            return self.world.seed_db
        key = sha256(patch.encode())
        if key not in self._made:
            self._made[key] = apply_patch(self.world.seed_db, patch, self.scratch / f"{key[:16]}.db")
        return self._made[key]


@contextmanager
def initial_states(world: World) -> Iterator[InitialStates]:
    with tempfile.TemporaryDirectory(prefix="export-initial-") as scratch:
        yield InitialStates(world, Path(scratch))


def write_tree(target: Path, files: Mapping[str, bytes], executable: Iterable[str] = ()) -> tuple[int, int]:
    """Replace the folder `target` by exactly `files` (relative path → bytes); the count of files and bytes.

    Written beside it first and swapped in, so an interrupted export leaves the previous one whole. Only
    an earlier export of the same format is replaced: any other folder there is refused, never removed."""
    target = Path(target)
    _replaceable(target, json.loads(files[MANIFEST])["format"] if MANIFEST in files else None)
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    run = set(executable)
    try:
        for rel in sorted(files):
            path = partial / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(files[rel])
            path.chmod(0o755 if rel in run else 0o644)
    except OSError as exc:
        shutil.rmtree(partial, ignore_errors=True)
        raise ExportError(f"cannot write {target}: {exc}") from exc
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    return len(files), sum(len(data) for data in files.values())


def _replaceable(target: Path, fmt: str | None) -> None:
    if not target.exists():
        return
    try:
        earlier = json.loads((target / MANIFEST).read_text()).get("format")
    except (OSError, ValueError, AttributeError):
        earlier = None
    if earlier is None or earlier != fmt:
        what = f"an export of another format ({earlier})" if earlier else "something that is not an export"
        raise ExportError(f"{target} holds {what}; it is left as it is: choose another --out")


def table_of(spec: Spec, entity: str) -> str:
    """The SQLite table an entity lives in."""
    return next(e.table for e in spec.entities if e.name == entity)


FILES = Path(__file__).resolve().parent / "files"
_TEMPLATES = jinja2.Environment(loader=jinja2.FileSystemLoader(FILES), undefined=jinja2.StrictUndefined,
                                keep_trailing_newline=True, autoescape=False)


def render(name: str, **values: Any) -> bytes:
    """A template of `factory/export/files/` rendered strictly (an unknown name is an error)."""
    return _TEMPLATES.get_template(name).render(**values).encode()


def asset(name: str) -> bytes:
    """A file of `factory/export/files/` as it is."""
    return (FILES / name).read_bytes()
