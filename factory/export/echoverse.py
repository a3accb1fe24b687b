"""`factory export echoverse WORLD --out ROOT`: a world as an environment of the Echoverse harness.

    ROOT/registry.json                  every environment exported into ROOT (this one replaced, others kept)
    ROOT/<env>/pyproject.toml uv.lock   `uv run python -m backend.app --host H --port P --db PATH --user U` finds FastAPI
    ROOT/<env>/backend/**               the generated app, as built
    ROOT/<env>/frontend/                package.json (+ lock): `npm install`, `npm run dev` serves src/ on $VITE_PORT
                                        and proxies /api to $VITE_API_PORT (vite.config.js); dist/ is the built app
    ROOT/<env>/<env>.db                 the seed database
    ROOT/<env>/tasks/test_tasks.jsonl   the test split, one `EchoverseTask` a line (train_tasks.jsonl: the train split)
    ROOT/<env>/tasks/dbs/<id>.db        the initial database of each task whose setup changes the seed
    ROOT/<env>/export.json README.md    what was exported and derived; how to launch it

What the records change against `tasks/tasks.jsonl`: `reference_state_change` is the sqldiff SQL
as text; every READ_WRITE has a `reference_answer` (the row its goal finds); every READ a
`verification_query` (`queries.py`); `required_entities` are `{table, id}`; `db_file` is the
task's own initial database.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from factory import __version__
from factory.export.common import (
    Exported,
    InitialStates,
    Source,
    app_files,
    asset,
    initial_states,
    json_bytes,
    jsonl_bytes,
    load_source,
    render,
    sha256,
    table_of,
    write_tree,
)
from factory.export.errors import ExportError
from factory.export.locks import pyproject_text
from factory.export.models import (
    Command,
    EchoverseEntity,
    EchoverseMetadata,
    EchoverseTask,
    ExportManifest,
    Registry,
    RegistryEntry,
)
from factory.export.queries import Derived, found_answer, read_query
from factory.predict.rows import UserView
from factory.tasks.model import TaskRecord
from factory.world.layout import FRONTEND

REGISTRY = "registry.json"
TEST_TASKS = "tasks/test_tasks.jsonl"
TRAIN_TASKS = "tasks/train_tasks.jsonl"
TASK_DBS = "tasks/dbs"


def _task(source: Source, record: TaskRecord, db_file: str, view: UserView, fallbacks: list[dict[str, str]],
          derived: dict[str, Counter[str]]) -> EchoverseTask:
    spec = source.spec
    answer: Derived | None = None
    answer_from: Literal["reward", "question", "grounding", "none"]
    query_from: Literal["reward", "question", "grounding"]
    if record.task_type == "read":
        answer = Derived(record.reference_answer or "", "question")
        answer_from = "reward"
    elif record.task_type == "read_write":
        answer = found_answer(view, record)
        answer_from = answer.how
    else:
        answer_from = "none"
    query = read_query(view, record) if record.task_type == "read" else Derived(record.verification_query, "question")
    query_from = query.how if record.task_type == "read" else "reward"
    for name, value, how in (("reference_answer", answer, answer_from), ("verification_query", query, query_from)):
        derived[name][how] += 1
        if value is not None and value.how == "grounding":
            fallbacks.append({"task": record.id, "field": name, "why": value.note})
    meta = record.metadata
    return EchoverseTask(
        id=record.id, goal=record.goal, task_type=record.task_type, difficulty=record.difficulty,
        estimated_actions=record.estimated_actions, category=record.category,
        reference_answer=answer.value if answer is not None else None,
        reference_state_change=record.reference_state_change.sql,
        verification_query=query.value,
        metadata=EchoverseMetadata(
            starting_url=meta.starting_url, acting_user_id=meta.acting_user_id, acting_user=meta.acting_user,
            required_entities=[EchoverseEntity(table=table_of(spec, r.entity), id=r.id) for r in meta.required_entities],
            grounding_evidence=[{"table": table_of(spec, e.entity), "id": e.id, "row": e.row} for e in meta.grounding_evidence],
            state_change_summary=record.reference_state_change.summary,
            verification_query_from=query_from,
            reference_answer_from=answer_from,
            split=record.split, category=record.category, capabilities=list(meta.capabilities), world=source.name),
        db_file=db_file)


def _tasks(source: Source, env: str, states: InitialStates, files: dict[str, bytes],
           fallbacks: list[dict[str, str]], derived: dict[str, Counter[str]]) -> dict[str, list[EchoverseTask]]:
    by_split: dict[str, list[EchoverseTask]] = {"test": [], "train": []}
    views: dict[Path, UserView] = {}
    try:
        for record in source.records:
            initial = states.path(record)
            db_file = f"{env}.db"
            if initial != source.world.seed_db:
                db_file = f"{TASK_DBS}/{record.id}.db"
                files[db_file] = initial.read_bytes()
            if initial not in views:
                views[initial] = UserView.open(source.spec, initial)
            by_split[record.split].append(_task(source, record, db_file, views[initial], fallbacks, derived))
    finally:
        for view in views.values():
            view.close()
    return by_split


def _entry(source: Source, env: str, counts: dict[str, int]) -> RegistryEntry:
    user = source.spec.users[0]  # as `factory serve` signs in by default
    backend = ["uv", "run", "python", "-m", "backend.app", "--host", "{host}", "--port", "{api_port}",
               "--db", "{db}", "--user", "{user}"]
    return RegistryEntry(
        name=env, title=source.spec.title, path=env, db=f"{env}.db", user=user.username, user_id=user.id,
        today=source.spec.today,
        backend=Command(cwd=env, argv=backend),
        install=[Command(cwd=env, argv=["uv", "sync"]), Command(cwd=f"{env}/frontend", argv=["npm", "install"])],
        frontend=Command(cwd=f"{env}/frontend", argv=["npm", "run", "dev"],
                         env={"VITE_PORT": "{port}", "VITE_API_PORT": "{api_port}"}),
        tasks={"test": f"{env}/{TEST_TASKS}", "train": f"{env}/{TRAIN_TASKS}"}, counts=counts)


def _merge_registry(root: Path, entry: RegistryEntry) -> bytes:
    """The root's registry with this environment in it (others kept as they were)."""
    path = root / REGISTRY
    environments: dict[str, RegistryEntry] = {}
    if path.is_file():
        try:
            environments = dict(Registry.model_validate(json.loads(path.read_text())).environments)
        except ValueError as exc:
            raise ExportError(f"{path}: not a registry this export wrote ({exc}); move it away or choose another --out") from exc
    environments[entry.name] = entry
    return json_bytes(Registry(environments=dict(sorted(environments.items()))).model_dump(mode="json"))


