"""Grade a Harbor task of a world-factory world (generated; standard library only).

Reads this folder's task.json (the reward program, the setup patch, the SHA-256 of the world's
seed database and grader), checks that the environment's copies are untouched, rebuilds the initial
state from the seed, snapshots the final one (WORLD_HOME/state/world.db) and grades both with the
world's own `verifiers`, with the answer in ANSWER_FILE for READ tasks. Writes REWARD_DIR/reward.txt
and grade.json. Environment: WORLD_HOME (/world), ANSWER_FILE (/app/answer.txt), REWARD_DIR (/logs/verifier).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
HOME = Path(os.environ.get("WORLD_HOME", "/world"))
ANSWER_FILE = Path(os.environ.get("ANSWER_FILE", "/app/answer.txt"))
REWARD_DIR = Path(os.environ.get("REWARD_DIR", "/logs/verifier"))


def write(score: float, grade: dict[str, object]) -> None:
    REWARD_DIR.mkdir(parents=True, exist_ok=True)
    (REWARD_DIR / "grade.json").write_text(json.dumps(grade, indent=2, sort_keys=True, default=str) + "\n")
    (REWARD_DIR / "reward.txt").write_text(f"{score:g}\n")
    print(f"reward {score:g}: {grade.get('explanation', '')}")


def snapshot(source: Path, target: Path) -> None:
    src = sqlite3.connect(f"file:{quote(str(source))}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def main() -> int:
    task = json.loads((HERE / "task.json").read_text())
    changed = [rel for rel, digest in sorted(task["runtime"].items())
               if not (HOME / rel).is_file() or hashlib.sha256((HOME / rel).read_bytes()).hexdigest() != digest]
    if changed:
        write(0.0, {"task_id": task["task_id"], "explanation": "the world's seed database or grader was changed: "
                    + ", ".join(changed[:5])})
        return 0
    final = HOME / "state" / "world.db"
    if not final.is_file():
        write(0.0, {"task_id": task["task_id"], "explanation": f"no final state: {final} is missing"})
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        shutil.copytree(HOME / "verifiers", work / "verifiers")  # the checked files, out of the agent's reach
        sys.path.insert(0, str(work))
        from verifiers import grade  # the checked copy

        initial = work / "initial.db"
        shutil.copyfile(HOME / "data" / "seed.db", initial)
        if task["setup_patch"].strip():
            conn = sqlite3.connect(initial)
            try:
                conn.executescript("BEGIN;\n" + task["setup_patch"] + "\nCOMMIT;")
            finally:
                conn.close()
        snapshot(final, work / "final.db")
        answer = None
        if task["task_type"] != "write" and ANSWER_FILE.is_file():
            answer = ANSWER_FILE.read_text().strip() or None
        result = grade(task["reward"], initial, work / "final.db", answer)
        write(result.score, {"task_id": task["task_id"], "answer": answer, **result.to_json()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
