"""A build says what each storyline event did, and which workflows the storyline left with no row to
act on (too slow for `factory check`: it needs the seeded database)."""

from __future__ import annotations

from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.compiler.backend import render_backend
from factory.seed.loader import load_seed
from factory.world.assemble import WorldResult, build_world, run_seeder
from factory.world.idle_workflows import idle_workflow_warnings
from factory.world.storyline_counts import EventCount

ROOT = Path(__file__).resolve().parents[2]
MOCK = (ROOT / "seeds" / "mock.yaml").read_text()

# Every note archived by its seed data, and an event that tries to archive each pinned note again:
# refused every time by the first precondition ("Only active notes can be archived.").
ARCHIVED = MOCK.replace("gen: {choices: [active, active, archived]}", "gen: {choices: [archived]}", 1).replace(
    "invariants:", """  - name: tidy_up
    workflow: archive_note
    start: 2026-06-01
    for_each: "n in note where n.pinned"
    actor: n.owner
    params: {note: n}
invariants:""", 1)


def _seeded(text: str, tmp: Path) -> tuple[Path, Path]:
    """The seed written to `tmp` and its database, seeded by the generated seeder (no world)."""
    seed = tmp / "mock.yaml"
    seed.write_text(text)
    render_backend(build_spec(load_seed(seed)), tmp / "app", "0" * 64)
    run_seeder(tmp / "app", tmp / "seed.db")
    return seed, tmp / "seed.db"


@pytest.fixture(scope="module")
def archived(tmp_path_factory: pytest.TempPathFactory) -> tuple[WorldResult, list[str]]:
    said: list[str] = []
    root = tmp_path_factory.mktemp("archived")
    (root / "mock.yaml").write_text(ARCHIVED)
    return build_world(root / "mock.yaml", root / "worlds", progress=said.append, frontend=False), said


def test_the_build_prints_one_line_per_storyline_event(archived: tuple[WorldResult, list[str]]) -> None:
    result, said = archived
    assert [e.name for e in result.events] == ["weekly_touch", "tidy_up"]
    touch, tidy = result.events
    assert touch.ran > 0 and touch.skipped > 0 and touch.rejected == 0 and touch.created == 0
    assert tidy.ran == 0 and tidy.rejected > 0 and tidy.refusal_count == tidy.rejected
    assert tidy.refusal == "Only active notes can be archived."
    lines = [s for s in said if s.startswith("data: storyline ")]
    assert lines == [f"data: {e.line()}" for e in result.events]
    assert lines[1] == (f"data: storyline tidy_up (archive_note): 0 ran, {tidy.rejected} refused "
                        f"(×{tidy.rejected} 'Only active notes can be archived.'); 0 rows created")
    # the manifest keeps the totals it always kept
    assert result.manifest.storyline == {"ran": touch.ran, "rejected": tidy.rejected, "skipped": touch.skipped}


def test_the_build_warns_about_a_workflow_no_row_can_fill(archived: tuple[WorldResult, list[str]]) -> None:
    result, said = archived
    seed = str(result.path.parent.parent / "mock.yaml")
    line = next(i for i, ln in enumerate(ARCHIVED.splitlines(), 1) if "note.status == 'active'" in ln)
    assert result.warnings == [
        f"{seed}:{line}: workflows[1].preconditions[0].check: workflow archive_note: 24 note row(s) can fill 'Note' but "
        "none passes `note.status == 'active'` ('Only active notes can be archived.') after the storyline (there are "
        "24 note rows, all with status 'archived'); add a storyline event that leaves some that pass, or seed some"]
    assert f"warning {result.warnings[0]}" in said


def test_a_where_no_row_satisfies_is_named_at_the_where(tmp_path: Path) -> None:
    text = ARCHIVED.replace("    subject: note\n    params:\n      - {name: note, type: reference, to: note}\n"
                            "    preconditions:\n      - {check: \"note.status == 'active'\"",
                            "    subject: note\n    params:\n      - {name: note, type: reference, to: note, "
                            "where: \"it.status == 'active' and it.priority > 2\"}\n"
                            "    preconditions:\n      - {check: \"note.status == 'active'\"", 1)
    assert "it.priority > 2" in text
    seed, db = _seeded(text, tmp_path)
    loaded = load_seed(seed)
    warnings = idle_workflow_warnings(loaded, build_spec(loaded), db)
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "it.priority > 2" in ln)
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{seed}:{line}: workflows[1].params[0].where: workflow archive_note: no note row "
                                  "satisfies `it.status == 'active' and it.priority > 2` after the storyline (there are "
                                  "24 note rows, all with status 'archived'; priority: "), warnings[0]


def test_rows_of_other_users_do_not_count(tmp_path: Path) -> None:
    """A `where` naming `me` is asked as each user who may run the workflow."""
    text = MOCK.replace("      - {name: target, label: Destination notebook, type: reference, to: notebook}",
                        "      - {name: target, label: Destination notebook, type: reference, to: notebook, "
                        "where: \"it.owner != me\"}", 1)
    seed, db = _seeded(text, tmp_path)
    loaded = load_seed(seed)
    warnings = idle_workflow_warnings(loaded, build_spec(loaded), db)
    assert len(warnings) == 1 and "workflow move_note: no user who may run it sees" not in warnings[0]
    assert "no notebook row satisfies `it.owner != me`" in warnings[0], warnings[0]


@pytest.mark.parametrize("seed", ["mock.yaml", "echobank.yaml"])
def test_the_repository_seeds_leave_every_workflow_a_row(seed: str, tmp_path: Path) -> None:
    loaded = load_seed(ROOT / "seeds" / seed)
    spec = build_spec(loaded)
    render_backend(spec, tmp_path / "app", "0" * 64)
    report = run_seeder(tmp_path / "app", tmp_path / "seed.db")
    assert idle_workflow_warnings(loaded, spec, tmp_path / "seed.db") == []
    assert set(report["events"]) == {s.name for s in spec.storyline}


def test_an_event_that_never_ran_says_so() -> None:
    assert EventCount("stolen", "report_card_lost", 0, 0, 0, 0).line() == (
        "storyline stolen (report_card_lost): never ran: its `for_each` found no row on any of its dates")
