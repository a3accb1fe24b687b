"""The triager's model policy through the scripted fake endpoint (real HTTP, the real SDK): a cluster
the signature table cannot place gets a known cause from the model, an answer outside the known set
is rejected (and the cluster stays unplaced), `unknown` stays unknown, and with no model the
triage report is the one it always was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes.openai_server import FakeOpenAI, Scripted

from factory.llm.ask import LLM, open_llm
from factory.llm.config import load_config
from factory.prove.placer import CAUSES, MEANINGS, UNKNOWN, place_unplaced
from factory.prove.triage import SIGNATURES, Triage, triage, write_triage
from factory.verify.model import ClaimResult, Evidence, VerifyReport
from factory.world.layout import TRIAGE


def _report() -> VerifyReport:
    """Two failures: one the table places (a 500), one it cannot (a shape no row matches)."""
    results = [
        ClaimResult(id="route:get_note:ok", layer="backend", kind="route_status", passed=False, message="status 500",
                    evidence=Evidence(server_log=["Traceback (most recent call last):", "KeyError: 'x'"])),
        ClaimResult(id="page:notes:calendar", layer="frontend", kind="calendar_entries", passed=False,
                    message="the calendar shows 3 entries on 2026-06-15 where the rows give 4"),
        ClaimResult(id="route:list_note:ok", layer="backend", kind="route_status", passed=True, message="ok"),
    ]
    return VerifyReport(world="mock", claims_sha256="x", total=3, passed=1, results=results)


def _llm(fake: FakeOpenAI, tmp_path: Path, **extra: str) -> LLM:
    config = load_config(fake.env(FACTORY_LLM_CACHE=str(tmp_path / "cache"), FACTORY_LLM_BACKOFF="0", **extra))
    assert config is not None
    return LLM(config)


def _unplaced(result: Triage) -> list[str]:
    return [c.id for c in result.clusters if c.needs_llm]


def test_every_cause_of_the_table_is_explained_to_the_model() -> None:
    assert set(MEANINGS) == {s.name for s in SIGNATURES} == set(CAUSES)


def test_the_model_places_what_the_table_cannot(tmp_path: Path) -> None:
    table = triage(_report())
    assert _unplaced(table) == ["frontend:unplaced:notes"]
    reply = {"cause": "list_wrong_rows", "rationale": "the calendar lists fewer rows than the data holds"}
    with FakeOpenAI([Scripted(reply)]) as fake:
        placed = place_unplaced(table, _report(), _llm(fake, tmp_path))
    assert fake.count == 1
    question = fake.requests[0]["messages"][0]["content"]
    assert "the calendar shows 3 entries on" in question and "`ownership_leak`" in question
    assert fake.requests[0]["response_format"]["json_schema"]["schema"]["properties"]["cause"]["enum"][-1] == UNKNOWN
    cluster = next(c for c in placed.clusters if c.model is not None)
    assert (cluster.id, cluster.layer, cluster.signature, cluster.fixer, cluster.needs_llm) == (
        "backend:list_wrong_rows:notes", "backend", "list_wrong_rows", "regenerate_backend", False)
    assert cluster.model.accepted and cluster.model.rationale == reply["rationale"]
    assert [c.id for c in placed.clusters if c.model is None] == [c.id for c in table.clusters if not c.needs_llm]


def test_an_answer_outside_the_known_set_is_rejected(tmp_path: Path) -> None:
    table = triage(_report())
    wrong = [Scripted({"cause": "cosmic_rays", "rationale": "bits flip"}),
             Scripted({"cause": "flaky_calendar", "rationale": "it happens"})]
    with FakeOpenAI(wrong) as fake:
        placed = place_unplaced(table, _report(), _llm(fake, tmp_path, FACTORY_LLM_ATTEMPTS="2"))
    assert fake.count == 2
    assert "'cosmic_rays' is not a known cause" in fake.requests[1]["messages"][-1]["content"]  # told, then asked again
    [cluster] = [c for c in placed.clusters if c.model is not None]
    assert cluster.needs_llm and cluster.signature == "unplaced" and cluster.id == "frontend:unplaced:notes"
    assert not cluster.model.accepted and "flaky_calendar" in cluster.model.note


def test_unknown_stays_unknown(tmp_path: Path) -> None:
    table = triage(_report())
    with FakeOpenAI([Scripted({"cause": "unknown", "rationale": "the evidence names no cause"})]) as fake:
        placed = place_unplaced(table, _report(), _llm(fake, tmp_path))
    [cluster] = [c for c in placed.clusters if c.model is not None]
    assert cluster.needs_llm and cluster.fixer == table.clusters[-1].fixer and cluster.model.cause == UNKNOWN
    assert not cluster.model.accepted


def test_with_no_model_the_triage_report_is_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FACTORY_LLM_MODEL", raising=False)
    monkeypatch.delenv("FACTORY_LLM_CONFIG", raising=False)
    table = triage(_report())
    assert place_unplaced(table, _report(), open_llm()) is table
    write_triage(tmp_path, table)
    clusters = json.loads((tmp_path / TRIAGE).read_text())["clusters"]
    assert all(set(c) == {"id", "layer", "signature", "fixer", "needs_llm", "claims", "suspected_files", "example"}
               for c in clusters)
