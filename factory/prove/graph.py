"""Stage one's graph, wiring only: builder → claims → verifier → (triager → repairer → verifier)* → finish."""

from __future__ import annotations

from pathlib import Path

from langgraph.graph import END, START, StateGraph

from factory.builder.build import build_spec
from factory.checkpoint import run_checkpointed
from factory.progress import DEFAULT_TARGET
from factory.prove import nodes
from factory.prove.nodes import LoopState
from factory.seed.loader import load_seed


def stage_one_graph() -> StateGraph:
    graph = StateGraph(LoopState)
    graph.add_node("build", nodes.build)
    graph.add_node("claims", nodes.claims)
    graph.add_node("verify", nodes.verify)
    graph.add_node("triage", nodes.triage_node)
    graph.add_node("repair", nodes.repair)
    graph.add_node("finish", nodes.finish)
    graph.add_edge(START, "build")
    graph.add_edge("build", "claims")
    graph.add_edge("claims", "verify")
    graph.add_conditional_edges("verify", nodes.route_after_verify, {"triage": "triage", "done": "finish"})
    graph.add_edge("triage", "repair")
    graph.add_edge("repair", "verify")
    graph.add_edge("finish", END)
    return graph


def run_stage_one(seed: str | None = None, worlds: str = "worlds", world: str | None = None, ui: bool = True,
                  target: float = DEFAULT_TARGET, max_rounds: int = 3, fresh: bool = False,
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
    return run_checkpointed(stage_one_graph(), Path(worlds), f"stage-one:{subject}", start,
                            resume=not (fresh or recompile_claims), name="stage one")  # a recompile starts over


__all__ = ["run_stage_one", "stage_one_graph"]
