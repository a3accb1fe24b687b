"""Draft a whole seed from a free-form one, section by section, each draft held to `factory check`.

For each section the partial seed does not give, the model is asked for it (the description, the
seed so far, the section's part of `seeds/mock.yaml` as a worked example); the seed so far plus the
new section is checked as `factory check` would, and the one-line error goes back to the model in
the same conversation, up to `rounds` drafts; then SeedDraftError. The keys the partial seed gives
are kept as written and shown to the model as fixed.

Same description, same model, same replies (the reply cache): same seed text, byte for byte.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factory.author.check import check_text
from factory.author.sections import KEY_ORDER, SECTIONS, Section
from factory.author.source import Freeform, read_freeform
from factory.author.yaml_text import dump
from factory.errors import SeedError
from factory.llm.accounting import Ledger
from factory.llm.ask import LLM, Message
from factory.llm.config import require_config
from factory.llm.errors import LLMError
from factory.llm.prompts import render_prompt
from factory.seed.yaml_lines import load_with_lines

log = logging.getLogger(__name__)
EXAMPLE = Path(__file__).resolve().parents[2] / "seeds" / "mock.yaml"
DEFAULT_ROUNDS = 4


class SeedDraftError(LLMError):
    """The model's drafts of a section kept failing `factory check` within the bound."""


@dataclass(frozen=True)
class DraftedSeed:
    """A complete seed drafted from a free-form one."""

    world: str
    text: str
    file: str  # the name its errors are reported under: `<world>.seed.yaml`


def draft_file(path: str | Path, say: Callable[[str], None] | None = None) -> tuple[DraftedSeed, Ledger]:
    """Draft the seed of a free-form seed file with the configured model; ModelNotConfigured without one."""
    source = read_freeform(path)
    llm = LLM(require_config(f"{path}: a free-form seed"))
    return draft_seed(source, llm, say=say), llm.ledger


def draft_seed(source: Freeform, llm: LLM, rounds: int = DEFAULT_ROUNDS,
               say: Callable[[str], None] | None = None) -> DraftedSeed:
    """The whole seed, as YAML text that passes `factory check`."""
    note = say or log.info
    data: dict[str, Any] = dict(source.given)
    example = _example()
    for section in SECTIONS:
        if section.given_by(source.given):
            note(f"author: {section.name}: given by {source.file}")
            continue
        data = _draft_section(section, source, llm, data, example, rounds, note)
    file = _file_name(data)
    text = render(data, source, llm.config.model)
    problem = check_text(text, file)
    if problem is not None:  # sections the partial seed gives, after the last drafted one, do not fit: theirs to fix
        raise SeedError(source.file, None, "", f"the seed it gives does not pass `factory check`: {problem}")
    return DraftedSeed(world=str(data["world"]), text=text, file=file)


def _draft_section(section: Section, source: Freeform, llm: LLM, data: dict[str, Any], example: dict[str, Any],
                   rounds: int, note: Callable[[str], None]) -> dict[str, Any]:
    fixed = {k: source.given[k] for k in section.keys if k in source.given}
    messages: list[Message] = [
        {"role": "system", "content": render_prompt("seed/system.md.j2")},
        {"role": "user", "content": render_prompt(
            section.prompt, description=source.description, so_far=_yaml(data) if data else "",
            fixed=_yaml(fixed) if fixed else "", example=_yaml({k: example[k] for k in section.keys if k in example}),
            keys=section.keys)},
    ]
    problem = ""
    for round_ in range(1, rounds + 1):
        answer = llm.ask(section.purpose, messages, section.model)
        drafted = answer.value.model_dump(mode="json", exclude_defaults=True)
        candidate = {**data, **{k: v for k, v in drafted.items() if k not in fixed}, **fixed}
        if not section.checked:
            return candidate
        file = _file_name(candidate)
        text = render(candidate, source, llm.config.model)
        problem = check_text(text, file) or ""
        if not problem:
            note(f"author: {section.name}: passes `factory check` (draft {round_})")
            return candidate
        note(f"author: {section.name}: draft {round_} of {rounds} fails `factory check`: {problem}")
        messages = [*answer.messages, {"role": "user", "content": render_prompt(
            "seed/check_failed.md.j2", error=problem, file=file, numbered=_numbered(text), round=round_, rounds=rounds,
            section=section.name, keys=section.keys)}]
    raise SeedDraftError(f"{source.file}: the model's draft of the {section.name} section still fails `factory check` "
                         f"after {rounds} rounds: {problem}")


def render(data: dict[str, Any], source: Freeform, model: str) -> str:
    """The seed file's text: a header saying where it came from, then the keys in the usual order."""
    ordered = {k: data[k] for k in KEY_ORDER if k in data}
    header = (f"# Drafted by the model {model} from {Path(source.file).name} (the free-form seed), section by "
              "section,\n# each section checked by `factory check`. Edit it freely and build it again: "
              "make world SEED=<this file>\n")
    return header + _yaml(ordered)


def _yaml(data: dict[str, Any]) -> str:
    return dump(data)


def _numbered(text: str) -> str:
    return "\n".join(f"{n:4} | {line}" for n, line in enumerate(text.splitlines(), start=1))


def _file_name(data: dict[str, Any]) -> str:
    # the name errors point into, the same wherever the seed is written (it is part of the prompts,
    # so of the cache keys: `factory check` and `factory world` must ask the same questions)
    return f"{data.get('world', 'draft')}.seed.yaml"


def _example() -> dict[str, Any]:
    example, _ = load_with_lines(EXAMPLE.read_text(encoding="utf-8"))
    return dict(example)


__all__ = ["DEFAULT_ROUNDS", "DraftedSeed", "SeedDraftError", "draft_file", "draft_seed", "render"]
