"""Browser scripts on workflow forms, driven the way a person reads the form.

Each field is found by its visible label (the spec's `ParamSpec.label`), and the label must lead
to that parameter's own control; selects are chosen by the words of an option (a row's display
label, an enum value in words), and money is typed in dollars. After submitting, the JSON body the
form sent must carry the values the claim means (API units: cents, ids), so a form that swaps two
fields or converts money wrongly fails here with a message naming the field, before the database
effects are judged.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Request, expect
from pydantic import Field

from factory.spec.model import ParamSpec, WorkflowSpec
from factory.verify.ui_session import (
    ErrorToast,
    ScriptArgs,
    Session,
    UiCheckFailed,
    checked,
    choose_option,
    settle,
)


class WorkflowArgs(ScriptArgs):
    workflow: str
    values: dict[str, Any] = Field(default_factory=dict)  # API-level: money in cents, references by id
    # Words of the option to choose per select or reference parameter. Claims written before
    # options were chosen by their words have none, and their selects are set by value.
    choices: dict[str, str] = Field(default_factory=dict)


def _workflow(session: Session, name: str) -> WorkflowSpec:
    workflow = next((w for w in session.spec.workflows if w.name == name), None)
    if workflow is None:
        raise ValueError(f"the spec has no workflow {name!r}")
    if workflow.form_path is None:
        raise ValueError(f"workflow {name} has no form (system workflow)")
    return workflow


def _form(session: Session, workflow: WorkflowSpec) -> Locator:
    """The workflow's form, found by its accessible name (the heading above it)."""
    form = session.page.get_by_role("form", name=workflow.label, exact=True)
    checked(f"the form {workflow.label!r} is not on {workflow.form_path}", session,
            lambda: expect(form).to_be_visible(timeout=session.timeout_ms))
    return form


def field_test_id(workflow: WorkflowSpec, param: ParamSpec) -> str:
    """The app contract's test id of a parameter's control: the association a label must lead to."""
    return f"field-{workflow.name}-{param.name}"


def labelled_control(session: Session, form: Locator, workflow: WorkflowSpec, param: ParamSpec) -> Locator:
    """The one control the visible label `param.label` leads to; it must be `param`'s own."""
    control = form.get_by_label(param.label, exact=True)
    checked(f"no field of the form {workflow.label!r} is labelled {param.label!r}", session,
            lambda: expect(control.first).to_be_attached(timeout=session.timeout_ms))
    if control.count() > 1:
        raise UiCheckFailed(f"{control.count()} fields of the form {workflow.label!r} are labelled {param.label!r} "
                            f"on {session.path}")
    actual = control.get_attribute("data-testid")
    wanted = field_test_id(workflow, param)
    if actual != wanted:
        other = next((p for p in workflow.params if actual == field_test_id(workflow, p)), None)
        held = f"the {other.name} field ({actual})" if other else (actual or "a control without a test id")
        raise UiCheckFailed(f"the label {param.label!r} on {session.path} leads to {held}, not to the "
                            f"{param.name} field ({wanted})")
    return control


def _major(cents: int) -> str:
    return f"{cents / 100:.2f}"


def _fill(session: Session, control: Locator, param: ParamSpec, value: Any, choice: str | None) -> None:
    """Set one control as a person would: words for options, dollars for money, ISO text for dates."""
    widget = param.widget
    if widget == "checkbox":
        control.set_checked(bool(value))
    elif widget in ("select", "reference"):
        if value is None:
            control.select_option(value="")  # the empty choice ("None"/"Choose…") leaves it unset
        elif choice is not None:
            choose_option(session, control, choice, f"the field {param.label!r}", prefer=str(value))
        else:
            control.select_option(value=str(value))
    elif widget == "money":
        control.fill("" if value is None else _major(int(value)))
    elif widget == "datetime" or (widget == "date_range" and param.type == "datetime"):
        control.fill("" if value is None else str(value)[:19])  # a datetime range's start is a datetime too
    elif isinstance(value, (dt.date, dt.datetime)):
        control.fill(value.isoformat())
    else:
        control.fill("" if value is None else str(value))


def _same(param: ParamSpec, sent: Any, meant: Any) -> bool:
    """Whether the value the form sent is the one meant, in the API's units."""
    try:
        if param.widget in ("money", "reference"):
            return int(sent) == int(meant)
        if param.widget == "number":
            return float(sent) == float(meant)
        if param.widget == "checkbox":
            return bool(sent) == bool(meant)
        if param.widget == "datetime" or (param.widget == "date_range" and param.type == "datetime"):
            # The form may complete HH:MM with ":00"; the moment is the same.
            return str(sent)[:19] == str(meant)[:19]
    except (TypeError, ValueError):
        return False
    return str(sent) == str(meant)


