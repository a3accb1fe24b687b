"""`factory check` warns, at the seed's line, about what would break later: two things one page
shows under the same label, and task phrasings the proposer will not use."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.cli import main
from factory.seed.label_clashes import label_clash_warnings
from factory.seed.loader import load_seed, load_seed_text
from factory.tasks.language.intents import unusable_phrasings
from factory.tasks.language.phrasing_warnings import phrasing_warnings

ROOT = Path(__file__).resolve().parents[2]
MOCK = (ROOT / "seeds" / "mock.yaml").read_text()
QUIET = [ROOT / "seeds" / "mock.yaml", ROOT / "seeds" / "echobank.yaml"]


def _mutate(old: str, new: str) -> str:
    assert old in MOCK, f"fixture text {old!r} not in mock.yaml"
    return MOCK.replace(old, new, 1)


def _line(text: str, needle: str) -> int:
    found = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(found) == 1, (needle, found)
    return found[0]


def _clashes(text: str) -> list[str]:
    loaded = load_seed_text(text, "mock.yaml")
    return label_clash_warnings(loaded, build_spec(loaded))


# (case, seed text, text on the line the warning points at, words it must say)
LABEL_CASES = [
    # the real case: a form titled "Reply" with an input labelled "Reply"
    ("workflow_and_its_parameter",
     _mutate("{name: remind_on, type: date}", "{name: remind_on, label: set a Reminder, type: date}"),
     "name: remind_on, label: set a Reminder", ["parameter 'remind_on' of set_reminder", "workflow set_reminder",
                                                "'set a Reminder'", "form page", "different `label:`"]),
    ("two_fields_of_one_entity", _mutate("{name: priority, type: int,", "{name: priority, label: Title, type: int,"),
     "name: priority, label: Title", ["field 'priority' of note", "field 'title' of note", "a note's page shows both"]),
    ("two_parameters",
     _mutate("{name: body, type: text, required: false}", "{name: body, label: TITLE, type: text, required: false}"),
     "name: body, label: TITLE", ["parameter 'body' of write_note", "parameter 'title' of write_note", "two inputs"]),
    ("workflow_and_a_field_of_its_subject", _mutate("label: Move note", "label: Notebook"),
     "label: Notebook", ["workflow move_note", "field 'notebook' of note", "action button"]),
    ("two_workflows_on_one_subject", _mutate("label: Move note", "label: Archive note"),
     "label: Archive note\n", ["workflow move_note", "workflow archive_note", "two action buttons"]),
]


@pytest.mark.parametrize("case,text,line_text,words", LABEL_CASES, ids=[c[0] for c in LABEL_CASES])
def test_a_shared_label_is_a_located_warning(case: str, text: str, line_text: str, words: list[str]) -> None:
    warnings = _clashes(text)
    assert len(warnings) == 1, warnings
    line = [i for i, ln in enumerate(text.splitlines(), 1) if line_text.rstrip("\n") in ln][-1]
    assert warnings[0].startswith(f"mock.yaml:{line}: "), warnings[0]
    for word in words:
        assert word in warnings[0], warnings[0]


def test_workflows_of_disjoint_roles_may_share_a_label() -> None:
    text = _mutate("label: Move note", "label: Archive note").replace(
        "  generate: 2", "  generate: 2\n  roles: [writer, editor]")
    text = text.replace("    label: Archive note\n    subject: note\n",
                        "    label: Archive note\n    subject: note\n    roles: [writer]\n", 1)
    text = text.replace("    label: Archive note\n    subject: note\n    params:\n"
                        "      - {name: note, type: reference, to: note}\n      - {name: target",
                        "    label: Archive note\n    subject: note\n    roles: [editor]\n    params:\n"
                        "      - {name: note, type: reference, to: note}\n      - {name: target", 1)
    assert text.count("roles: [") == 3, text
    assert _clashes(text) == []


def test_the_year_in_a_phrasing_is_a_located_warning_with_a_fix() -> None:
    text = _mutate("Please archive the note \\\"{note}\\\".", "Please archive the note \\\"{note}\\\" from 2025.")
    loaded = load_seed_text(text, "mock.yaml")
    warnings = phrasing_warnings(loaded, build_spec(loaded))
    year = next(w for w in warnings if "2025" in w)
    assert year.startswith(f"mock.yaml:{_line(text, 'from 2025')}: tasks[0].phrasings[1]: "), year
    assert "2025 fits no parameter of 'Archive note'" in year and "fix: quote the text" in year


def test_a_slot_tie_says_how_to_bind_the_slot() -> None:
    text = _mutate("  - {name: count_active,",
                   "  - {name: move, kind: write, workflow: move_note, phrasings: [\"Move {book} to another notebook.\"], "
                   "slots: {book: notebook.title}}\n  - {name: count_active,")
    text = text.replace("      - {name: note, type: reference, to: note}\n      - {name: target",
                        "      - {name: note, type: reference, to: note}\n"
                        "      - {name: via, label: Origin notebook, type: reference, to: notebook, required: false}\n"
                        "      - {name: target", 1)
    loaded = load_seed_text(text, "mock.yaml")
    warnings = phrasing_warnings(loaded, build_spec(loaded))
    tie = next(w for w in warnings if "{book} could fill" in w)
    assert tie.startswith(f"mock.yaml:{_line(text, 'Move {book}')}: tasks[1].phrasings[0]: "), tie
    assert "'Origin notebook' or 'Destination notebook'" in tie and "name the slot after the parameter" in tie


def test_a_counting_question_says_what_a_read_phrasing_is_for() -> None:
    """mock.yaml's own "How many active notes do I have?" is one the proposer never uses."""
    loaded = load_seed(ROOT / "seeds" / "mock.yaml")
    warnings = phrasing_warnings(loaded, build_spec(loaded))
    assert len(warnings) == 1
    assert re.match(rf"{re.escape(str(ROOT / 'seeds' / 'mock.yaml'))}:{_line(MOCK, 'count_active')}: tasks\[1\]"
                    r"\.phrasings\[0\]: ", warnings[0]), warnings[0]
    assert "'How many active notes do I have?'" in warnings[0] and "rewrite it as a lookup" in warnings[0]


