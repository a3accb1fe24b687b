"""A list page as the solver works it: its filter panel, the answers the page receives, the total
its pagination bar states, its next page, and opening one of its rows.

`ListWatch` keeps the list answers the page receives, so that what is read off the table is read
only once the table shows the answer to the page's current URL.
"""

from __future__ import annotations

import re
import time
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Response, expect

from factory.spec.model import EntitySpec, FilterSpec
from factory.tasks.ui_gate.recorder import Run, query_is, url_query
from factory.tasks.ui_gate.trajectory import StepFailed, TrajectoryError

# "Showing 1–5 of 12" or "No results" in the pagination bar: where the list page states its total
# (read from its `list-total` test id's `data-total` when the world has one, see read_total).
SHOWING = re.compile(r"^(Showing \d+–\d+ of (\d+)|No results)$")  # no named group: it also runs in JS
_ROWS_ARE = """([pattern, want]) => {
  const re = new RegExp(pattern);
  const got = [...document.querySelectorAll("[data-testid]")].map((e) => e.dataset.testid).filter((t) => re.test(t));
  return got.length === want.length && got.every((t, i) => t === want[i]);
}"""


def filter_named(entity: EntitySpec, name: str) -> FilterSpec:
    """The entity's filter on field `name`; a trajectory naming another is malformed."""
    try:
        return entity.filter_on(name)
    except KeyError as exc:
        raise TrajectoryError(exc.args[0]) from exc


def filter_depth(entity: EntitySpec, flt: FilterSpec) -> int:
    """How deep a filter is nested (a parent cycle cannot loop)."""
    depth, parent, seen = 0, flt.parent, {flt.field}
    while parent and parent not in seen:
        seen.add(parent)
        depth += 1
        parent = next((f.parent for f in entity.filters if f.field == parent), None)
    return depth


class ListWatch:
    """The list answers the page received, so a total is read only once it matches the page's URL."""

    def __init__(self, run: Run, entity: EntitySpec) -> None:
        self.run, self.entity, self.api = run, entity, f"/api/{entity.path}"
        self.keys = {"q", "sort", "page"}
        for f in entity.filters:
            self.keys |= {f"{f.param}_min", f"{f.param}_max"} if f.kind in ("range", "date_range") else {f.param}
        self.answers: list[Response] = []
        run.page.on("response", self._seen)

    def _seen(self, response: Response) -> None:
        if response.request.method == "GET" and urlsplit(response.url).path == self.api:
            self.answers.append(response)

    def close(self) -> None:
        self.run.page.remove_listener("response", self._seen)

    def settle(self) -> dict[str, Any]:
        """Wait for the answer to the page's current query and for the table to show its rows."""
        run = self.run
        want = {k: v for k, v in url_query(run.page.url).items() if k in self.keys}
        # The list page always sends its page size; the home page's count requests send 1.
        want["page_size"] = str(self.entity.page_size)

        def answered() -> Response | None:
            return next((r for r in reversed(self.answers) if url_query(r.url) == want), None)

        deadline = time.monotonic() + run.timeout_ms / 1000
        while (answer := answered()) is None:
            if time.monotonic() > deadline:
                raise StepFailed(f"the {self.entity.plural.lower()} list never answered {want} on {run.path}")
            run.page.wait_for_timeout(20)  # a readiness poll: lets Playwright deliver the events it holds
        if not answer.ok:
            raise StepFailed(f"GET {self.api} answered {answer.status} to the page on {run.path}")
        try:
            body: dict[str, Any] = answer.json()
        except PlaywrightError:  # Chromium may evict a body; the same GET with the same cookies answers alike
            body = run.page.context.request.get(answer.url).json()
        ids = [f"row-{self.entity.name}-{item['id']}" for item in body["items"]]
        try:
            run.page.wait_for_function(_ROWS_ARE, arg=[rf"^row-{re.escape(self.entity.name)}-\d+$", ids],
                                       timeout=run.timeout_ms)
        except PlaywrightError as exc:
            raise StepFailed(f"the {self.entity.plural.lower()} table never showed the rows it was sent "
                             f"on {run.path}") from exc
        return body


