"""The compiled-claims cache (`claims.lock._compiled`): a hit is exactly a compile, and an entry that
is not a well-formed claim set (truncated, garbled) is compiled again and rewritten, never trusted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from factory.claims import lock
from factory.claims.compile import claims_text, compile_claims
from factory.claims.model import ClaimSet


@pytest.fixture()
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_hit_is_exactly_a_compile_and_a_bad_entry_is_compiled_again(mock_world: Path, cache_home: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    truth = lock.derive_truth(mock_world)
    compiled = claims_text(compile_claims(mock_world, spec=truth.spec, db=truth.db))
    _claims, first = lock._compiled(mock_world, truth)
    assert first == compiled
    entries = list((cache_home / "world-factory" / "claims").glob("*.json"))
    assert len(entries) == 1 and entries[0].read_text() == compiled

    calls: list[int] = []
    real = lock.compile_claims

    def counting(world: Path, **kwargs: Any) -> ClaimSet:
        calls.append(1)
        return real(world, **kwargs)

    monkeypatch.setattr(lock, "compile_claims", counting)
    _claims, hit = lock._compiled(mock_world, truth)
    assert hit == compiled and calls == []  # served from the cache, no compile

    for bad in (compiled[: len(compiled) // 2], "not json", compiled.replace("\n", " ", 3)):
        entries[0].write_text(bad)
        _claims, again = lock._compiled(mock_world, truth)
        assert again == compiled
        assert entries[0].read_text() == compiled  # the bad entry was replaced
    assert len(calls) == 3