def export_echoverse(world: str | Path, out: str | Path) -> Exported:
    """Write the world as `<out>/<env>/` and add it to `<out>/registry.json` (see the module's docstring)."""
    source = load_source(world)
    env = source.name
    root = Path(out)
    files: dict[str, bytes] = {f"{env}.db": source.world.seed_db.read_bytes()}
    files.update(app_files(source.world))
    src = source.world.root / FRONTEND / "src"
    files.update({f"frontend/src/{p.relative_to(src).as_posix()}": p.read_bytes() for p in sorted(src.rglob("*")) if p.is_file()})
    files["frontend/index.html"] = render("echoverse/index.html.j2", world=env, title=source.spec.title)
    for name in ("package.json", "package-lock.json", "vite.config.js"):
        files[f"frontend/{name}"] = asset(f"echoverse/{name}")
    files["pyproject.toml"] = pyproject_text(env)
    files["uv.lock"] = asset("echoverse/uv.lock")
    files[".gitignore"] = asset("echoverse/gitignore")
    fallbacks: list[dict[str, str]] = []
    derived: dict[str, Counter[str]] = {"reference_answer": Counter(), "verification_query": Counter()}
    with initial_states(source.world) as states:
        by_split = _tasks(source, env, states, files, fallbacks, derived)
    files[TEST_TASKS] = jsonl_bytes(t.model_dump(mode="json") for t in by_split["test"])
    files[TRAIN_TASKS] = jsonl_bytes(t.model_dump(mode="json") for t in by_split["train"])
    counts = _counts(source)
    entry = _entry(source, env, counts)
    files["README.md"] = render("echoverse/README.md.j2", env=env, entry=entry.model_dump(mode="json"),
                                test=len(by_split["test"]), train=len(by_split["train"]),
                                dbs=sum(1 for f in files if f.startswith(TASK_DBS)))
    files["export.json"] = _manifest(source, counts, derived, fallbacks, files)
    registry = _merge_registry(root, entry)
    count, size = write_tree(root / env, files)
    (root / REGISTRY).write_bytes(registry)
    notes = [f"{len(by_split['test'])} test tasks in {env}/{TEST_TASKS}, {len(by_split['train'])} train in {env}/{TRAIN_TASKS}",
             f"{sum(1 for f in files if f.startswith(TASK_DBS))} per-task initial databases in {env}/{TASK_DBS}",
             *(f"{name}: " + ", ".join(f"{n} from {how}" for how, n in sorted(c.items())) for name, c in derived.items()),
             *(f"fallback {f['task']} {f['field']}: {f['why']}" for f in fallbacks)]
    return Exported("echoverse", root / env, count + 1, size + len(registry), len(source.records), notes)


def _counts(source: Source) -> dict[str, int]:
    counts: Counter[str] = Counter(total=len(source.records))
    for r in source.records:
        counts[r.split] += 1
        counts[r.task_type] += 1
    return dict(sorted(counts.items()))


def _manifest(source: Source, counts: dict[str, int], derived: dict[str, Counter[str]],
              fallbacks: list[dict[str, str]], files: dict[str, bytes]) -> bytes:
    manifest = ExportManifest(
        format="echoverse", world=source.name, title=source.spec.title, factory_version=__version__,
        spec_sha256=sha256(source.world.spec_file.read_bytes()), seed_db_sha256=sha256(source.world.seed_db.read_bytes()),
        license=source.license, tasks=counts, derived={k: dict(sorted(v.items())) for k, v in derived.items()},
        fallbacks=fallbacks, files={path: sha256(data) for path, data in sorted(files.items())})
    return json_bytes(manifest.model_dump(mode="json"))


def load_tasks(path: Path) -> list[dict[str, Any]]:
    """The records of a task file this export wrote, each validated (for tests and the launch check)."""
    return [EchoverseTask.model_validate(json.loads(line)).model_dump(mode="json")
            for line in path.read_text().splitlines() if line.strip()]