def _entered(param: ParamSpec, value: Any, choice: str | None) -> str:
    """How the claim's value reads on the form, for the failure message."""
    if choice is not None:
        return f"{choice!r} ({value})"
    if param.widget == "money":
        return f"${_major(int(value))} ({value} cents)"
    return repr(value)


def _check_sent(workflow: WorkflowSpec, args: WorkflowArgs, body: Any) -> list[str]:
    """The parameters whose sent value is not the one entered, each as one readable phrase."""
    if not isinstance(body, dict):
        return [f"the form sent {body!r}, not a JSON object"]
    wrong: list[str] = []
    for param in workflow.params:
        if param.name not in args.values or args.values[param.name] is None:
            continue  # an empty optional field is left out of the body
        meant = args.values[param.name]
        sent = body.get(param.name)
        if param.name not in body or not _same(param, sent, meant):
            shown = "nothing" if param.name not in body else repr(sent)
            wrong.append(f"{param.label!r} was entered as {_entered(param, meant, args.choices.get(param.name))} "
                         f"but the form sent {param.name}={shown}")
    return wrong


def script_workflow(session: Session, raw: dict[str, Any]) -> str:
    args = WorkflowArgs.model_validate(raw)
    workflow = _workflow(session, args.workflow)
    unknown = (set(args.values) | set(args.choices)) - {param.name for param in workflow.params}
    if unknown:  # they would be skipped silently and the claim would test something else
        raise ValueError(f"workflow {workflow.name} has no parameter(s) {sorted(unknown)}")
    page = session.page
    page.goto(f"{session.base_url}{workflow.form_path}")
    form = _form(session, workflow)
    for param in workflow.params:
        if param.name in args.values:
            control = labelled_control(session, form, workflow, param)
            _fill(session, control, param, args.values[param.name], args.choices.get(param.name))

    api_path = f"/api/workflows/{workflow.name}"
    sent: list[Request] = []
    page.on("request", lambda request: sent.append(request)
            if request.method == "POST" and urlsplit(request.url).path == api_path else None)
    form.get_by_role("button", name=workflow.label, exact=True).click()
    if workflow.confirm:
        dialog = page.get_by_role("dialog")
        checked(f"submitting {workflow.label!r} asked for no confirmation", session,
                lambda: expect(dialog).to_be_visible(timeout=session.timeout_ms))
        dialog.get_by_role("button", name="Confirm").click()
    toast = page.get_by_test_id(re.compile(r"^toast-(success|error)$"))
    checked(f"submitting {workflow.label!r} showed no message", session,
            lambda: expect(toast).to_be_visible(timeout=session.timeout_ms))
    ok = toast.get_attribute("data-testid") == "toast-success"
    message = toast.inner_text().strip()
    if sent:
        try:
            body = sent[0].post_data_json
        except (PlaywrightError, ValueError):
            body = sent[0].post_data
        wrong = _check_sent(workflow, args, body)
        if wrong:
            raise UiCheckFailed(f"{'; '.join(wrong)} (the app answered {message!r})")
    if not ok:
        raise ErrorToast(message)  # verbatim: the verifier compares it with the backend's message
    settle(session)
    return message


# ---- the form's labels, as the spec names its parameters ------------------------------------------
_LABELS = """(form) => [...form.querySelectorAll("label")].map((label) => {
  const clone = label.cloneNode(true);
  for (const hidden of clone.querySelectorAll('[aria-hidden="true"]')) hidden.remove();
  const control = label.control;
  return [(clone.textContent || "").replace(/\\s+/g, " ").trim(),
          control ? (control.getAttribute("data-testid") || control.name || control.id || control.tagName) : null];
})"""


def check_form_labels(session: Session, expected: list[str]) -> None:
    """The page's form shows exactly the `expected` field labels, in order, each leading to a control."""
    form = session.page.get_by_role("main").locator("form")
    checked(f"no form on {session.path}", session, lambda: expect(form.first).to_be_visible(timeout=session.timeout_ms))
    found: list[list[str | None]] = form.first.evaluate(_LABELS)
    shown = [text or "" for text, _ in found]
    if shown != expected:
        raise UiCheckFailed(f"the form on {session.path} shows the labels {shown}, the spec names its fields {expected}")
    loose = [text for text, control in found if control is None]
    if loose:
        raise UiCheckFailed(f"the label(s) {loose} on {session.path} lead to no control")
