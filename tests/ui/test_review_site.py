"""The review site of a proven mock world with a task corpus, checked in real Chromium from file://:
no console errors, every internal link and anchor resolves, every image loads, the filters show the
rows they should; every browser claim's evidence carries its screenshot; the same world renders the
same HTML."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from playwright.sync_api import Browser, Page

from factory.review import ReviewError, build_review
from factory.world.layout import CLAIMS, VERIFICATION, World

PAGES = ["index.html", "pages.html", "claims.html", "tasks.html", "history.html"]


@pytest.fixture(scope="module")
def proven(mock_tasks_world: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the mock task world, proven with its browser claims (claims and verification report)."""
    from factory.prove.graph import run_stage_one

    world = tmp_path_factory.mktemp("review") / "mock"
    shutil.copytree(mock_tasks_world, world)
    run_stage_one(world=str(world), ui=True)
    return world


@pytest.fixture(scope="module")
def site(proven: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "mock"
    built = build_review(proven, out, strips=3, personas=2)
    assert built.shots > 0 and built.strips == 3 and built.pages == len(PAGES)
    return out


@pytest.fixture()
def tab(browser: Browser) -> Iterator[tuple[Page, list[str]]]:
    """A page that records console errors, uncaught errors and failed requests."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
    yield page, problems
    context.close()


def _visible_ids(page: Page, items: str) -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        f'[data-items="{items}"] > .item:not(.hidden)', "els => els.map(e => e.dataset.key)")
    return found


@pytest.mark.ui
def test_every_page_loads_without_errors_and_every_image_loads(site: Path, tab: tuple[Page, list[str]]) -> None:
    page, problems = tab
    images, broken = _broken_images(page, site)
    assert broken == [], f"images that did not load: {broken[:5]}"
    assert problems == []
    # pages: 2 personas' pages and the login page; claims: the UI claims' screenshots; tasks: the strips
    assert images > 40


def _broken_links(page: Page, site: Path) -> tuple[int, list[str]]:
    """How many links, images, styles and scripts the site's pages name, and those that do not resolve
    to a file of the site (or to an anchor of the page they name)."""
    ids: dict[Path, set[str]] = {}

    def ids_of(target: Path) -> set[str]:
        if target not in ids:
            page.goto(target.as_uri())
            ids[target] = set(page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
        return ids[target]

    links: list[tuple[str, str]] = []
    for name in PAGES:
        page.goto((site / name).as_uri())
        found = page.eval_on_selector_all("a[href], img[src], link[href], script[src]",
                                          "els => els.map(e => e.href || e.src)")
        links += [(name, url) for url in found]
    missing = []
    for source, url in links:
        parts = urlsplit(url)
        target = Path(unquote(parts.path))
        if parts.scheme != "file":
            missing.append(f"{source} links outside the site: {url}")
        elif not target.is_file() or not target.resolve().is_relative_to(site.resolve()):
            missing.append(f"{source} → {url}")
        elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in ids_of(target):
            missing.append(f"{source} → {target.name}#{parts.fragment}")
    return len(links), missing


def _broken_images(page: Page, site: Path) -> tuple[int, list[str]]:
    """How many images the site's pages show, and those that did not load."""
    images, broken = 0, []
    for name in PAGES:
        page.goto((site / name).as_uri())  # waits for the load event: every image has arrived or failed
        broken += page.eval_on_selector_all("img", "imgs => imgs.filter(i => !i.complete || i.naturalWidth === 0)"
                                                   ".map(i => i.getAttribute('src'))")
        images += page.locator("img").count()
        assert page.locator("main h1").count() == 1, name
    return images, broken


@pytest.mark.ui
def test_every_internal_link_and_anchor_resolves(site: Path, tab: tuple[Page, list[str]]) -> None:
    page, problems = tab
    links, missing = _broken_links(page, site)
    assert links > 100
    assert missing == []
    assert problems == []


@pytest.mark.ui
def test_the_claim_filters_show_the_claims_chosen(site: Path, proven: Path, tab: tuple[Page, list[str]]) -> None:
    page, problems = tab
    claims = json.loads((proven / CLAIMS).read_text())["claims"]
    page.goto((site / "claims.html").as_uri())
    assert _visible_ids(page, "claims") == [c["id"] for c in claims]
    page.select_option('select[data-filter="layer"]', "frontend")
    frontend = [c["id"] for c in claims if c["layer"] == "frontend"]
    assert 0 < len(frontend) < len(claims)
    assert _visible_ids(page, "claims") == frontend
    page.select_option('select[data-filter="kind"]', "ui_workflow")
    assert _visible_ids(page, "claims") == [c["id"] for c in claims if c["kind"] == "ui_workflow"] != []
    page.select_option('select[data-filter="outcome"]', "failed")  # a proven world: none failed
    assert _visible_ids(page, "claims") == []
    assert page.locator('output[data-shown="claims"]').inner_text() == f"0 of {len(claims)} shown"
    page.select_option('select[data-filter="kind"]', "")
    page.select_option('select[data-filter="layer"]', "")
    page.select_option('select[data-filter="outcome"]', "passed")
    assert len(_visible_ids(page, "claims")) == len(claims)
    assert problems == []


@pytest.mark.ui
def test_the_task_filters_show_the_tasks_chosen(site: Path, proven: Path, tab: tuple[Page, list[str]]) -> None:
    page, problems = tab
    records = [json.loads(line) for line in World(proven).tasks_file.read_text().splitlines() if line.strip()]
    page.goto((site / "tasks.html").as_uri())
    assert _visible_ids(page, "tasks") == [r["id"] for r in records]
    page.select_option('select[data-filter="type"]', "read")
    reads = [r["id"] for r in records if r["task_type"] == "read"]
    assert 0 < len(reads) < len(records) and _visible_ids(page, "tasks") == reads
    page.select_option('select[data-filter="type"]', "")
    workflow = next(s["workflow"] for r in records for s in r["golden_steps"])
    page.select_option('select[data-filter="workflow"]', workflow)
    assert _visible_ids(page, "tasks") == [r["id"] for r in records if any(s["workflow"] == workflow for s in r["golden_steps"])]
    page.select_option('select[data-filter="difficulty"]', "hard")
    assert _visible_ids(page, "tasks") == [r["id"] for r in records if r["difficulty"] == "hard"
                                          and any(s["workflow"] == workflow for s in r["golden_steps"])]
    assert problems == []


@pytest.mark.ui
def test_every_browser_claim_has_its_screenshot_in_the_evidence(site: Path, proven: Path,
                                                                tab: tuple[Page, list[str]]) -> None:
    page, _ = tab
    ui = [c["id"] for c in json.loads((proven / CLAIMS).read_text())["claims"] if c["getter"]["type"] == "ui"]
    results = {r["id"]: r for r in json.loads((proven / VERIFICATION).read_text())["results"]}
    assert ui and all(results[i]["evidence"]["screenshot"] for i in ui)
    assert all((proven / results[i]["evidence"]["screenshot"]).is_file() for i in ui)
    page.goto((site / "claims.html").as_uri())
    shown = page.eval_on_selector_all(".item img.evidence-shot", "imgs => imgs.map(i => i.closest('.item').dataset.key)")
    assert shown == ui


@pytest.mark.ui
def test_a_link_to_a_claim_opens_its_evidence(site: Path, tab: tuple[Page, list[str]]) -> None:
    page, problems = tab
    page.goto((site / "claims.html").as_uri())
    first = page.locator('[data-items="claims"] > .item').first
    anchor = first.get_attribute("id")
    page.goto((site / "claims.html").as_uri() + f"#{anchor}")
    assert page.locator(f"#{anchor} details").evaluate("d => d.open")
    assert problems == []


def test_the_same_world_renders_the_same_html(proven: Path, tmp_path: Path) -> None:
    first = build_review(proven, tmp_path / "a", screens=False)
    second = build_review(proven, tmp_path / "b", screens=False)
    htmls = sorted(p.relative_to(first.path) for p in first.path.rglob("*.html"))
    assert len(htmls) == len(PAGES)
    assert all((first.path / p).read_bytes() == (second.path / p).read_bytes() for p in htmls)
    with pytest.raises(ReviewError, match="not a review site"):  # a folder of something else is never replaced
        (tmp_path / "c").mkdir()
        (tmp_path / "c" / "notes.txt").write_text("mine")
        build_review(proven, tmp_path / "c", screens=False)
    with pytest.raises(ReviewError, match="never writes into the world"):
        build_review(proven, proven / "site", screens=False)


@pytest.mark.ui
def test_a_domain_worlds_site_loads_resolves_and_filters(worlds: object, tab: tuple[Page, list[str]],
                                                         tmp_path_factory: pytest.TempPathFactory) -> None:
    """echobank as built (its claims compiled, not yet verified; no task corpus): every page as its
    first user sees it, every link, image and anchor resolving from file://, no console error, and the
    claim filters choosing exactly the claims of a layer."""
    from factory.claims.compile import compile_claims, write_claims

    world = tmp_path_factory.mktemp("domain-review") / "echobank"
    shutil.copytree(worlds.get("echobank.yaml"), world, ignore=shutil.ignore_patterns("run"))  # type: ignore[attr-defined]
    claims = compile_claims(world)
    write_claims(world, claims)
    site = tmp_path_factory.mktemp("domain-site") / "echobank"
    built = build_review(world, site, strips=0, personas=2)
    # every page of the spec (the login page signed out) as the first user sees it: no task corpus names other personas
    assert built.shots >= len(World(world).spec.pages)
    page, problems = tab
    images, broken = _broken_images(page, site)
    assert broken == [] and images >= built.shots
    links, missing = _broken_links(page, site)
    assert links > 100 and missing == []
    page.goto((site / "claims.html").as_uri())
    page.select_option('select[data-filter="layer"]', "db")
    assert _visible_ids(page, "claims") == [c.id for c in claims.claims if c.layer == "db"] != []
    page.select_option('select[data-filter="outcome"]', "passed")  # compiled, never run: none passed
    assert _visible_ids(page, "claims") == []
    assert problems == []
