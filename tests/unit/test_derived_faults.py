"""The derived fault suite finds its sites in a world with computed fields, lookups, messages with
values and currencies (none in one without), and each kind makes the edit it names."""

from __future__ import annotations

import shutil
from pathlib import Path

import git
import pytest

from factory.mutate.faults import derived
from factory.mutate.run import inject, suite_kinds, targets
from factory.world.assemble import build_world

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "lookups.yaml"
MOCK = Path(__file__).resolve().parents[2] / "seeds" / "mock.yaml"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_world(FIXTURE, tmp_path_factory.mktemp("lookups"), frontend=False).path


@pytest.fixture()
def world(built: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "lookups"
    shutil.copytree(built, copy)
    return copy


def test_the_suite_lists_one_kind_per_construct(built: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    assert suite_kinds("derived") == ("computed_off_by_one", "lookup_ignores_where", "message_value_lost",
                                      "currency_symbol_wrong")
    assert len(targets(built, "computed_off_by_one")) == 6 and len(targets(built, "lookup_ignores_where")) == 5
    assert len(targets(built, "message_value_lost")) == 9 and len(targets(built, "currency_symbol_wrong")) == 1
    mock = build_world(MOCK, tmp_path_factory.mktemp("mock"), frontend=False).path
    assert all(targets(mock, kind) == [] for kind in derived.ORDER)  # nothing to hit in a world without them


# kind → (a word of the target, text of the edited file before, after)
EDITS = {
    "computed_off_by_one": ("queue_position", "app/backend/derived.py", "        + 1\n    )\n", ") + 1"),
    "lookup_ignores_where": ("lookup 1 ", "app/backend/workflows.py",
                             '.where(and_(col(Copy.book_id) == row_id(book), col(Copy.status) == "available"))', None),
    "message_value_lost": ("place_hold.pre3", "app/backend/workflows.py", 'label_text("date", ctx.today)',
                           'label_text("date", None)'),
    "currency_symbol_wrong": ("$", "app/backend/runtime.py", "CURRENCY_SYMBOLS.get(currency, '$')", "{'$'}"),
}


@pytest.mark.parametrize("kind", derived.ORDER)
def test_each_kind_edits_what_it_says(world: Path, kind: str) -> None:
    word, rel, before, after = EDITS[kind]
    name = next(n for n in targets(world, kind) if word in n)
    original = (world / rel).read_text()
    fault = inject(world, kind, 0, target=name, suite="derived")
    text = (world / rel).read_text()
    assert fault.files == (rel,) and fault.description
    if kind != "computed_off_by_one":  # the one site, not its look-alikes elsewhere
        assert text.count(before) == original.count(before) - 1
    if after is not None:
        assert after in text
    compile(text, rel, "exec")
    assert not git.Repo(world).is_dirty()  # the fault is committed on its own
