"""A draft's progress through stage two (`Attempt`): its setup, states, reward, gates, failure and
repairs, with the JSON form the checkpointed graph keeps between nodes."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from factory.tasks.codec import draft_json, draft_of, steps_json
from factory.tasks.codec import steps_of as codec_steps
from factory.tasks.gates import GateResult
from factory.tasks.propose.proposer import Draft
from factory.tasks.setupgen import Setup
from factory.tasks.triage import Failure


@dataclass
class Attempt:
    """A draft's current state in the pipeline."""

    draft: Draft
    setup: Setup | None = None
    initial: Path | None = None
    golden: Path | None = None
    reward: dict[str, Any] | None = None
    gates: list[GateResult] = field(default_factory=list)
    failure: Failure | None = None
    repairs: list[str] = field(default_factory=list)
    trajectory: dict[str, Any] | None = None
    previous_reward: dict[str, Any] | None = None  # set while a regenerated reward is awaited

    def to_json(self) -> dict[str, Any]:
        return {"draft": draft_json(self.draft),
                "setup": None if self.setup is None else {"steps": steps_json(self.setup.steps),
                                                          "patch": self.setup.patch},
                "initial": None if self.initial is None else str(self.initial),
                "golden": None if self.golden is None else str(self.golden),
                "reward": self.reward, "gates": [g.to_json() for g in self.gates],
                "failure": None if self.failure is None else asdict(self.failure),
                "repairs": self.repairs, "trajectory": self.trajectory,
                "previous_reward": self.previous_reward}

    @classmethod
    def of(cls, data: dict[str, Any]) -> Attempt:
        setup = data["setup"]
        return cls(draft_of(data["draft"]),
                   None if setup is None else Setup(codec_steps(setup["steps"]), setup["patch"]),
                   None if data["initial"] is None else Path(data["initial"]),
                   None if data["golden"] is None else Path(data["golden"]),
                   data["reward"],
                   [GateResult(g["name"], g["passed"], g["detail"], g["score"]) for g in data["gates"]],
                   None if data["failure"] is None else Failure(**data["failure"]),
                   list(data["repairs"]), data["trajectory"], data.get("previous_reward"))
