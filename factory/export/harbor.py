"""`factory export harbor WORLD --out DIR`: every task of a world as a Harbor task folder.

    DIR/<world>/README.md export.json
    DIR/<world>/image/               the base image, built once: Dockerfile, world/{app/backend, app/frontend/dist,
                                     data/seed.db, verifiers/, requirements.txt, world.py, entrypoint.sh}
    DIR/<world>/tasks/<task id>/
        instruction.md               the goal, where the app is and who the agent is; where a READ's answer goes
        task.toml                    Harbor's configuration (schema 1.1): [task], [metadata], [verifier], [agent], [environment]
        environment/Dockerfile       FROM the base image; bakes the task's initial state (task.json: user, setup patch)
        tests/test.sh grade.py task.json   grades the final database with the world's verifiers → /logs/verifier/reward.txt
        solution/solve.sh solve.py steps.json trajectory.json   the verified golden steps (and the UI demonstration)

The reward program and reference answer are only in `tests/` and `solution/`, which Harbor uploads
after the agent's turn. The app and its database live once in the base image, not per task.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from factory import __version__
from factory.bundle.build import REPO, tree
from factory.bundle.manifest import content_id
from factory.export.common import (
    Exported,
    Source,
    app_files,
    app_pins,
    asset,
    initial_states,
    json_bytes,
    load_source,
    render,
    sha256,
    write_tree,
)
from factory.export.models import ExportManifest
from factory.export.queries import found_answer
from factory.predict.rows import UserView
from factory.tasks.model import TaskRecord
from factory.world.layout import SEED_DB

ANSWER_FILE = "/app/answer.txt"
APP_URL = "http://127.0.0.1:8000"
RUNTIME_PREFIXES = ("data/", "verifiers/")  # what the grader trusts in the environment only after a hash check
EXECUTABLE = ("tests/test.sh", "solution/solve.sh")


def toml_value(value: Any) -> str:
    """A TOML value: strings as basic strings (JSON escapes are TOML's), numbers, booleans, arrays, inline tables."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def toml_text(top: dict[str, Any], tables: dict[str, dict[str, Any]]) -> bytes:
    lines = [f"{key} = {toml_value(value)}" for key, value in top.items()]
    for name, table in tables.items():
        lines += ["", f"[{name}]", *(f"{key} = {toml_value(value)}" for key, value in table.items() if value is not None)]
    return ("\n".join(lines) + "\n").encode()


def image_files(source: Source) -> dict[str, bytes]:
    """The base image's `world/` folder: the app, seed database, grader, pins and the container's world tool."""
    files = {f"world/{SEED_DB}": source.world.seed_db.read_bytes()}
    files.update(app_files(source.world, "world/app/"))
    files.update(tree(REPO / "verifiers", "world/verifiers"))
    files["world/requirements.txt"] = ("# the world's app (FastAPI + SQLite); the grader needs only the standard library\n"
                                       + "".join(p + "\n" for p in app_pins())).encode()
    files["world/world.py"] = asset("harbor/world.py")
    files["world/entrypoint.sh"] = asset("harbor/entrypoint.sh")
    return files


def _task_files(source: Source, record: TaskRecord, image: str, runtime: dict[str, str], answer: str | None) -> dict[str, bytes]:
    spec = source.spec
    user = next(u for u in spec.users if u.username == record.metadata.acting_user)
    env_task = {"task_id": record.id, "user": user.username, "user_id": user.id,
                "starting_url": record.metadata.starting_url, "setup_patch": record.setup.patch}
    config = toml_text({"schema_version": "1.1"}, {
        "task": {"name": f"world-factory/{record.id}", "description": record.goal,
                 "keywords": [source.name, record.task_type, record.category, record.difficulty]},
        "metadata": {"world": source.name, "task_id": record.id, "task_type": record.task_type,
                     "difficulty": record.difficulty, "category": record.category, "split": record.split,
                     "acting_user": user.username, "estimated_actions": record.estimated_actions,
                     "answer_file": ANSWER_FILE if record.task_type != "write" else None,
                     "source": f"world-factory {__version__}; spec sha256 {sha256(source.world.spec_file.read_bytes())}"},
        "verifier": {"timeout_sec": 120.0},
        "agent": {"timeout_sec": float(max(600, 60 * record.estimated_actions))},
        "environment": {"build_timeout_sec": 600.0, "cpus": 1, "memory_mb": 2048, "storage_mb": 10240},
    })
    instruction = render("harbor/instruction.md.j2", goal=record.goal, title=spec.title, url=APP_URL,
                         starting_url=record.metadata.starting_url, user_name=user.name, username=user.username,
                         today=spec.today, answer=record.task_type == "read", answer_file=ANSWER_FILE)
    tests_task = {"task_id": record.id, "task_type": record.task_type, "reward": record.reward,
                  "setup_patch": record.setup.patch, "runtime": runtime}
    steps = {"task_id": record.id, "steps": [s.model_dump(mode="json") for s in record.golden_steps], "answer": answer}
    trajectory = record.trajectory.model_dump(mode="json") if record.trajectory is not None else None
    return {
        "instruction.md": instruction,
        "task.toml": config,
        "environment/Dockerfile": render("harbor/Dockerfile.task.j2", task_id=record.id, world=source.name, image=image),
        "environment/task.json": json_bytes(env_task),
        "tests/test.sh": asset("harbor/test.sh"),
        "tests/grade.py": asset("harbor/grade.py"),
        "tests/task.json": json_bytes(tests_task),
        "solution/solve.sh": asset("harbor/solve.sh"),
        "solution/solve.py": asset("harbor/solve.py"),
        "solution/steps.json": json_bytes(steps),
        "solution/trajectory.json": json_bytes(trajectory),
    }


def export_harbor(world: str | Path, out: str | Path) -> Exported:
    """Write `<out>/<world>/` (see the module's docstring), replacing an earlier export of the same world."""
    source = load_source(world)
    base = image_files(source)
    image = f"world-factory/{source.name}:{__version__}-{content_id(base)}"
    files = {f"image/{path}": data for path, data in base.items()}
    files["image/Dockerfile"] = render("harbor/Dockerfile.image.j2", world=source.name, image=image)
    runtime = {path.removeprefix("world/"): sha256(data) for path, data in sorted(base.items())
               if path.removeprefix("world/").startswith(RUNTIME_PREFIXES)}
    answers = _answers(source)
    for record in source.records:
        for rel, data in _task_files(source, record, image, runtime, answers.get(record.id)).items():
            files[f"tasks/{record.id}/{rel}"] = data
    types = Counter(r.task_type for r in source.records)
    splits = Counter(r.split for r in source.records)
    files["README.md"] = render("harbor/README.md.j2", title=source.spec.title, world=source.name, image=image,
                                count=len(source.records), by_type=", ".join(f"{n} {t}" for t, n in sorted(types.items())),
                                by_split=", ".join(f"{n} {s}" for s, n in sorted(splits.items())))
    manifest = ExportManifest(
        format="harbor", world=source.name, title=source.spec.title, factory_version=__version__,
        spec_sha256=sha256(source.world.spec_file.read_bytes()), seed_db_sha256=sha256(source.world.seed_db.read_bytes()),
        license=source.license, tasks={"total": len(source.records), **dict(sorted((types + splits).items()))},
        files={path: sha256(data) for path, data in sorted(files.items())})
    files["export.json"] = json_bytes(manifest.model_dump(mode="json"))
    executable = [p for p in files if p.endswith(tuple("/" + e for e in EXECUTABLE)) or p == "image/world/entrypoint.sh"]
    root = Path(out) / source.name
    count, size = write_tree(root, files, executable)
    notes = [f"{len(source.records)} task folders in {root / 'tasks'}", f"base image: docker build -t {image} {root / 'image'}"]
    return Exported("harbor", root, count, size, len(source.records), notes)


def _answers(source: Source) -> dict[str, str | None]:
    """What each solution answers: a READ's reference answer, the row a READ_WRITE finds (for the record)."""
    found: dict[str, str | None] = {r.id: r.reference_answer for r in source.records}
    with initial_states(source.world) as states:
        for record in (r for r in source.records if r.task_type == "read_write"):
            view = UserView.open(source.spec, states.path(record))
            try:
                found[record.id] = found_answer(view, record).value
            finally:
                view.close()
    return found
