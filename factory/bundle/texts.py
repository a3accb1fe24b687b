"""The texts a bundle carries beside the world: `requirements.txt` (pinned, for serving and grading)
and `README.md` (for benchmark users: install, serve, run an episode, grade a rollouts file).

The pins are the factory's own (`pyproject.toml`) for every package the shipped code imports by
name; the packages it imports that come in through those (SQLAlchemy through SQLModel, Starlette
through FastAPI, AnyIO through both) are pinned to the versions installed where the bundle was
built, the ones its gates ran on.
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

from factory.bundle.errors import BundleError

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
# imported by name by episodes/, verifiers/ (standard library only) or the generated backend
DIRECT = ("fastapi", "uvicorn", "sqlmodel", "pydantic", "httpx", "gymnasium", "mcp", "jsonschema")
# imported by name too, but installed through the packages above: pinned as installed here
TRANSITIVE = ("sqlalchemy", "starlette", "anyio")
PYTHON = ">=3.11"


def pinned_requirements(pyproject: Path = PYPROJECT) -> list[str]:
    """`name==version` for every package the bundle's code imports, sorted by name."""
    declared: dict[str, str] = {}
    for line in tomllib.loads(pyproject.read_text())["project"]["dependencies"]:
        found = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)\s*==\s*([^\s;#]+)\s*", line)
        if found:
            declared[found.group(1).lower()] = found.group(2)
    pins: dict[str, str] = {}
    for name in DIRECT:
        if name not in declared:
            raise BundleError(f"{pyproject}: no `{name}==<version>` pin in [project] dependencies; a bundle pins "
                              "every package its code imports")
        pins[name] = declared[name]
    for name in TRANSITIVE:
        try:
            pins[name] = metadata.version(name)
        except metadata.PackageNotFoundError as exc:
            raise BundleError(f"{name} is not installed here; a bundle pins the version its gates ran on") from exc
    return [f"{name}=={pins[name]}" for name in sorted(pins)]


def requirements_text(pins: list[str]) -> str:
    return ("# Serving (episodes/, the app in app/backend) and grading (verifiers/: standard library only).\n"
            f"# Python {PYTHON}. Install: python -m pip install -r requirements.txt\n" + "".join(p + "\n" for p in pins))


def readme_text(info: dict[str, Any], top: str) -> str:
    """The bundle's README: what it holds and how a benchmark user runs and grades it."""
    counts = info["counts"]
    tasks = counts["tasks"]
    by_type = ", ".join(f"{n} {t}" for t, n in tasks["by_type"].items())
    by_split = ", ".join(f"{n} {s}" for s, n in tasks["by_split"].items())
    claims = info["claims"]
    license_line = (f"License: {info['license']} (named in the world's seed)." if info["license"]
                    else "License: none. The world's seed names no license; ask its publisher before redistributing.")
    red = info["red_team"]
    red_line = (f"- red team: {red['false_positives']} false positives in {red['graded']} graded probes "
                f"(seed {red['seed']})\n" if red else "- red team: not run for this bundle\n")
    return f"""# {info['title']} — benchmark bundle `{info['name']}` {info['version']}

A world for computer-use agents: a real web app (FastAPI + SQLite, built React frontend), its seed
database, and {tasks['total']} tasks whose success is decided by the app's own database, graded by
`verifiers/` (standard library only). Everything runs from this folder; nothing of the factory that
built it is needed.

- tasks: {tasks['total']} ({by_type}; splits: {by_split})
- {counts['entities']} entities, {counts['workflows']} workflows, {counts['users']} users; frozen date {info['today']}
- claims: {claims['passed']}/{claims['total']} passed; every task passed its gates (reward of the initial
  state 0, of the golden state 1, counterfactuals 0, the same grade twice)
{red_line}- {license_line}

`bundle.json` lists every file with its SHA-256, the counts, the pass rates and the splits.

## Install

Python {PYTHON}, in a fresh virtual environment:

    cd {top}
    python -m venv .venv && . .venv/bin/activate
    python -m pip install -r requirements.txt

## Serve

    python -m episodes serve . --port 8000 --eval-port 8001 --token "$TOKEN"

Port 8000 is the agent's (the app only); port 8001 the evaluator's (create, reset, state, diff,
grade, finish), behind the bearer token. Add `--rollouts runs/rollouts.jsonl` to keep a rollout
record of every finished episode. Each episode gets its own copy of its task's initial state.

## Run an episode

```python
import json, os
from episodes.client import AgentSession, EvaluatorClient

task = json.loads(open("tasks/tasks.jsonl").readline())
evaluator = EvaluatorClient("http://127.0.0.1:8001", os.environ["TOKEN"])
episode = evaluator.create(task_id=task["id"])
# a browser agent opens episode["launch_url"]; an HTTP agent joins it like this:
with AgentSession(episode["launch_url"]) as agent:
    for step in task["golden_steps"]:          # the reference solution, for a WRITE task
        agent.workflow(step["workflow"], step["params"])
record = evaluator.finish(episode["episode_id"], agent="my-agent", answer=task["reference_answer"])
print(record.reward)                           # 1.0
```

Gymnasium: `episodes.gym_env.register_world(name, eval_url, token)` registers
`worlds/<name>-v0`. MCP: `python -m episodes mcp . --launch-url URL` serves one episode's
reads and workflows as tools on stdio.

## Grade a rollouts file

    python grade_rollouts.py runs/rollouts.jsonl [--out graded.jsonl]

Each record's final state is rebuilt from its task's initial state and the record's `final_diff`,
and graded by the task's reward program with the record's answer; the recorded reward is compared
with the grade. Exit code 1 when a line cannot be graded or a recorded reward differs.

## Files

- `app/backend/` the generated app (`python -m backend.app --host H --port P --db PATH` from `app/`),
  `app/frontend/dist/` its built frontend (no Node needed)
- `data/seed.db` the seed database; `spec.json` the world's full specification
- `tasks/tasks.jsonl` the tasks, one JSON record a line (id, goal, task_type, reference_answer,
  reward program, golden_steps, split, ...). Each task's initial state is its `setup.patch` (sqldiff
  SQL, smaller than a database) replayed on `data/seed.db` (`episodes.dbfiles.apply_patch`).
- `episodes/` the episode server and its clients; `verifiers/` the grader
- `grade_rollouts.py` offline grading; `requirements.txt` the pinned packages
"""