@pytest.mark.parametrize("seed", QUIET, ids=lambda p: p.stem)
def test_the_repository_seeds_share_no_label_on_a_page(seed: Path) -> None:
    loaded = load_seed(seed)
    assert label_clash_warnings(loaded, build_spec(loaded)) == []


@pytest.mark.parametrize("seed", [*QUIET, ROOT / "seeds" / "echomail.yaml"], ids=lambda p: p.stem)
def test_phrasing_warnings_are_exactly_the_proposers_rejections(seed: Path) -> None:
    """Each warning is one phrasing the proposer rejects, at that phrasing's line, with its reason."""
    loaded = load_seed(seed)
    spec = build_spec(loaded)
    rejected = unusable_phrasings(spec)
    warnings = phrasing_warnings(loaded, spec)
    assert len(warnings) == len(rejected)
    lines = loaded.text.splitlines()
    for warning, (_intent, phrasing, why) in zip(warnings, rejected, strict=True):
        line = int(warning.split(":")[1])
        assert phrasing[:24] in lines[line - 1].replace('\\"', '"'), (warning, lines[line - 1])
        assert why in warning


def test_phrasings_that_ground_give_no_warning() -> None:
    loaded = load_seed(ROOT / "tests" / "fixtures" / "library.yaml")
    assert phrasing_warnings(loaded, build_spec(loaded)) == []


def test_check_prints_the_warnings_and_still_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed = tmp_path / "mock.yaml"
    seed.write_text(LABEL_CASES[0][1])
    assert main(["check", str(seed)]) == 0
    err = capsys.readouterr().err.replace("\n", " ")
    assert f"warning {seed}:" in err and "are both labelled 'set a Reminder'" in err
    assert "the task proposer will not use 'How many active notes do I have?'" in err
    assert f"ok {seed}" in err


def test_labels_the_grammar_cannot_say_are_warned_with_the_hint_and_the_seed_still_builds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30: a bare label that is no verb ("Comp") and a field label that is no noun phrase
    ("Booked by") are named at their lines with the `say:` that fixes them; "Archive" stays
    quiet (a verb), and so does a participle label the grammar turns into "Mark … as …"."""
    from factory.tasks.language.confidence import confidence_warnings
    from factory.world.assemble import build_world

    text = _mutate("    label: Archive note\n", "    label: Comp\n").replace(
        "{name: color, type: enum, values: [red, green, blue], filter: true}",
        "{name: color, type: enum, values: [red, green, blue], filter: true}\n"
        "      - {name: booker, type: reference, to: user, label: Booked by, required: false}", 1)
    loaded = load_seed_text(text, "mock.yaml")
    found = confidence_warnings(loaded, build_spec(loaded))
    assert any(f"mock.yaml:{_line(text, 'label: Comp')}:" in w and "'comp' is no English word" in w
               and "say:" in w for w in found), found
    assert any(f"mock.yaml:{_line(text, 'label: Booked by')}:" in w and "is no noun phrase" in w for w in found), found
    assert not any("Archive" in w or "Move" in w for w in found)
    seed = tmp_path / "mock.yaml"
    seed.write_text(text)
    assert main(["check", str(seed)]) == 0
    assert "'Comp'" in capsys.readouterr().err
    world = build_world(seed, tmp_path / "worlds", frontend=False).path  # the warnings stop nothing
    assert (world / "spec.json").is_file()


def test_the_repository_seeds_have_no_label_the_grammar_cannot_say_as_a_verb() -> None:
    from factory.tasks.language.confidence import confidence_warnings

    for path in QUIET:
        loaded = load_seed(path)
        assert not [w for w in confidence_warnings(loaded, build_spec(loaded)) if "workflows[" in w], path
