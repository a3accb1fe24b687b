"""The seed author through the scripted fake endpoint: a paragraph becomes a seed that passes
`factory check`, the check's one-line errors go back to the model, a partial YAML seed is kept,
and a draft that keeps failing stops at the bound with a clear error."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from fakes.openai_server import FakeOpenAI, Scripted

from factory.author.check import check_text
from factory.author.draft import SeedDraftError, draft_seed
from factory.author.sections import SECTIONS
from factory.author.source import read_freeform
from factory.llm.ask import LLM
from factory.llm.config import LLMConfig, load_config
from factory.seed.loader import load_seed, load_seed_text

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "freeform" / "toolshed.yaml"
PARAGRAPH = REPO / "seeds" / "freeform" / "toolshed.md"


def _seed() -> dict[str, Any]:
    return yaml.safe_load(FIXTURE.read_text())


def _reply(section: str, seed: dict[str, Any] | None = None) -> Scripted:
    """The fixture's part for one section, as the fake model's reply."""
    data = seed or _seed()
    keys = next(s.keys for s in SECTIONS if s.name == section)
    return Scripted({k: data[k] for k in keys if k in data})


def _with_bad_display() -> dict[str, Any]:
    seed = _seed()
    seed["entities"][1]["display"] = "{tool_title} due {due_on}"  # no such field
    return seed


def _llm(fake: FakeOpenAI, tmp_path: Path) -> LLM:
    config: LLMConfig | None = load_config(fake.env(FACTORY_LLM_CACHE=str(tmp_path / "cache")))
    assert config is not None
    return LLM(config)


def test_a_paragraph_becomes_the_seed_and_the_check_error_goes_back_to_the_model(tmp_path: Path) -> None:
    script = [_reply("app"), _reply("entities", _with_bad_display()), _reply("entities"), _reply("workflows"),
              _reply("storyline"), _reply("tasks")]
    with FakeOpenAI(script) as fake:
        drafted = draft_seed(read_freeform(PARAGRAPH), _llm(fake, tmp_path))
    assert fake.count == 6
    assert [r["response_format"]["json_schema"]["name"] for r in fake.requests] == [
        "SeedApp", "SeedEntities", "SeedEntities", "SeedWorkflows", "SeedStoryline", "SeedTasks"]
    assert "A lending library of tools" in fake.requests[0]["messages"][1]["content"]  # the paragraph is asked about
    feedback = fake.requests[2]["messages"][-1]
    assert feedback["role"] == "user"
    assert re.search(r"toolshed\.seed\.yaml:\d+: entities\[1\]\.display: display names unknown field 'tool_title'",
                     feedback["content"]), feedback["content"]
    assert fake.requests[2]["messages"][-2]["role"] == "assistant"  # its own rejected draft, in the same conversation
    # the seed passes the check and says exactly what the hand-written one says
    assert check_text(drafted.text, drafted.file) is None
    assert drafted.world == "toolshed" and drafted.file == "toolshed.seed.yaml"
    written, hand_written = load_seed_text(drafted.text, drafted.file).seed, load_seed(FIXTURE).seed
    assert written.scenario == hand_written.scenario.strip()  # a folded block's final newline is not kept
    assert written.model_copy(update={"scenario": hand_written.scenario}) == hand_written
    assert drafted.text.startswith("# Drafted by the model fake-model from toolshed.md")


def test_the_same_replies_give_the_same_bytes_and_a_rerun_asks_nothing(tmp_path: Path) -> None:
    script = [_reply(s.name) for s in SECTIONS]
    with FakeOpenAI(script) as fake:
        first = draft_seed(read_freeform(PARAGRAPH), _llm(fake, tmp_path))
        again = _llm(fake, tmp_path)
        second = draft_seed(read_freeform(PARAGRAPH), again)
    assert fake.count == len(SECTIONS)
    assert (again.ledger.requests, again.ledger.cached) == (0, len(SECTIONS))
    assert first.text == second.text


def test_a_partial_yaml_seed_is_kept_and_only_the_rest_is_drafted(tmp_path: Path) -> None:
    seed = _seed()
    given = {k: seed[k] for k in ("world", "title", "scenario", "today", "users", "entities")}
    source = tmp_path / "partial.md"
    source.write_text("A tool library; the catalogue and loans are given below.\n\n```yaml\n"
                      + yaml.safe_dump(given, sort_keys=False) + "```\n")
    with FakeOpenAI([_reply("workflows"), _reply("storyline"), _reply("tasks")]) as fake:
        drafted = draft_seed(read_freeform(source), _llm(fake, tmp_path))
    assert [r["response_format"]["json_schema"]["name"] for r in fake.requests] == ["SeedWorkflows", "SeedStoryline", "SeedTasks"]
    assert "A tool library; the catalogue" in fake.requests[0]["messages"][1]["content"]
    loaded = load_seed_text(drafted.text, drafted.file).seed
    assert loaded.entities == load_seed(FIXTURE).seed.entities and loaded.title == seed["title"]


def test_a_draft_that_keeps_failing_the_check_stops_at_the_bound(tmp_path: Path) -> None:
    bad = _reply("entities", _with_bad_display())
    with FakeOpenAI([_reply("app"), bad, bad]) as fake, pytest.raises(SeedDraftError) as caught:
        draft_seed(read_freeform(PARAGRAPH), _llm(fake, tmp_path), rounds=2)
    assert fake.count == 3
    message = str(caught.value)
    assert "\n" not in message and caught.value.exit_code == 2
    assert re.fullmatch(r".*toolshed\.md: the model's draft of the entities section still fails `factory check` after 2 "
                        r"rounds: toolshed\.seed\.yaml:\d+: entities\[1\]\.display: display names unknown field 'tool_title'",
                        message), message


def test_a_broken_yaml_block_is_a_located_error(tmp_path: Path) -> None:
    source = tmp_path / "broken.md"
    source.write_text("A world.\n\n```yaml\nworld: [x\n```\n")
    with pytest.raises(Exception, match=r"broken\.md:\d+: YAML syntax error in the partial seed"):
        read_freeform(source)
    source.write_text("A world.\n\n```yaml\nwrold: x\n```\n")
    with pytest.raises(Exception, match=r"broken\.md:4: wrold: unknown seed key"):
        read_freeform(source)
