"""A draft's progress through stage two (`Attempt`): its setup, states, reward, gates, failure and
repairs; pydantic gives its JSON form, which the checkpointed graph keeps between nodes
(`run/tasks/attempts.json`, `dump_attempts` / `load_attempts`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import ConfigDict, TypeAdapter, ValidatorFunctionWrapHandler, WrapValidator

from factory.tasks.draft import Draft
from factory.tasks.gates import GateResult
from factory.tasks.language.asks import RefText
from factory.tasks.setupgen import Setup
from factory.tasks.triage import Failure

_REF: TypeAdapter[RefText] = TypeAdapter(RefText)


def _with_refs(value: Any, handler: ValidatorFunctionWrapHandler) -> Draft:
    """A draft read back, with the row references among its ask's arguments made `RefText` again.

    `AskStep.args` holds a `RefText` (a row named in the text) or a plain value (a JSON scalar)
    per parameter, so it is typed `dict[str, Any]`: pydantic writes a `RefText` there as an
    object of its fields but reads any object back as a dict. Objects are only ever references."""
    draft = handler(value)
    if not isinstance(value, Draft):  # a Draft instance kept its RefText values
        steps = tuple(replace(s, args={k: _REF.validate_python(v) if isinstance(v, dict) else v
                                       for k, v in s.args.items()}) for s in draft.ask.steps)
        draft.ask = replace(draft.ask, steps=steps)
    return draft


@dataclass
class Attempt:
    """A draft's current state in the pipeline."""

    # Read back from attempts.json, a key that no field declares is an error (not dropped).
    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    draft: Annotated[Draft, WrapValidator(_with_refs)]
    setup: Setup | None = None
    initial: Path | None = None
    golden: Path | None = None
    reward: dict[str, Any] | None = None
    gates: list[GateResult] = field(default_factory=list)
    failure: Failure | None = None
    repairs: list[str] = field(default_factory=list)
    trajectory: dict[str, Any] | None = None
    previous_reward: dict[str, Any] | None = None  # set while a regenerated reward is awaited


_ATTEMPTS: TypeAdapter[list[Attempt]] = TypeAdapter(list[Attempt])


def dump_attempts(attempts: list[Attempt]) -> str:
    """The JSON form of `attempts` (what `load_attempts` reads back as equal attempts)."""
    return _ATTEMPTS.dump_json(attempts).decode()


def load_attempts(text: str) -> list[Attempt]:
    """Attempts from their JSON form; a malformed file raises `pydantic.ValidationError`."""
    return _ATTEMPTS.validate_json(text)
