"""The golden solution of a Harbor task of a world-factory world (generated; standard library only).

Plays steps.json's workflow calls on the app (WORLD_APP_URL, default http://127.0.0.1:8000) as the
task's user, the way its verified golden run did, and writes a READ's answer to ANSWER_FILE
(/app/answer.txt). The UI demonstration that reached the same state is in trajectory.json.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
APP = os.environ.get("WORLD_APP_URL", "http://127.0.0.1:8000").rstrip("/")
ANSWER_FILE = Path(os.environ.get("ANSWER_FILE", "/app/answer.txt"))
WORLD = Path(os.environ.get("WORLD_HOME", "/world")) / "world.py"


def up() -> bool:
    try:
        with urllib.request.urlopen(APP + "/api/health", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def main() -> int:
    plan = json.loads((HERE / "steps.json").read_text())
    if plan["steps"] and not up() and WORLD.is_file():
        subprocess.run([sys.executable, str(WORLD), "start"], check=False)
    for _ in range(100):
        if not plan["steps"] or up():
            break
        time.sleep(0.2)
    for step in plan["steps"]:
        request = urllib.request.Request(f"{APP}/api/workflows/{step['workflow']}", method="POST",
                                         data=json.dumps(step["params"]).encode(),
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                print(f"{step['workflow']}: {response.status}")
        except urllib.error.HTTPError as exc:
            sys.stderr.write(f"{step['workflow']}: {exc.code} {exc.read().decode(errors='replace')}\n")
            return 1
    if plan["answer"] is not None:
        ANSWER_FILE.parent.mkdir(parents=True, exist_ok=True)
        ANSWER_FILE.write_text(str(plan["answer"]) + "\n")
        print(f"answer written to {ANSWER_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
