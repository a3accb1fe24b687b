"""The proposer's model policy on the built mock world, through the scripted fake endpoint (real HTTP,
the real SDK): a rewording that reads back as the draft's own ask replaces its text; one that fails
the parse-back gate, repeats another draft's text or names an instruction that was not asked is
dropped, and the draft keeps its deterministic text; with no model nothing is asked or changed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.openai_server import FakeOpenAI, Scripted

from factory.llm.ask import LLM, open_llm
from factory.llm.config import load_config
from factory.spec.model import Spec
from factory.tasks.draft import Draft
from factory.tasks.language.phrasing import render
from factory.tasks.propose.proposer import Plan, Proposer
from factory.tasks.propose.rewording import reword_drafts
from factory.world.layout import World


@pytest.fixture()
def proposer(mock_world: Path) -> Iterator[Proposer]:
    found = Proposer(Spec.model_validate_json(World(mock_world).spec_file.read_text()), World(mock_world).seed_db)
    yield found
    found.close()


def _another_rendering(proposer: Proposer, draft: Draft, taken: set[str]) -> str:
    """A text of the same ask the deterministic renderer would also give (so it passes every gate)."""
    return next(text for v in range(12) if (text := render(proposer.spec, draft.ask, v)) != draft.goal
                and text not in taken)


def test_a_rewording_replaces_the_text_only_when_it_passes_the_gates(proposer: Proposer, tmp_path: Path) -> None:
    drafts = proposer.propose(Plan.for_total(12))
    before = {d.key: (d.goal, d.form) for d in drafts}
    writes = [d for d in drafts if d.task_type == "write" and len(d.steps) == 1 and '"' in d.goal]
    good, wrong_row, duplicate = writes[0], writes[1], drafts[0]
    better = _another_rendering(proposer, good, {d.goal for d in drafts})
    quoted = re.findall(r'"([^"]+)"', wrong_row.goal)[-1]
    elsewhere = wrong_row.goal.replace(f'"{quoted}"', '"A notebook nobody has"')
    reply = {"phrasings": [{"key": good.key, "goal": better},
                           {"key": wrong_row.key, "goal": elsewhere},
                           {"key": duplicate.key, "goal": drafts[1].goal},
                           {"key": "mock-write-invented-001", "goal": "Do something nice."}]}
    with FakeOpenAI([Scripted(reply)]) as fake:
        config = load_config(fake.env(FACTORY_LLM_CACHE=str(tmp_path / "cache")))
        assert config is not None
        report = reword_drafts(proposer, drafts, LLM(config))
    assert fake.count == 1
    question = fake.requests[0]["messages"][0]["content"]
    assert [k for k, (goal, _) in before.items() if f"key `{k}` " not in question or goal not in question] == []
    assert (report.asked, report.offered, report.kept) == (len(drafts), 4, 1)
    assert (good.goal, good.form) == (better, "model:" + before[good.key][1])
    assert (wrong_row.goal, wrong_row.form) == before[wrong_row.key]  # failed parse-back: the deterministic text stands
    assert (duplicate.goal, duplicate.form) == before[duplicate.key]
    reasons = dict(line.split(": ", 1) for line in report.dropped)
    assert reasons[wrong_row.key].startswith("phrasing: ")
    assert reasons[duplicate.key] == "duplicate: another draft's text"
    assert reasons["mock-write-invented-001"] == "key: not one of the instructions asked"
    assert all((d.goal, d.form) == before[d.key] for d in drafts if d is not good)


def test_with_no_model_nothing_is_reworded(proposer: Proposer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FACTORY_LLM_MODEL", raising=False)
    monkeypatch.delenv("FACTORY_LLM_CONFIG", raising=False)
    drafts = proposer.propose(Plan.for_total(12))
    before = [(d.key, d.goal, d.form) for d in drafts]
    report = reword_drafts(proposer, drafts, open_llm())
    assert report.asked == 0 and [(d.key, d.goal, d.form) for d in drafts] == before
