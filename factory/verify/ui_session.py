"""What every browser script shares: the signed-in session it drives, how a check that does not hold
is raised, and how a Playwright failure becomes a one-line message naming the locator and the page.

Split out of `factory.verify.ui` so the form scripts (`ui_forms`) and the list scripts (`ui_lists`)
can live in their own modules without importing the entry point.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Locator, Page, Request, expect
from playwright.sync_api import Error as PlaywrightError
from pydantic import BaseModel, ConfigDict

from factory.runtime.browser import describe_failure
from factory.spec.model import Spec


class UiCheckFailed(Exception):
    """A script's check did not hold; the message is the claim's failure message."""


class ErrorToast(UiCheckFailed):
    """The app answered a workflow with its error toast; the message is the toast text, verbatim."""


class ScriptArgs(BaseModel):
    """Script arguments: the claims compiler writes them, so a mismatch is a programming error."""

    model_config = ConfigDict(extra="forbid")


@dataclass
class Session:
    """One signed-in browser context and what the script needs to drive it."""

    context: BrowserContext
    page: Page
    base_url: str
    spec: Spec
    timeout_ms: int
    console_errors: list[str] = dataclass_field(default_factory=list)
    # Requests of the page still in flight, and when the last one started or ended (see `settle`).
    inflight: set[Request] = dataclass_field(default_factory=set)
    last_activity: float = dataclass_field(default_factory=time.monotonic)

    def watch_network(self) -> None:
        """Track the page's requests, so `settle` can tell when the page has gone quiet."""
        def started(request: Request) -> None:
            self.inflight.add(request)
            self.last_activity = time.monotonic()

        def ended(request: Request) -> None:
            self.inflight.discard(request)
            self.last_activity = time.monotonic()

        self.page.on("request", started)
        self.page.on("requestfinished", ended)
        self.page.on("requestfailed", ended)

    @property
    def path(self) -> str:
        return urlsplit(self.page.url).path or "/"

    def api_json(self, path: str, params: dict[str, str | float | bool] | None = None) -> Any:
        """GET an API path with the page's cookies (the same user the page acts as)."""
        response = self.context.request.get(f"{self.base_url}{path}", params=params)
        if not response.ok:
            raise UiCheckFailed(f"GET {path} {params or ''} answered {response.status}: {response.text()[:200]}")
        return response.json()


def checked(what: str, session: Session, check: Callable[[], None]) -> None:
    """Run one `expect`, turning its failure into a message that starts with what was expected."""
    try:
        check()
    except AssertionError as exc:
        raise UiCheckFailed(f"{what}: {describe_failure(exc, session.path)}") from exc


def visible(locator: Locator, timeout_ms: int) -> Callable[[], None]:
    """A check for `checked`: `locator` becomes visible (bound now, so a loop cannot rebind it)."""
    return lambda: expect(locator).to_be_visible(timeout=timeout_ms)


QUIET_S = 0.15  # how long a page must make no request before it counts as settled


def settle(session: Session) -> None:
    """Let the page finish its requests so late console errors are caught (a readiness wait).

    Settled means no request in flight for `QUIET_S`: on a local server every answer is rendered
    well within that, and it costs far less than Playwright's "networkidle" (half a second of
    silence), which made up a third of every browser claim's time.
    """
    deadline = time.monotonic() + session.timeout_ms / 1000
    while time.monotonic() < deadline:
        if not session.inflight and time.monotonic() - session.last_activity >= QUIET_S:
            return
        try:
            session.page.wait_for_timeout(25)  # lets Playwright deliver the request events meanwhile
        except PlaywrightError:
            return  # the page is gone; the checks already ran, errors so far count
    # a page that keeps polling never goes quiet; the checks already ran, errors so far count


# ---- what a user reads ---------------------------------------------------------------------------
# The text of an element as read aloud: decorative parts (sort arrows, currency affixes, marked
# aria-hidden) are left out, whitespace is collapsed.
_SPOKEN_TEXT = """(element) => {
  const clone = element.cloneNode(true);
  for (const hidden of clone.querySelectorAll('[aria-hidden="true"]')) hidden.remove();
  return (clone.textContent || "").replace(/\\s+/g, " ").trim();
}"""


def spoken_text(locator: Locator) -> str:
    """The visible words of one element without its decorations (see `_SPOKEN_TEXT`)."""
    text: str = locator.evaluate(_SPOKEN_TEXT)
    return text


_COUNT_SUFFIX = re.compile(r"\s*\(\d+\)$")


def option_text(text: str) -> str:
    """An option's words without the row count a filter option may carry ("Books (12)" → "Books")."""
    return _COUNT_SUFFIX.sub("", " ".join(text.split()))


_OPTIONS = "(select) => [...select.options].map((o) => [o.value, o.textContent || ''])"


def options_of(select: Locator) -> list[tuple[str, str]]:
    """(value, words) of every option of a select, in order."""
    pairs: list[list[str]] = select.evaluate(_OPTIONS)
    return [(value, option_text(text)) for value, text in pairs]


_OFFERS_TEXT = """([select, wanted]) => [...select.options].some(
  (o) => (o.textContent || "").replace(/\\s+/g, " ").trim().replace(/\\s*\\(\\d+\\)$/, "") === wanted)"""


def choose_option(session: Session, select: Locator, wanted: str, what: str, prefer: str | None = None) -> str:
    """Choose the option whose visible words are `wanted`, as a user picks from a list; returns its value.

    Options may still be loading, so this waits until one reads `wanted`. Two options that read alike
    cannot be told apart by a user; `prefer` (the value the claim means) breaks such a tie.
    """
    try:
        session.page.wait_for_function(_OFFERS_TEXT, arg=[select.element_handle(), wanted], timeout=session.timeout_ms)
    except PlaywrightError as exc:
        offered = [text for _, text in options_of(select)]
        raise UiCheckFailed(f"{what} offers no option {wanted!r} on {session.path} (offers {offered[:10]})") from exc
    matching = [value for value, text in options_of(select) if text == wanted]
    value = prefer if prefer is not None and prefer in matching else matching[0]
    select.select_option(value=value)
    return value
