"""Every page of the app as each persona sees it: the world's app on a private database copy, a
Chromium context per persona signed in through the app's own login page, one PNG per page.

Personas (`choose_personas`): the spec's first user (the one `make serve` signs in and the UI
claims act as), then the users the most tasks act as (ties by username), at most `count` of them.
A page with a row id in its path (`/accounts/:id`) shows the first row the persona's own list of
that entity holds; a persona who sees no such row gets a note instead of a picture. The login page
is taken once, signed out.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, ViewportSize, expect

from factory import progress
from factory.review.model import PageShot, Persona
from factory.runtime.browser import login
from factory.runtime.lanes import Lane, run_lanes
from factory.spec.model import PageSpec, Spec
from factory.verify.ui_session import Session, settle
from factory.world.layout import World

log = logging.getLogger(__name__)

VIEWPORT: ViewportSize = {"width": 1280, "height": 800}
TIMEOUT_MS = 15_000
SIGNED_OUT = "signed out"


def choose_personas(spec: Spec, records: list[dict[str, Any]], count: int = 3) -> list[Persona]:
    """At most `count` users, in a fixed order (see the module's docstring)."""
    acting = Counter(str(r.get("metadata", {}).get("acting_user", "")) for r in records)
    names = {u.username: u.name for u in spec.users}
    chosen: list[Persona] = []
    if spec.users:
        first = spec.users[0]
        chosen.append(Persona(username=first.username, name=first.name,
                              why="the world's first user (make serve signs in as them; the UI claims act as them)"))
    for username, n in sorted(acting.items(), key=lambda kv: (-kv[1], kv[0])):
        if len(chosen) >= count:
            break
        if username in names and all(p.username != username for p in chosen):
            chosen.append(Persona(username=username, name=names[username], why=f"{n} tasks act as them"))
    return chosen[:count]


@dataclass(frozen=True)
class _Job:
    persona: Persona
    password: str
    signed_out: bool  # also take the login page before signing in


def _file(persona: str, page_id: str) -> str:
    return f"screens/{re.sub(r'[^A-Za-z0-9_-]+', '_', persona)}/{re.sub(r'[^A-Za-z0-9_-]+', '_', page_id)}.png"


def _first_row(session: Session, spec: Spec, page: PageSpec) -> int | None:
    entity = spec.entity(page.entity) if page.entity else None
    if entity is None:
        return None
    body = session.api_json(f"/api/{entity.path}", {"page_size": 1})
    items = body.get("items") or []
    return int(items[0]["id"]) if items else None


def _shoot(session: Session, page: PageSpec, path: str, persona: str, out: Path) -> PageShot:
    p = session.page
    errors_before = len(session.console_errors)
    p.goto(f"{session.base_url}{path}")
    note = ""
    # the login page has a form and no app shell; every other page renders a heading in its main area
    ready = p.get_by_label("Username") if page.kind == "login" else p.get_by_role("main").get_by_role("heading").first
    try:
        expect(ready).to_be_visible(timeout=session.timeout_ms)
    except AssertionError:
        note = "not ready (no heading in its main area) within the timeout"
    settle(session)
    target = out / _file(persona, page.id)
    target.parent.mkdir(parents=True, exist_ok=True)
    p.screenshot(path=str(target))
    fresh = session.console_errors[errors_before:]
    if fresh:
        note = "; ".join(filter(None, [note, f"console: {fresh[0]}"]))
    return PageShot(page_id=page.id, path=path, title=page.title, persona=persona, image=_file(persona, page.id), note=note)


def _persona_pages(lane: Lane, spec: Spec, job: _Job, out: Path, advance: progress.Advance) -> list[PageShot]:
    context = lane.browser().new_context(viewport=VIEWPORT)
    try:
        context.set_default_timeout(TIMEOUT_MS)
        page: Page = context.new_page()
        session = Session(context, page, lane.server.url, spec, TIMEOUT_MS)
        session.watch_network()
        page.on("console", lambda m: session.console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: session.console_errors.append(f"uncaught: {e}"))
        shots: list[PageShot] = []
        if job.signed_out:
            for p in (p for p in spec.pages if p.kind == "login"):
                shots.append(_shoot(session, p, p.path, SIGNED_OUT, out))
        login(page, session.base_url, job.persona.username, job.password)
        for p in spec.pages:
            if p.kind == "login":
                continue
            path = p.path
            if ":id" in path:
                row = _first_row(session, spec, p)
                if row is None:
                    shots.append(PageShot(page_id=p.id, path=path, title=p.title, persona=job.persona.username, image=None,
                                          note=f"{job.persona.username} sees no {p.entity} row"))
                    advance(1)
                    continue
                path = path.replace(":id", str(row))
            try:
                shots.append(_shoot(session, p, path, job.persona.username, out))
            except PlaywrightError as exc:  # one page that cannot be shown must not cost the others
                log.warning("review: %s as %s: %s", path, job.persona.username, exc)
                shots.append(PageShot(page_id=p.id, path=path, title=p.title, persona=job.persona.username, image=None,
                                      note=f"could not be shown: {' '.join(str(exc).split())[:200]}"))
            advance(1)
        return shots
    finally:
        context.close()


def take_screens(world: World, personas: list[Persona], out: Path, workers: int = 2) -> list[PageShot]:
    """Every page of the spec as each persona sees it, written under `out/screens/`; in persona order,
    then page order (the signed-out login page first)."""
    if not personas:
        return []
    spec = world.spec
    passwords = {u.username: u.password for u in spec.users}
    jobs = [_Job(p, passwords[p.username], i == 0) for i, p in enumerate(personas)]
    pages = sum(1 for p in spec.pages if p.kind != "login")
    with progress.task("screenshot every page as each persona", total=pages * len(jobs)) as advance:
        found = run_lanes(world.root, jobs, lambda lane, job: _persona_pages(lane, spec, job, out, advance),
                          lanes=workers, work=None, start_db=world.seed_db, name="review-screens")
    return [shot for shots in found for shot in shots]


__all__ = ["SIGNED_OUT", "choose_personas", "take_screens"]