def _set_range(run: Run, entity: EntitySpec, flt: FilterSpec, value: Any) -> None:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TrajectoryError(f"range filter {entity.name}.{flt.field} needs a (min, max) pair, got {value!r}")
    dates = flt.kind == "date_range"
    money = any(f.name == flt.field and f.type == "money" for f in entity.fields)
    panel = run.page.get_by_role("region", name="Filters")
    for word, suffix, bound in zip(("From", "To") if dates else ("Min", "Max"), ("min", "max"), value, strict=True):
        if bound is None:
            continue
        typed = str(bound)[:10] if dates else f"{int(bound) / 100:.2f}" if money else str(bound)
        sent = str(int(bound)) if money else typed  # the page puts cents into the URL
        label = f"{word} {flt.label.lower()}"
        with run.act("filter", f'label "{label}"', typed):
            box = panel.get_by_label(label, exact=True)
            # Typed bounds commit after the box's typing pause. Not Enter: the box's pending pause
            # would commit again later from a stale URL and drop the filters set in between.
            box.fill(typed)
            run.wait_url(query_is(f"{flt.param}_{suffix}", sent))


def set_filter(run: Run, entity: EntitySpec, flt: FilterSpec, value: Any) -> None:
    if flt.kind in ("range", "date_range"):
        _set_range(run, entity, flt, value)
        return
    text = ("true" if value else "false") if flt.kind == "bool" else str(value)
    select = run.page.get_by_test_id(f"filter-{entity.name}-{flt.field}")
    with run.act("filter", f'filter "{flt.label}" (filter-{entity.name}-{flt.field})', text):
        # Options of a reference or nested filter load after the page (or after the parent changed).
        expect(select.locator("option", has_text="Loading…")).to_have_count(0, timeout=run.timeout_ms)
        select.select_option(value=text)
        run.wait_url(lambda url: url_query(url).get(flt.param) == text)


def shown_total(run: Run, entity: EntitySpec) -> tuple[int, str]:
    """The total the pagination bar states, and its text: the `list-total` test id locates the
    text when the world has one (older worlds: the "Showing 1–5 of 12" / "No results" text)."""
    bar = run.page.get_by_role("navigation", name="Pagination")
    tagged = bar.get_by_test_id("list-total")
    with run.act("read", 'navigation "Pagination"'):
        # `settle` saw the table's rows, and the bar renders with them: no wait is needed to tell.
        shown = tagged if tagged.count() else bar.get_by_text(SHOWING)
        expect(shown).to_be_visible(timeout=run.timeout_ms)
        text = shown.inner_text().strip()
    run.actions[-1]["value"] = text
    # The number a reader sees, not the element's `data-total`: a page that states a wrong total
    # must give a wrong answer.
    if text.isdigit():
        return int(text), text
    if match := SHOWING.match(text):
        return (int(match.group(2)) if match.group(2) else 0), text
    raise StepFailed(f"the {entity.plural.lower()} list states no total in {text!r}")


def read_total(run: Run, entity: EntitySpec, answered: int, expected: int) -> None:
    """Check the total the pagination bar states against the list's answer and the expected one."""
    total, text = shown_total(run, entity)
    if total != answered:
        raise StepFailed(f"the {entity.plural.lower()} list says {text!r} but was sent {answered} rows")
    if total != expected:
        raise StepFailed(f"the {entity.plural.lower()} list shows {total} matching rows ({text!r}), expected {expected}")


def next_page(run: Run, watch: ListWatch) -> dict[str, Any] | None:
    """Go to the list's next page like a user (its Next button); None on the last page."""
    next_page = run.page.get_by_test_id("page-next")
    if not next_page.is_enabled():
        return None
    want = str(int(url_query(run.page.url).get("page") or 1) + 1)
    with run.act("click", 'button "Next →" (page-next)'):
        next_page.click()
        run.wait_url(lambda url: url_query(url).get("page") == want)
    return watch.settle()


def open_row(run: Run, entity: EntitySpec, watch: ListWatch, body: dict[str, Any], row_id: int) -> None:
    page = run.page
    while not any(item["id"] == row_id for item in body["items"]):
        following = next_page(run, watch)
        if following is None:
            break
        body = following
    label = next((str(item["label"]) for item in body["items"] if item["id"] == row_id), None)
    if label is None:
        run.record("open", f"row-{entity.name}-{row_id}", None)
        raise StepFailed(f"{entity.label} #{row_id} is not in the {entity.plural.lower()} list on {run.path}")
    detail = f"/{entity.path}/{row_id}"
    with run.act("open", f'row-{entity.name}-{row_id} › link "{label}"', label):
        page.get_by_test_id(f"row-{entity.name}-{row_id}").get_by_role("link", name=label, exact=True).click()
        run.wait_url(lambda url: urlsplit(url).path == detail)
        expect(page.get_by_test_id(f"detail-{entity.name}")).to_be_visible(timeout=run.timeout_ms)
