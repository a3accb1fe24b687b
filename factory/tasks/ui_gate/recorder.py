"""One `solve` call's recorder: the page, every user action with the URL after it, the READ's
answer and the screenshots, plus the URL helpers the solver's steps wait on.

A URL is recorded as path and query only, so that a trajectory does not depend on the server's port.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from factory.runtime.browser import describe_failure
from factory.spec.model import Spec
from factory.tasks.ui_gate.trajectory import StepFailed

JPEG_QUALITY = 50


def _relative(url: str) -> str:
    """The URL's path and query (no scheme, host or port)."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def url_query(url: str) -> dict[str, str]:
    """The URL's query parameters, the last value of each."""
    return {key: values[-1] for key, values in parse_qs(urlsplit(url).query).items()}


def query_is(key: str, value: str) -> Callable[[str], bool]:
    """A URL test: the query's `key` reads `value` (bound now, not when the test runs)."""
    return lambda url: url_query(url).get(key) == value


class Run:
    """One `solve` call: the page, the recorded actions and the screenshots."""

    def __init__(self, page: Page, base_url: str, spec: Spec, shots: Path | None, timeout_ms: int) -> None:
        self.page, self.base_url, self.spec, self.shots, self.timeout_ms = page, base_url, spec, shots, timeout_ms
        self.actions: list[dict[str, Any]] = []
        self.message = ""
        self.answer: str | None = None

    @property
    def path(self) -> str:
        return _relative(self.page.url)

    @contextmanager
    def act(self, action: str, target: str, value: str | None = None) -> Iterator[None]:
        """Record the user action the block performs; a Playwright failure fails the step, naming the target."""
        try:
            yield
        except (PlaywrightError, AssertionError) as exc:
            self.record(action, target, value)
            raise StepFailed(f"{action} {target}: {describe_failure(exc, self.path)}") from exc
        self.record(action, target, value)

    def record(self, action: str, target: str, value: str | None) -> None:
        self.actions.append({"n": len(self.actions) + 1, "action": action, "target": target, "value": value,
                             "url": self.path, "screenshot": None})

    def wait_url(self, ready: Callable[[str], bool]) -> None:
        # The app changes its URL with the History API; Playwright sees that as a navigation.
        self.page.wait_for_url(ready, wait_until="commit", timeout=self.timeout_ms)

    def shoot(self) -> None:
        """A small JPEG of the viewport, attached to the latest action (once)."""
        if self.shots is None or not self.actions or self.actions[-1]["screenshot"]:
            return
        name = f"{self.actions[-1]['n']}.jpg"
        try:
            self.shots.mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(self.shots / name), type="jpeg", quality=JPEG_QUALITY)
        except PlaywrightError:
            return  # a crashed page cannot be photographed; the message still says what failed
        self.actions[-1]["screenshot"] = name

    def check_texts(self, texts: list[str]) -> None:
        for text in texts:
            with self.act("read", f'text "{text}"', text):
                expect(self.page.get_by_text(text).filter(visible=True).first).to_be_visible(timeout=self.timeout_ms)
