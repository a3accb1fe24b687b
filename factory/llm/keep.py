"""A world's model usage on disk: `reports/llm_usage.json`, summed over every agent run that used a
model (the seed's author, the repairer, the triager, the proposer, the judge), so the world says
what it cost in tokens whichever agents took part. The stage that asked commits it with its reports."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from pydantic import ValidationError

from factory.llm.accounting import Ledger, UsageReport, merged
from factory.world.layout import World

log = logging.getLogger(__name__)


def add_usage(root: Path, ledger: Ledger) -> UsageReport | None:
    """Add what `ledger` used to the world's usage file; None (and nothing written) when it used nothing."""
    report = ledger.report()
    if report.calls == 0:
        return None
    path = World(root).llm_usage
    if path.is_file():
        try:
            report = merged(UsageReport.model_validate_json(path.read_text(encoding="utf-8")), report)
        except (ValueError, ValidationError) as exc:  # a hand-edited or older file: start the sum again, say so
            log.warning("%s unreadable (%s): the usage is counted from this run on", path, exc)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report.model_dump(mode="json"), indent=2, sort_keys=True) + "\n")
    return report


__all__ = ["add_usage"]
