"""A task draft as data (`Draft`): what the proposer proposes and the rest of stage two carries.

Setup-gen, reward-gen, the gates, the UI replay and the task record all read drafts; they import
the type from here, a module with no stage-two code beneath it but the instruction's own data
(`language.asks`, `language.answer`), so none of them imports the proposer to name it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from factory.runtime.step import Step
from factory.tasks.language.answer import Answer
from factory.tasks.language.asks import Ask


@dataclass
class Draft:
    """One proposed task, before setup-gen, reward-gen and the gates."""

    key: str
    task_type: str  # read | write | read_write
    category: str
    user: str
    user_id: int
    ask: Ask
    goal: str
    steps: list[Step] = field(default_factory=list)
    setup: list[Step] = field(default_factory=list)
    answer: Answer | None = None
    form: str = "generic"
    capabilities: list[str] = field(default_factory=list)
    required: list[dict[str, Any]] = field(default_factory=list)
    variant: int = 0
