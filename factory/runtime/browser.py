"""Drive a world's real UI in Chromium with Playwright: log in and complete workflow forms.

Spec-driven and locator-honest: inputs are found by their labels, buttons by role and name, so
the same driver serves the UI tests now and the verifier's UI claims and the tasks' UI-feasibility
gate later.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Browser, Page, Playwright, expect
from playwright.sync_api import Error as PlaywrightError

from factory.runtime.bootstrap import CHROMIUM_FLAGS, ensure_chromium
from factory.spec.model import ParamSpec, Spec, WorkflowSpec


def launch(playwright: Playwright) -> Browser:
    """Headless Chromium from the system (Playwright cannot download browsers here)."""
    return playwright.chromium.launch(executable_path=str(ensure_chromium()), args=CHROMIUM_FLAGS)


def login(page: Page, base_url: str, username: str, password: str) -> None:
    """Sign in through the login page and wait for the app shell."""
    page.goto(f"{base_url}/login")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_test_id("logout")).to_be_visible()


@dataclass
class Outcome:
    """What the UI said after a submission."""

    ok: bool
    message: str


def _major(cents: int) -> str:
    return f"{cents / 100:.2f}"


def fill_param(page: Page, param: ParamSpec, value: Any) -> None:
    """Set one form widget to an API-level value (money in cents, references by id, ISO dates)."""
    field = page.get_by_label(param.label, exact=True)
    widget = param.widget
    if widget == "checkbox":
        field.set_checked(bool(value))
    elif widget in ("select", "reference"):
        if value is not None:  # a reference's options arrive from the API after the form shows
            field.locator(f"option[value={json.dumps(str(value))}]").wait_for(state="attached")
        field.select_option(value="" if value is None else str(value))
    elif widget == "money":
        field.fill("" if value is None else _major(int(value)))
    elif widget == "datetime":
        field.fill("" if value is None else str(value)[:19])
    elif isinstance(value, (dt.date, dt.datetime)):
        field.fill(value.isoformat())
    else:
        field.fill("" if value is None else str(value))


def run_workflow(page: Page, base_url: str, spec: Spec, name: str, values: dict[str, Any]) -> Outcome:
    """Open a workflow's form, fill it, submit (confirming when asked) and read the toast."""
    workflow: WorkflowSpec = next(w for w in spec.workflows if w.name == name)
    if workflow.form_path is None:
        raise ValueError(f"workflow {name} has no form (system workflow)")
    page.goto(f"{base_url}{workflow.form_path}")
    expect(page.get_by_test_id(f"form-{name}")).to_be_visible()
    for param in workflow.params:
        if param.name in values:
            fill_param(page, param, values[param.name])
    page.get_by_test_id(f"submit-{name}").click()
    if workflow.confirm:
        dialog = page.get_by_role("dialog")
        expect(dialog).to_be_visible()
        dialog.get_by_role("button", name="Confirm").click()
    toast = page.get_by_test_id(re.compile(r"^toast-(success|error)$"))
    expect(toast).to_be_visible()
    return Outcome(ok=toast.get_attribute("data-testid") == "toast-success", message=toast.inner_text().strip())


# ---- error descriptions ----------------------------------------------------------------------
_LOCATOR_FORMS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r'^get_by_label\("(?P<name>[^"]*)"'), 'label "{name}"'),
    (re.compile(r'^get_by_test_id\("(?P<name>[^"]*)"\)$'), 'test id "{name}"'),
    (re.compile(r'^get_by_role\("(?P<role>\w+)", name="(?P<name>[^"]*)"'), '{role} "{name}"'),
    (re.compile(r'^get_by_role\("(?P<role>\w+)"\)$'), "a {role}"),
    (re.compile(r'^get_by_text\("(?P<name>[^"]*)"'), 'text "{name}"'),
]
_LOCATOR_PART = re.compile(r'(?:get_by_\w+|locator)\((?:[^()"]|"[^"]*")*\)')


def _friendly(locator: str) -> str:
    """`get_by_label("Amount", exact=True)` → `label "Amount"`; chains read outer › inner."""
    return " › ".join(_friendly_part(part) for part in _LOCATOR_PART.findall(locator) or [locator])


def _friendly_part(part: str) -> str:
    for pattern, template in _LOCATOR_FORMS:
        match = pattern.match(part)
        if match:
            return template.format(**match.groupdict())
    return part


def describe_failure(exc: PlaywrightError | AssertionError, path: str) -> str:
    """One line out of a Playwright timeout or a failed `expect`, naming the locator and the page."""
    text = str(exc)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # The call log's first "waiting for <locator>" names the element; later ones describe states.
    waiting = re.findall(r"waiting for ((?:get_by_|locator\(|frame_locator\().+)$", text, flags=re.MULTILINE)
    target = _friendly(waiting[0].strip()) if waiting else None
    if isinstance(exc, AssertionError):
        if target and "element(s) not found" in text:
            return f"{target} not found on {path}"
        actual = next((line.removeprefix("Actual value:").strip() for line in lines if line.startswith("Actual value:")), "")
        expectation = lines[0].removeprefix("Locator ") if lines else "expectation failed"
        where = f"{target}: " if target else ""
        return f"{where}{expectation}, got {actual or 'nothing'} on {path}"
    if target and "did not find some options" in text:
        return f"{target} does not offer the requested option on {path}"
    if target and "locator resolved to" not in text:
        return f"{target} not found on {path}"
    head = lines[0] if lines else type(exc).__name__
    return f"{head} ({target}) on {path}" if target else f"{head} on {path}"
