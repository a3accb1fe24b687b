"""Run a stage's graph with its checkpoints on disk, so an interrupted run continues where it stopped.

Checkpoints live in one SQLite file beside the worlds, one thread per seed or world; each node's
checkpoint is written before the next node runs (`durability="sync"`), so a rerun after Ctrl-C or
`kill -9` resumes at the first node that did not finish.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import StateGraph

from factory.progress import say

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig


def run_checkpointed(graph: StateGraph, worlds: Path, thread: str, start: Any, resume: bool, name: str) -> Any:
    """Invoke `graph` with the SQLite checkpointer beside the worlds; with `resume`, a run that
    stopped part-way continues from its last finished node."""
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


__all__ = ["run_checkpointed"]
