"""Errands whose reward depends on what an earlier action leaves: make a row, then take it back
("…, then cancel it": the row made is "it", resolved on the predicted database the first action
leaves), and act, then report (the answer read after the action). Built without a frontend."""

from __future__ import annotations

from pathlib import Path

import pytest

from factory.predict.rows import UserView
from factory.tasks.gates import answer_text
from factory.tasks.language.asks import MADE
from factory.tasks.language.phrasing import parse
from factory.tasks.propose.proposer import Proposer
from factory.tasks.reward.gen import RewardGenError, deterministic_policy
from factory.world.assemble import build_world
from factory.world.layout import World

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(build_world(ROOT / "seeds" / "echobank.yaml", tmp_path_factory.mktemp("bank"), frontend=False).path)


def test_undo_and_report_errands_get_rewards_from_their_text_alone(bank: World) -> None:
    """An errand taking back the row its first action creates says it "it" and resolves on the
    database that action leaves; act-then-report gets the effects' checks and an answer check
    equal to the proposer's answer."""
    proposer = Proposer(bank.spec, bank.seed_db)
    try:
        drafts = proposer._compounds({"undo": 3, "act_report": 2})
    finally:
        proposer.close()
    assert {d.category for d in drafts} == {"undo", "act_report"}, proposer.skipped[:5]
    for d in drafts:
        reward = deterministic_policy({"goal": d.goal, "user": d.user}, bank.spec, bank.seed_db)
        kinds = [c["type"] for c in reward["checks"]]
        assert any(k in ("row_matches", "rows_added", "rows_removed") for k in kinds), d.goal
        if d.category == "act_report":
            expected = next(c["expected"] for c in reward["checks"] if c["type"] == "answer")
            assert d.answer is not None and expected == d.answer.value, (d.goal, answer_text(d.answer))
            continue
        # the row taken back is not in the seed: the first action makes it, and the goal says "it"
        assert d.goal.rstrip(".?").endswith(" it"), d.goal
        assert parse(bank.spec, d.goal).steps[-1].args[next(iter(d.ask.steps[-1].args))].by == MADE, d.goal
        workflow = next(w for w in bank.spec.workflows if w.name == d.steps[1].workflow)
        subject = next(p for p in workflow.params if p.name == workflow.subject)
        assert subject.ref is not None
        view = UserView.open(bank.spec, bank.seed_db)
        try:
            assert view.row(subject.ref, d.steps[1].params[subject.name]) is None, d.goal
        finally:
            view.close()


def test_it_with_nothing_made_before_gets_no_reward(bank: World) -> None:
    """"Cancel it" after an action that makes no row of that kind names nothing: reward-gen
    refuses the task rather than guessing a row."""
    goal = 'As a quick test: lock my card "Visa card ··2286" with the reason "travel", then cancel it.'
    with pytest.raises(RewardGenError) as refused:
        deterministic_policy({"goal": goal, "user": bank.spec.users[0].username}, bank.spec, bank.seed_db)
    # refused for the "it" alone: the lock reads, and no row is guessed for what it names
    assert refused.value.kind == "parse" and "'Cancel it.'" in str(refused.value), refused.value
