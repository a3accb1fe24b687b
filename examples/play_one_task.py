"""Play one task of a served world in Chromium, through the app's own forms, and print its reward.

A scripted stand-in for an agent: it asks the evaluator for an episode, opens the episode's launch
URL in a fresh browser (which logs it in as the task's user), fills and submits the form of every
step of the task's golden solution (read from the world's own files: an oracle, which a real agent
would not have), then asks the evaluator to grade. It starts nothing itself; serve the world first:

    python -m episodes serve worlds/echobank --port 8000 --eval-port 8001 --token "$WORLD_EVAL_TOKEN"
    WORLD_EVAL_URL=http://127.0.0.1:8001 PYTHONPATH=. python examples/play_one_task.py \\
        echobank-write-transfer-funds-001 --world worlds/echobank

Exit status 0 when the reward is 1, else 1 (2 when the task or the server cannot be found).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Page, expect, sync_playwright

from episodes.client import ClientError, EvaluatorClient

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def task_record(world: Path, task_id: str) -> dict[str, Any]:
    for line in (world / "tasks" / "tasks.jsonl").read_text().splitlines():
        if line.strip():
            record: dict[str, Any] = json.loads(line)
            if record["id"] == task_id:
                return record
    print(f"error: no task {task_id!r} in {world}/tasks/tasks.jsonl", file=sys.stderr)
    raise SystemExit(2)


def fill(page: Page, param: dict[str, Any], value: Any) -> None:
    """Set one labelled form field to an API-level value (money in cents, references by id, ISO dates)."""
    field = page.get_by_label(param["label"], exact=True)
    widget = param["widget"]
    if widget == "checkbox":
        field.set_checked(bool(value))
    elif widget in ("select", "reference"):  # the option's value is the API value (a row's id for a reference)
        field.select_option(value="" if value is None else str(value))
    elif widget == "money":
        field.fill("" if value is None else f"{int(value) / 100:.2f}")
    elif widget == "datetime":
        field.fill("" if value is None else str(value)[:19])
    else:  # text, email, number, date, textarea
        field.fill("" if value is None else str(value))


def submit(page: Page, app_url: str, workflow: dict[str, Any], params: dict[str, Any]) -> str:
    """Open the workflow's form, fill it, submit it (confirming when asked); the toast's text."""
    name = workflow["name"]
    page.goto(app_url + workflow["form_path"])
    expect(page.get_by_test_id(f"form-{name}")).to_be_visible()
    for param in workflow["params"]:
        if param["name"] in params:
            fill(page, param, params[param["name"]])
    page.get_by_test_id(f"submit-{name}").click()
    if workflow.get("confirm"):
        dialog = page.get_by_role("dialog")
        expect(dialog).to_be_visible()
        dialog.get_by_role("button", name="Confirm").click()
    toast = page.get_by_test_id(re.compile(r"^toast-(success|error)$"))
    expect(toast).to_be_visible()
    text = toast.inner_text().strip()
    if toast.get_attribute("data-testid") != "toast-success":
        raise RuntimeError(f"{name}: the app refused the form: {text}")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("task_id", help="e.g. echobank-write-transfer-funds-001")
    parser.add_argument("--world", type=Path, required=True, help="the served world's folder (its spec and tasks)")
    parser.add_argument("--url", default=os.environ.get("WORLD_EVAL_URL"), help="the evaluator (default $WORLD_EVAL_URL)")
    parser.add_argument("--token", default=os.environ.get("WORLD_EVAL_TOKEN"), help="its token (default $WORLD_EVAL_TOKEN)")
    parser.add_argument("--answer", default=None, help="the answer to grade (default: the task's reference answer, if any)")
    parser.add_argument("--screenshot", type=Path, default=None, help="save the last page here (PNG)")
    args = parser.parse_args(argv)
    if not args.url or not args.token:
        parser.error("the evaluator's URL and token: --url/--token or WORLD_EVAL_URL/WORLD_EVAL_TOKEN")

    record = task_record(args.world, args.task_id)
    workflows = {w["name"]: w for w in json.loads((args.world / "spec.json").read_text())["workflows"]}
    with EvaluatorClient(args.url, args.token) as evaluator:
        try:
            episode = evaluator.create(task_id=args.task_id)
        except ClientError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"episode {episode['episode_id']} as {episode['user']}: {episode['instruction']}")
        launch = urlsplit(episode["launch_url"])
        app_url = f"{launch.scheme}://{launch.netloc}"
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                context.set_default_timeout(15_000)
                page = context.new_page()
                page.goto(episode["launch_url"])  # sets the HttpOnly cookies, lands on the starting page
                expect(page.get_by_test_id("logout")).to_be_visible()  # the app shell, logged in
                for step in record["golden_steps"]:
                    said = submit(page, app_url, workflows[step["workflow"]], step["params"])
                    print(f"  {step['workflow']}: {said}")
                if args.screenshot is not None:
                    page.screenshot(path=str(args.screenshot), full_page=True)
                browser.close()
            answer = args.answer if args.answer is not None else (record.get("reference_answer") or None)
            result = evaluator.grade(episode["episode_id"], answer)
        finally:
            with contextlib.suppress(ClientError):  # already expired: nothing to free
                evaluator.close(episode["episode_id"])
    print(f"reward {result['reward']}: {result['explanation']}")
    return 0 if result["reward"] == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
