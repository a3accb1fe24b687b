"""Noisy mode and the oracle, against a real episode server subprocess and real Chromium.

Noisy mode: a seed decides which perturbation shows on which navigation (the same seed, the same
ones in the same order), every kind shows for some seed, is marked for a harness, covers none of the
app's controls unless it is a modal prompt, touches nothing of the app's own DOM, and goes away
with its own button (a modal prompt also with Escape); each one shown and dismissed is an episode
event; some API answers come late, by the seed; a clean episode is served byte for byte as before.

The oracle: every task of the mock corpus, replayed through launch URLs in Chromium, grades 1
clean and noisy, and its rollout records validate.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from episodes import noise
from episodes.client import AgentSession
from episodes.rollouts import Rollout, read_rollouts
from factory.runtime.server import free_port

pytestmark = pytest.mark.ui

REPO = Path(__file__).resolve().parents[2]
TOKEN = "test-token-noise-0123456789"
CONTROLS = "a[href], button, input, select, textarea, [role=button], [role=link]"
WAIT_NONE_S = noise.DELAY_MS[1] / 1000 + 0.6  # long enough for a planned perturbation to have shown


class Served:
    """One episode server (both ports) on free ports, keeping its rollouts in a file."""

    def __init__(self, world: Path, rollouts: Path) -> None:
        self.port, self.eval_port = free_port(), free_port()
        self.agent = f"http://127.0.0.1:{self.port}"
        self.eval_url = f"http://127.0.0.1:{self.eval_port}"
        self.rollouts = rollouts
        self.evaluator = httpx.Client(base_url=self.eval_url, headers={"authorization": f"Bearer {TOKEN}"}, timeout=60)
        self.log = rollouts.parent / f"episodes-{self.port}.log"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "episodes", "serve", str(world), "--port", str(self.port),
             "--eval-port", str(self.eval_port), "--token", TOKEN, "--max-episodes", "64", "--rollouts", str(rollouts)],
            cwd=REPO, stdout=self.log.open("wb"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()
            try:
                if self.evaluator.get("/health").status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.1)
        raise AssertionError(f"episode server did not start: {self.log.read_text()}")

    def create(self, **body: Any) -> dict[str, Any]:
        response = self.evaluator.post("/episodes", json=body)
        assert response.status_code == 201, response.text
        return dict(response.json())

    def events(self, episode_id: str) -> list[dict[str, Any]]:
        return list(self.evaluator.get(f"/episodes/{episode_id}/events").json()["events"])

    def noise_events(self, episode_id: str, want: int = 0, timeout: float = 10.0) -> list[dict[str, Any]]:
        """The episode's events of perturbations its pages showed (not its late API answers), once
        there are at least `want` (beacons arrive on their own time)."""
        deadline = time.monotonic() + timeout
        while True:
            found = [e for e in self.events(episode_id) if e["kind"] == "noise" and e["noise"] != noise.SLOW_RESPONSE]
            if len(found) >= want or time.monotonic() > deadline:
                return found
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        self.evaluator.close()


@pytest.fixture(scope="module")
def world(mock_tasks_world: Path) -> Path:
    return mock_tasks_world


@pytest.fixture(scope="module")
def served(world: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = Served(world, tmp_path_factory.mktemp("noise") / "rollouts.jsonl")
    yield server
    server.stop()


@pytest.fixture()
def new_page(browser: Browser) -> Iterator[Callable[[], Page]]:
    """Fresh browser contexts (fresh cookies and storage), closed after the test."""
    contexts = []

    def make() -> Page:
        context = browser.new_context(viewport={"width": 1100, "height": 800})
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def _seed(wanted: Callable[[list[noise.Perturbation]], bool]) -> int:
    return next(seed for seed in range(100_000) if wanted(noise.plan(seed)))


def _first(kind: str) -> int:
    """A seed whose first page shows `kind`."""
    return _seed(lambda p: bool(p) and p[0].nav == 1 and p[0].kind == kind)


def _shown(page: Page) -> list[tuple[int, str]]:
    return [(int(nav), kind) for nav, kind in page.locator("[data-noise]").evaluate_all(
        "els => els.map(e => [e.getAttribute('data-noise-nav'), e.getAttribute('data-noise')])")]


def _dismiss_all(page: Page) -> None:
    for _ in range(6):
        boxes = page.locator("#noise-root [data-noise]")
        if not boxes.count():
            return
        boxes.last.locator("[data-noise-dismiss]").first.click()


def _walk(page: Page, agent: str, launch_url: str, paths: list[str], plan: list[noise.Perturbation]) -> list[tuple[int, str]]:
    """Open the launch URL, then each path; after every navigation wait for what `plan` shows there
    (or long enough for anything to show), note it and dismiss it."""
    planned = {p.nav: p for p in plan}
    seen: list[tuple[int, str]] = []
    for nav, target in enumerate([launch_url, *(agent + path for path in paths)], start=1):
        page.goto(target)
        expect(page.get_by_test_id("logout")).to_be_visible()
        if nav in planned:
            expect(page.locator(f'[data-noise-nav="{nav}"]')).to_be_visible()
        else:
            time.sleep(WAIT_NONE_S)
        seen += _shown(page)
        _dismiss_all(page)
    return seen


# ---- noisy mode ---------------------------------------------------------------------------------
def test_the_plan_is_a_function_of_the_seed() -> None:
    assert noise.plan(11) == noise.plan(11) and noise.plan(11) != noise.plan(12)
    assert [noise.slow_ms(11, n) for n in range(1, 200)] == [noise.slow_ms(11, n) for n in range(1, 200)]
    for seed in range(50):
        kinds = [p.kind for p in noise.plan(seed)]
        assert all(kinds.count(k) <= 1 for k in noise.ONCE), kinds  # a modal prompt comes once
        assert all(noise.DELAY_MS[0] <= p.delay_ms <= noise.DELAY_MS[1] for p in noise.plan(seed))
    shown = {p.kind for seed in range(20) for p in noise.plan(seed)}
    assert shown == set(noise.KINDS)


def test_clean_episodes_are_served_as_before(served: Served, world: Path, new_page: Callable[[], Page]) -> None:
    episode = served.create()
    assert episode["noise_seed"] is None
    with httpx.Client(base_url=served.agent, timeout=30) as agent:
        assert agent.get(episode["launch_url"]).status_code == 303
        html = agent.get("/", headers={"accept": "text/html"})
        assert html.content == (world / "app" / "frontend" / "dist" / "index.html").read_bytes()
        assert "etag" in html.headers and "no-store" not in html.headers.get("cache-control", "")
        # the beacons are not there for a clean episode (nor for anyone without an episode)
        assert agent.post(noise.SEEN, content=json.dumps({"kind": "toast", "nav": 1})).status_code == 404
    assert httpx.post(served.agent + noise.SEEN, content=b"{}").status_code == 404
    browsed = served.create()
    page = new_page()
    assert _walk(page, served.agent, browsed["launch_url"], ["/notes", "/notebooks"], []) == []
    assert page.locator("[data-noise], #noise-root, script[data-noise-script], style[data-noise-style]").count() == 0
    assert not served.noise_events(episode["episode_id"]) and not served.noise_events(browsed["episode_id"])


def test_noise_is_deterministic_for_a_seed(served: Served, new_page: Callable[[], Page]) -> None:
    seed = _seed(lambda p: sum(x.nav <= 4 for x in p) >= 3)
    other = _seed(lambda p: [x.kind for x in p if x.nav <= 4] not in ([], [y.kind for y in noise.plan(seed) if y.nav <= 4]))
    paths = ["/notes", "/notebooks", "/notes"]
    runs = []
    for chosen in (seed, seed, other):
        episode = served.create(noise_seed=chosen)
        plan = [p for p in noise.plan(chosen) if p.nav <= 1 + len(paths)]
        seen = _walk(new_page(), served.agent, episode["launch_url"], paths, plan)
        assert seen == [(p.nav, p.kind) for p in plan], f"seed {chosen}: planned {plan}, shown {seen}"
        events = served.noise_events(episode["episode_id"], want=2 * len(plan))
        assert [(e["nav"], e["noise"]) for e in events if e["action"] == "shown"] == seen
        assert sorted((e["nav"], e["noise"]) for e in events if e["action"] == "dismissed") == sorted(seen)
        runs.append(seen)
    print(f"\nseed {seed} shows {runs[0]} on navigations 1-4, twice; seed {other} shows {runs[2]}")
    assert runs[0] == runs[1] != runs[2]


@pytest.mark.parametrize("kind", noise.KINDS)
def test_every_kind_shows_is_marked_and_goes_away(served: Served, new_page: Callable[[], Page], kind: str) -> None:
    seed = _first(kind)
    first = noise.plan(seed)[0]
    title, _message = noise.TEXTS[kind][first.variant]
    modal = kind in noise.MODALS
    ways = ["button", "escape"] if modal else ["button"]
    for way in ways:
        episode = served.create(noise_seed=seed)
        page = new_page()
        page.goto(episode["launch_url"])
        box = page.locator(f'#noise-root [data-noise="{kind}"]')
        expect(box).to_be_visible()
        # marked for a harness: its role and accessible name, a dismissing button
        role = "dialog" if modal or kind == noise.OVERLAY else "alert"
        expect(page.get_by_role(role, name=title)).to_be_visible()
        assert box.get_attribute("aria-modal") == ("true" if modal else None)
        assert box.locator("[data-noise-dismiss]").count() == len(noise.BUTTONS[kind])
        # outside the app's own DOM, which it leaves as it was (once the page has loaded its data)
        assert page.locator("#root [data-noise]").count() == 0
        page.wait_for_load_state("networkidle")
        app = page.locator("#root").inner_html()
        if not modal:  # a toast, notification or overlay covers none of the app's controls
            covered = page.evaluate(
                """([box, controls]) => { const b = document.querySelector(box).getBoundingClientRect();
                   return Array.from(document.querySelectorAll('#root ' + controls.split(', ').join(', #root ')))
                     .map(c => [c, c.getBoundingClientRect()]).filter(([c, r]) => r.width && r.height &&
                       r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom)
                     .map(([c]) => c.outerHTML.slice(0, 80)); }""",
                [f'#noise-root [data-noise="{kind}"]', CONTROLS])
            assert covered == [], covered
        if way == "escape":
            page.keyboard.press("Escape")
        else:
            name = noise.BUTTONS[kind][0]
            button = box.get_by_role("button", name=name if modal else f"{name} “{title}”", exact=True)
            button.click()
        expect(box).to_have_count(0)
        expect(page.get_by_test_id("logout")).to_be_enabled()
        assert page.locator("#root").inner_html() == app
        events = served.noise_events(episode["episode_id"], want=2)
        assert [(e["noise"], e["action"], e["nav"]) for e in events] == [(kind, "shown", 1), (kind, "dismissed", 1)]
        assert events[1]["how"] == way
        print(f"{kind} (seed {seed}): {role} {title!r}, dismissed by {way}")


def test_a_toast_also_goes_away_by_itself(served: Served, new_page: Callable[[], Page]) -> None:
    episode = served.create(noise_seed=_first(noise.TOAST))
    page = new_page()
    page.goto(episode["launch_url"])
    box = page.locator('[data-noise="toast"]')
    expect(box).to_be_visible()
    expect(box).to_have_count(0, timeout=noise.TOAST_MS + 5000)
    events = served.noise_events(episode["episode_id"], want=2)
    assert events[-1]["action"] == "dismissed" and events[-1]["how"] == "timeout"


def test_a_noisy_api_request_is_answered_late_and_recorded(served: Served) -> None:
    seed = next(s for s in range(100_000) if noise.slow_ms(s, 1) >= 600 and not noise.slow_ms(s, 2))
    delay = noise.slow_ms(seed, 1)
    timings = {}
    for chosen in (seed, None):
        episode = served.create(noise_seed=chosen)
        with AgentSession(episode["launch_url"]) as agent:
            started = time.perf_counter()
            agent.get("/api/auth/me")
            first = time.perf_counter() - started
            started = time.perf_counter()
            agent.get("/api/auth/me")
            timings[chosen] = (first, time.perf_counter() - started)
        slow = [e for e in served.events(episode["episode_id"]) if e["kind"] == "noise"]
        if chosen is None:
            assert slow == []
        else:
            assert slow == [{**slow[0], "noise": "slow_response", "action": "delayed", "path": "/api/auth/me",
                             "ms": delay, "request": 1}]
    print(f"\nseed {seed}: the first API answer came after {timings[seed][0]:.2f}s (planned {delay} ms), the "
          f"second after {timings[seed][1]:.2f}s; clean: {timings[None][0]:.2f}s, {timings[None][1]:.2f}s")
    assert timings[seed][0] >= delay / 1000
    assert timings[seed][1] < delay / 1000 and timings[None][0] < delay / 1000


def test_a_late_answer_whose_state_was_reset_meanwhile_is_refused_not_served_on_an_empty_file(served: Served) -> None:
    import threading

    seed = next(s for s in range(100_000) if noise.slow_ms(s, 1) >= 800)
    episode = served.create(noise_seed=seed)
    answers: list[httpx.Response] = []
    with AgentSession(episode["launch_url"]) as agent:
        late = threading.Thread(target=lambda: answers.append(agent.request("GET", "/api/auth/me")))
        late.start()
        time.sleep(0.3)  # the request is waiting out its delay
        assert served.evaluator.post(f"/episodes/{episode['episode_id']}/reset").status_code == 200
        late.join(timeout=30)
    assert answers and answers[0].status_code == 410, answers and answers[0].text
    assert "reset or ended while the request waited" in answers[0].json()["detail"]
    assert not [e for e in served.events(episode["episode_id"]) if e["kind"] == "exception"]


def test_a_prompt_that_covers_the_one_being_dismissed_does_not_stall_the_action(served: Served,
                                                                                  new_page: Callable[[], Page]) -> None:
    from factory.agents.oracle import TIMEOUT_MS, watch_noise

    episode = served.create(noise_seed=_first("survey"))
    page = new_page()
    page.goto(episode["launch_url"])
    expect(page.locator('[data-noise="survey"]')).to_be_visible()
    # the race the oracle met: as its click on the prompt's button goes down, another prompt shows
    # over it (a copy of the first, above it, gone by its own button), so the click lands on that one
    page.evaluate("""() => {
      const outer = document.querySelector('[data-noise-backdrop]');
      outer.querySelector('[data-noise-dismiss]').addEventListener('mousedown', () => {
        const copy = outer.cloneNode(true);
        copy.style.zIndex = String(Number(outer.style.zIndex) + 5);
        copy.querySelector('[data-noise]').setAttribute('data-noise-nav', '99');
        copy.querySelectorAll('[data-noise-dismiss]').forEach(b => b.addEventListener('click', () => copy.remove()));
        outer.parentNode.appendChild(copy);
      }, {once: true});
    }""")
    dismisser = watch_noise(page, TIMEOUT_MS)
    page.get_by_test_id("logout").click(timeout=TIMEOUT_MS // 2)  # the action waits while both go
    assert _shown(page) == [] and dismisser.count == 2


def test_beacons_are_checked_and_never_reach_the_app(served: Served) -> None:
    episode = served.create(noise_seed=3)
    with httpx.Client(base_url=served.agent, timeout=30) as agent:
        agent.get(episode["launch_url"])
        assert agent.post(noise.SEEN, content=b'{"kind": "toast", "nav": 2}').status_code == 204
        for bad in (b"not json", b'{"kind": "virus", "nav": 1}', b'{"kind": "toast", "nav": -1}', b"x" * 5000):
            assert agent.post(noise.SEEN, content=bad).status_code == 204
        assert agent.get(noise.SEEN).status_code == 404
        assert agent.post("/__noise/other", content=b"{}").status_code == 404
    events = served.events(episode["episode_id"])
    assert [(e["noise"], e["action"], e["nav"]) for e in events if e["kind"] == "noise"] == [("toast", "shown", 2)]
    assert not [e for e in events if e["kind"] == "request" and e["path"].startswith("/__")]


def test_reset_keeps_or_changes_the_noise_seed(served: Served) -> None:
    episode = served.create(noise_seed=5)
    url = f"/episodes/{episode['episode_id']}/reset"
    assert served.evaluator.post(url).json()["noise_seed"] == 5  # no body: kept
    assert served.evaluator.post(url, json={}).json()["noise_seed"] == 5
    assert served.evaluator.post(url, json={"noise_seed": 9}).json()["noise_seed"] == 9
    assert served.evaluator.post(url, json={"noise_seed": None}).json()["noise_seed"] is None
    for bad in ("5", True, -1, 1.5):
        assert served.evaluator.post("/episodes", json={"noise_seed": bad}).status_code == 422, bad
        assert served.evaluator.post(url, json={"noise_seed": bad}).status_code == 422, bad


# ---- the oracle -----------------------------------------------------------------------------------
def test_the_oracle_scores_1_on_every_task_clean_and_noisy(served: Served, world: Path) -> None:
    from factory.agents.oracle import run_oracle

    types = {t["id"]: t["task_type"] for t in map(json.loads, (world / "tasks" / "tasks.jsonl").read_text().splitlines())}
    tasks = len(types)
    outcome: dict[str, list[Rollout]] = {}
    for name, seed in (("clean", None), ("noisy", 7)):
        started = time.perf_counter()
        outcome[name] = run_oracle(world, served.eval_url, TOKEN, noise_seed=seed, workers=2)
        passed = sum(r.reward == 1.0 for r in outcome[name])
        dismissed = sum(a.kind == "dismiss" for r in outcome[name] for a in r.actions)
        print(f"\noracle {name}: {passed}/{len(outcome[name])} tasks graded 1 in {time.perf_counter() - started:.1f}s, "
              f"{dismissed} perturbations dismissed")
    for name, rollouts in outcome.items():
        assert len(rollouts) == tasks
        failed = {r.task_id: (r.reward, r.grade and r.grade.get("explanation")) for r in rollouts if r.reward != 1.0}
        assert not failed, f"{name}: {failed}"
        for r in rollouts:
            assert r.agent == "oracle" and (r.noise_seed is None) == (name == "clean")
            assert r.actions[0].kind == "navigate" and not any(a.kind == "login" for a in r.actions)
            times = [a.t for a in r.actions]
            assert times == sorted(times) and times[-1] > 0
            assert (r.answer is not None) == (types[r.task_id] == "read"), r  # a READ answers what the page showed
            Rollout.model_validate_json(r.model_dump_json(by_alias=True))
    assert not any(a.kind == "dismiss" for r in outcome["clean"] for a in r.actions)
    assert any(a.kind == "dismiss" for r in outcome["noisy"] for a in r.actions)
    # the server wrote them too: every line a valid record, noise events kept beside them
    records, errors = read_rollouts(served.rollouts)
    assert not errors
    ours = [r for r in records if r.agent == "oracle"]
    assert len(ours) == 2 * tasks
    noisy_events = []
    for r in ours:
        assert r.events_file is not None
        kept = json.loads((served.rollouts.parent / r.events_file).read_text())
        noisy_events += [e for e in kept["events"] if e["kind"] == "noise"]
        if r.noise_seed is None:
            assert not [e for e in kept["events"] if e["kind"] == "noise"]
    shown = sum(e["action"] == "shown" for e in noisy_events)
    print(f"noisy run: {shown} perturbations shown, {sum(e['noise'] == 'slow_response' for e in noisy_events)} "
          f"slow responses, by the server's events")
    assert shown >= 1
