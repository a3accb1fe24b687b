"""The graphs, wiring only: stage one builder → claims → verifier → (triager → repairer → verifier)*,
and stage two proposer → setup-gen → reward-gen → gates → (repair → setup-gen → …)* → UI gate →
world hand-over (→ setup-gen → … when the stage-one repairer kept a repair) → write."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from factory import loop
from factory.builder import build_spec
from factory.loop import LoopState
from factory.seed.loader import load_seed
from factory.tasks import stage as tasks

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig


def stage_one_graph() -> StateGraph:
    graph = StateGraph(LoopState)
    graph.add_node("build", loop.build)
    graph.add_node("claims", loop.claims)
    graph.add_node("verify", loop.verify)
    graph.add_node("triage", loop.triage_node)
    graph.add_node("repair", loop.repair)
    graph.add_node("finish", loop.finish)
    graph.add_edge(START, "build")
    graph.add_edge("build", "claims")
    graph.add_edge("claims", "verify")
    graph.add_conditional_edges("verify", loop.route_after_verify, {"triage": "triage", "done": "finish"})
    graph.add_edge("triage", "repair")
    graph.add_edge("repair", "verify")
    graph.add_edge("finish", END)
    return graph


def run_stage_one(seed: str | None = None, worlds: str = "worlds", world: str | None = None, ui: bool = True,
                  target: float = 0.95, max_rounds: int = 3, fresh: bool = False,
                  recompile_claims: bool = False) -> LoopState:
    """Run (or resume, after an interruption) stage one for a seed, or prove an existing world.

    Checkpoints live beside the worlds, one thread per seed (or world), so a rerun after Ctrl-C or
    `kill -9` continues from the last finished node.
    """
    if world is not None:
        worlds = str(Path(world).parent)
    if seed:
        build_spec(load_seed(seed))  # a bad seed fails here, before anything (even a checkpoint) is written
    subject = Path(seed if seed is not None else world or "").resolve()
    start: LoopState = {"seed": str(seed) if seed else "", "worlds": str(worlds), "ui": ui, "target": target,
                        "max_rounds": max_rounds, "recompile_claims": recompile_claims}
    if world is not None:
        start["world"] = str(Path(world).resolve())
    return _run(stage_one_graph(), Path(worlds), f"stage-one:{subject}", start,
                resume=not (fresh or recompile_claims), say=loop._say, name="stage one")  # a recompile starts over


def _run(graph: StateGraph, worlds: Path, thread: str, start: Any, resume: bool,
         say: Callable[[str], None], name: str) -> Any:
    """Invoke `graph` with the SQLite checkpointer beside the worlds; with `resume`, a run that
    stopped part-way continues from its last finished node (each checkpoint is on disk before
    the next node runs)."""
    checkpoints = worlds / ".checkpoints.sqlite"
    checkpoints.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(checkpoints, check_same_thread=False)
    try:
        app = graph.compile(checkpointer=SqliteSaver(conn))
        config: RunnableConfig = {"configurable": {"thread_id": thread}, "recursion_limit": 64}
        snapshot = app.get_state(config)
        if snapshot.next and resume:
            say(f"resuming {name} at {', '.join(snapshot.next)}")
            return app.invoke(None, config, durability="sync")
        return app.invoke(start, config, durability="sync")
    finally:
        conn.close()


def stage_two_graph() -> StateGraph:
    graph = StateGraph(tasks.TaskState)
    graph.add_node("propose", tasks.propose_node)
    graph.add_node("setup", tasks.setup_node)
    graph.add_node("reward", tasks.reward_node)
    graph.add_node("gates", tasks.gate_node)
    graph.add_node("repair", tasks.repair_node)
    graph.add_node("ui", tasks.ui_node)
    graph.add_node("world", tasks.world_node)
    graph.add_node("write", tasks.write_node)
    graph.add_edge(START, "propose")
    graph.add_edge("propose", "setup")
    graph.add_edge("setup", "reward")
    graph.add_edge("reward", "gates")
    graph.add_conditional_edges("gates", tasks.route_after_gates, {"repair": "repair", "ui": "ui"})
    graph.add_conditional_edges("repair", tasks.route_after_repair, {"setup": "setup", "ui": "ui"})
    graph.add_edge("ui", "world")
    graph.add_conditional_edges("world", tasks.route_after_world, {"setup": "setup", "write": "write"})
    graph.add_edge("write", END)
    return graph


def run_graph_stage_two(start: tasks.TaskState, fresh: bool = True) -> tasks.TaskState:
    """Run stage two on a world (or, with fresh=False, resume an interrupted run of it)."""
    world = Path(start["world"]).resolve()
    # A world rebuilt since the interruption has lost the drafts its checkpoint points at.
    drafts_kept = (world / "run" / "tasks" / "attempts.json").exists()
    return _run(stage_two_graph(), world.parent, f"stage-two:{world}", start,
                resume=not fresh and drafts_kept, say=tasks._say, name="stage two")
