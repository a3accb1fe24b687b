"""Each kind of bad seed gives a one-line located error, exit code 2, and no world directory."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from factory.cli import main
from factory.errors import SeedError
from factory.world.assemble import build_world

MOCK = (Path(__file__).resolve().parents[2] / "seeds" / "mock.yaml").read_text()


def _mutate(old: str, new: str) -> str:
    assert old in MOCK, f"fixture text {old!r} not in mock.yaml"
    return MOCK.replace(old, new, 1)


def _lines_of(text: str, needle: str) -> list[int]:
    return [i for i, line in enumerate(text.splitlines(), 1) if needle in line]


# (case, seed text, text on the line the error must point at, words the message must contain)
CASES = [
    ("yaml_syntax", _mutate("title: Mock Notes", "title: [Mock Notes"), None, ["YAML syntax error"]),
    ("unknown_field_type", _mutate("{name: pinned, type: bool,", "{name: pinned, type: boolean,"),
     "type: boolean", ["'boolean'", "expected one of"]),
    ("missing_entity", _mutate("{name: notebook, type: reference, to: notebook, filter: true}",
                               "{name: notebook, type: reference, to: folder, filter: true}"),
     "to: folder", ["missing entity 'folder'"]),
    ("unknown_field_in_expression", _mutate("note.status == 'active'", "note.state == 'active'"),
     "note.state", ["no field 'state'"]),
    ("type_mismatch", _mutate("len(title) >= 3", "len(title) >= 'three'"), "len(title)", ["cannot compare int with str"]),
    ("duplicate_workflow", _mutate("name: move_note", "name: archive_note"),
     "name: archive_note", ["duplicate workflow name 'archive_note'"]),
    ("duplicate_field", _mutate("{name: priority, type: int,", "{name: title, type: int,"),
     "{name: title, type: int", ["duplicate field name 'title'"]),
    ("required_cycle", _mutate("      - {name: color, type: enum, values: [red, green, blue], filter: true}",
                               "      - {name: color, type: enum, values: [red, green, blue], filter: true}\n"
                               "      - {name: cover, type: reference, to: note}"),
     "to: no", ["required reference cycle"]),
    ("effect_on_missing_field", _mutate("{set: note.status, to: \"'archived'\"}", "{set: note.state, to: \"'archived'\"}"),
     "note.state", ["effect on missing field 'state'"]),
    ("query_in_a_where", _mutate("{name: target, label: Destination notebook, type: reference, to: notebook}",
                                 "{name: target, label: Destination notebook, type: reference, to: notebook, "
                                 "where: \"exists(n in note where n.notebook == it)\"}"),
     "Destination notebook", ["cannot hold a query", "as a precondition"]),
    ("unknown_key", _mutate("random_seed: 11", "random_seed: 11\ncolour: blue"), "colour: blue", ["unknown key 'colour'"]),
    ("enum_default_not_in_values", _mutate("values: [red, green, blue], filter: true}",
                                           "values: [red, green, blue], filter: true, default: purple}"),
     "default: purple", ["default 'purple' is not one of red, green, blue"]),
    ("choices_outside_enum", _mutate("gen: {choices: [active, active, archived]}", "gen: {choices: [active, deleted]}"),
     "choices: [active, deleted]", ["'deleted' is not one of active, archived"]),
    ("unknown_faker_provider", _mutate("gen: {faker: sentence}", "gen: {faker: not_a_provider}"),
     "not_a_provider", ["unknown Faker provider 'not_a_provider'"]),
    ("filter_parent_itself", _mutate("{name: status, type: enum, values: [active, archived], filter: true,",
                                     "{name: status, type: enum, values: [active, archived], filter: true, "
                                     "filter_parent: status,"),
     "filter_parent: status", ["is not another filter field"]),
    ("storyline_in_the_future", _mutate("    start: 2026-05-04", "    start: 2026-07-04"),
     "start: 2026-07-04", ["starts after the world's today"]),
    ("min_above_max", _mutate("{name: priority, type: int, min: 1, max: 5,", "{name: priority, type: int, min: 6, max: 5,"),
     "min: 6, max: 5", ["min 6 is above max 5"]),
    ("reference_label_collision", _mutate("{name: notebook, type: reference, to: notebook, filter: true}",
                                          "{name: notebook, type: reference, to: notebook, filter: true}\n"
                                          "      - {name: notebook_label, type: string}"),
     "name: notebook_label", ["collides with the label", "reference 'notebook'"]),
    ("bad_enum_literal", _mutate("note.status == 'active'", "note.status == 'actve'"),
     "note.status == 'actve'", ["'actve' is not one of"]),
    # a stranger's seed marked a reference searchable: the app then answered 500 on every search
    ("searchable_reference", _mutate("{name: notebook, type: reference, to: notebook, filter: true}",
                                     "{name: notebook, type: reference, to: notebook, filter: true, searchable: true}"),
     "searchable: true}", ["a reference field cannot be searched", "filter: true"]),
]


@pytest.mark.parametrize("case,text,line_text,words", CASES, ids=[c[0] for c in CASES])
def test_bad_seed_is_located_and_builds_nothing(case: str, text: str, line_text: str | None, words: list[str],
                                                tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed = tmp_path / "bad.yaml"
    seed.write_text(text)
    worlds = tmp_path / "worlds"
    with pytest.raises(SeedError) as caught:
        build_world(seed, worlds, frontend=False)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{seed}:"), message
    for word in words:
        assert word in message, message
    if line_text is not None:
        # the error points at a line holding the offending text (for duplicates: a later occurrence)
        assert caught.value.line in _lines_of(text, line_text), message
    else:
        assert re.match(rf"{re.escape(str(seed))}:\d+: ", message)
    assert not worlds.exists() or not any(worlds.iterdir())
    # The CLI: exit code 2 and the same one-line message.
    code = main(["world", str(seed), "--out", str(worlds), "--no-frontend"])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{seed.name}:" in err and words[0] in err.replace("\n", "")
    assert not worlds.exists() or not any(worlds.iterdir())


def test_missing_seed_file(tmp_path: Path) -> None:
    assert main(["check", str(tmp_path / "nope.yaml")]) == 2
