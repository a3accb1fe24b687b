"""Stage two's graph, wiring only: proposer → setup-gen → reward-gen → gates → (repair → setup-gen → …)*
→ UI gate → world hand-over (→ setup-gen → … when the stage-one repairer kept a repair) → write."""

from __future__ import annotations

from pathlib import Path

from langgraph.graph import END, START, StateGraph

from factory.checkpoint import run_checkpointed
from factory.progress import Say, set_reporter
from factory.tasks import nodes
from factory.tasks.nodes import StageTwoResult, TaskState, read_result
from factory.tasks.reward.gen import DEFAULT_POLICY
from factory.tasks.reward.sandbox import require_sandbox
from factory.world.layout import World


def stage_two_graph() -> StateGraph:
    graph = StateGraph(TaskState)
    graph.add_node("propose", nodes.propose_node)
    graph.add_node("setup", nodes.setup_node)
    graph.add_node("reward", nodes.reward_node)
    graph.add_node("gates", nodes.gate_node)
    graph.add_node("repair", nodes.repair_node)
    graph.add_node("ui", nodes.ui_node)
    graph.add_node("world", nodes.world_node)
    graph.add_node("write", nodes.write_node)
    graph.add_edge(START, "propose")
    graph.add_edge("propose", "setup")
    graph.add_edge("setup", "reward")
    graph.add_edge("reward", "gates")
    graph.add_conditional_edges("gates", nodes.route_after_gates, {"repair": "repair", "ui": "ui"})
    graph.add_conditional_edges("repair", nodes.route_after_repair, {"setup": "setup", "ui": "ui"})
    graph.add_edge("ui", "world")
    graph.add_conditional_edges("world", nodes.route_after_world, {"setup": "setup", "write": "write"})
    graph.add_edge("write", END)
    return graph


def run_stage_two(world: Path, total: int = 190, ui: bool = True, workers: int = 2,
                  policy: str = DEFAULT_POLICY, say: Say | None = None, fresh: bool = True,
                  unsafe_sandbox: bool = False) -> StageTwoResult:
    """Grow and gate the task corpus of a built, proven world; write `tasks/` (through the
    stage-two graph, checkpointed beside the worlds so an interrupted run resumes).

    reward-gen runs in bubblewrap namespaces; where they cannot be made this refuses at once
    (SandboxUnavailableError), unless `unsafe_sandbox` (recorded in the manifest and report).
    A resumed run keeps the sandbox mode it started with."""
    if say is not None:
        set_reporter(say)
    world = world.resolve()
    sandbox = "unsafe" if unsafe_sandbox else "bwrap"
    require_sandbox(sandbox)  # before any work: a machine without namespaces fails in a second
    start = TaskState(world=str(world), total=total, ui=ui, workers=workers, policy=policy,
                      rewardgen_sandbox=sandbox)
    # A world rebuilt since the interruption has lost the drafts its checkpoint points at.
    drafts_kept = (World(world).tasks_work / "attempts.json").exists()
    run_checkpointed(stage_two_graph(), world.parent, f"stage-two:{world}", start,
                     resume=not fresh and drafts_kept, name="stage two")
    return read_result(world)


__all__ = ["run_stage_two", "stage_two_graph"]
