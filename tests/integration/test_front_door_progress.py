"""Counted progress is display only: the proposer reports its drafts to the installed counter, up
to the plan, and proposes exactly the same drafts with or without anyone watching."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from factory import progress
from factory.spec.model import Spec
from factory.tasks.propose.proposer import Plan, Proposer
from factory.world.layout import World


def _drafts(world: Path, plan: Plan) -> list[tuple[str, str, str]]:
    spec = Spec.model_validate_json(World(world).spec_file.read_text())
    proposer = Proposer(spec, World(world).seed_db)
    try:
        return [(d.key, d.user, d.goal) for d in proposer.propose(plan)]
    finally:
        proposer.close()


def test_the_proposer_counts_its_plan_and_proposes_the_same_drafts_when_watched(mock_world: Path) -> None:
    plan = Plan.for_total(12)
    unwatched = _drafts(mock_world, plan)
    seen: list[tuple[str, int, int]] = []

    @contextmanager
    def counter(name: str, total: int) -> Iterator[progress.Advance]:
        done = 0

        def advance(n: int = 1) -> None:
            nonlocal done
            assert n >= 0
            done += n
            seen.append((name, total, done))

        yield advance

    progress.set_counter(counter)
    try:
        watched = _drafts(mock_world, plan)
    finally:
        progress.set_counter(None)
    assert watched == unwatched and len(watched) > 0
    assert {(name, total) for name, total, _ in seen} == {("propose drafts", 12)}
    counts = [done for _, _, done in seen]
    assert counts == sorted(counts) and counts[-1] == 12  # it only moves forward, and ends at the plan
    assert len(set(counts)) > 4  # drafts are counted as they are made, not once per kind
