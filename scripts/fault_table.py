"""Render the per-kind table of one or more mutation reports as Markdown (for the README).

    python scripts/fault_table.py worlds/echobank/reports/mutation.json worlds/echomail/reports/mutation.json

One row per kind of the suite, one column pair (killed, repaired) per report, then one row per
layer and the overall rates. A kind with no fault in a report (no site to hit) shows "–".
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def _cell(entry: dict[str, Any] | None) -> str:
    if not entry:
        return "– | –"
    killed = f"{entry['killed']}/{entry['faults']}"
    repaired = "not run" if entry.get("repaired") is None else f"{entry['repaired']}/{entry['killed']}"
    return f"{killed} | {repaired}"


def table(reports: list[dict[str, Any]]) -> str:
    """The Markdown table of the reports, side by side."""
    kinds: list[str] = []
    for report in reports:
        kinds += [k for k in report["by_kind"] if k not in kinds]
    layer_of = {k: r["by_kind"][k]["layer"] for r in reports for k in r["by_kind"]}
    head = "| kind | layer | " + " | ".join(f"{r['world']} killed | {r['world']} repaired" for r in reports) + " |"
    rule = "|---|---|" + "---|---|" * len(reports)
    lines = [head, rule]
    lines += [f"| `{k}` | {layer_of[k]} | " + " | ".join(_cell(r["by_kind"].get(k)) for r in reports) + " |"
              for k in kinds]
    for layer in ("db", "backend", "frontend"):
        lines.append(f"| **{layer}** | | " + " | ".join(_cell(r["by_layer"].get(layer)) for r in reports) + " |")
    overall = []
    for r in reports:
        faults = len(r["faults"])
        killed = sum(f["killed"] for f in r["faults"])
        repaired = sum(f["repaired"] for f in r["faults"])
        overall.append(f"**{killed}/{faults}** | **{repaired}/{killed}**")
    lines.append("| **all** | | " + " | ".join(overall) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path)
    args = parser.parse_args(argv)
    sys.stdout.write(table([json.loads(p.read_text()) for p in args.reports]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
