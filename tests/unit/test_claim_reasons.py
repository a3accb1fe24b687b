"""Reasons for rules without a boundary pair: `x.f != null` is unreachable exactly when no writer
of `f` can leave it null."""

from __future__ import annotations

from pathlib import Path

from factory.builder.build import build_spec
from factory.claims.reasons import _never_null
from factory.seed.loader import load_seed

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def test_a_field_every_writer_fills_from_a_required_reference_is_never_null() -> None:
    spec = build_spec(load_seed(SEEDS / "echomail.yaml"))
    send = next(w for w in spec.workflows if w.name == "send_draft")
    writers = _never_null(spec, send, "draft.to_user != null")
    assert {"save_draft", "edit_draft"} <= set(writers)
    assert _never_null(spec, send, "draft.folder == 'drafts'") == []  # not a null rule

    # one writer whose recipient becomes optional can leave it null: no longer unreachable
    save = next(w for w in spec.workflows if w.name == "save_draft")
    recipient = next(p for p in save.params if p.name == "recipient")
    recipient.required = False
    assert _never_null(spec, send, "draft.to_user != null") == []
