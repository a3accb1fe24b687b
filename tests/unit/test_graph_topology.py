"""The stage-one graph's wiring, snapshotted: a change of topology must be deliberate."""

from __future__ import annotations

from factory.graph import stage_one_graph
from factory.loop import route_after_verify


def test_stage_one_topology() -> None:
    graph = stage_one_graph().compile().get_graph()
    edges = sorted((e.source, e.target, bool(e.conditional)) for e in graph.edges)
    assert edges == [
        ("__start__", "build", False),
        ("build", "claims", False),
        ("claims", "verify", False),
        ("finish", "__end__", False),
        ("repair", "verify", False),
        ("triage", "repair", False),
        ("verify", "finish", True),
        ("verify", "triage", True),
    ]


def test_loop_stops_at_target_budget_or_no_progress() -> None:
    history = [{"round": 0, "passed": 90, "total": 100, "rate": 0.9}]
    assert route_after_verify({"history": history, "round": 0, "target": 0.95, "max_rounds": 3}) == "triage"
    assert route_after_verify({"history": history, "round": 0, "target": 0.9, "max_rounds": 3}) == "done"
    assert route_after_verify({"history": history, "round": 3, "target": 0.95, "max_rounds": 3}) == "done"
    assert route_after_verify({"history": history, "round": 1, "target": 0.95, "max_rounds": 3, "progress_made": False}) == "done"
    assert route_after_verify({"history": history, "round": 1, "target": 0.95, "max_rounds": 3, "progress_made": True}) == "triage"
