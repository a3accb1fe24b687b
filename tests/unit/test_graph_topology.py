"""The stage-one graph's wiring, snapshotted: a change of topology must be deliberate."""

from __future__ import annotations

from factory.prove.graph import stage_one_graph
from factory.prove.nodes import route_after_verify


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
    assert route_after_verify({"history": history, "round": 1, "target": 0.95, "max_rounds": 3,
                               "progress_made": False}) == "done"
    assert route_after_verify({"history": history, "round": 1, "target": 0.95, "max_rounds": 3,
                               "progress_made": True}) == "triage"


def test_stage_two_topology() -> None:
    from factory.tasks.graph import stage_two_graph

    graph = stage_two_graph().compile().get_graph()
    edges = sorted((e.source, e.target, bool(e.conditional)) for e in graph.edges)
    assert edges == [
        ("__start__", "propose", False),
        ("gates", "repair", True),
        ("gates", "ui", True),
        ("propose", "setup", False),
        ("repair", "setup", True),
        ("repair", "ui", True),
        ("reward", "gates", False),
        ("setup", "reward", False),
        ("ui", "world", False),
        ("world", "setup", True),
        ("world", "write", True),
        ("write", "__end__", False),
    ]


def test_stage_two_repairs_within_budget_then_goes_to_the_ui_gate() -> None:
    from factory.tasks.nodes import MAX_ROUNDS, TaskState, route_after_gates, route_after_repair

    assert route_after_gates(TaskState(world="w", failed=["t1"], round=0)) == "repair"
    assert route_after_gates(TaskState(world="w", failed=["t1"], round=MAX_ROUNDS)) == "ui"
    assert route_after_gates(TaskState(world="w", failed=[], round=0)) == "ui"
    assert route_after_repair(TaskState(world="w", pending=["t1"])) == "setup"
    assert route_after_repair(TaskState(world="w", pending=[])) == "ui"
    # after a world repair a new pass starts with a fresh budget of task repairs
    assert route_after_gates(TaskState(world="w", failed=["t1"], round=MAX_ROUNDS, round_base=MAX_ROUNDS)) == "repair"


def test_stage_two_gates_everything_again_only_after_a_kept_world_repair() -> None:
    from factory.tasks.nodes import TaskState, route_after_world

    assert route_after_world(TaskState(world="w", pending=["t1", "t2"])) == "setup"
    assert route_after_world(TaskState(world="w", pending=[])) == "write"
