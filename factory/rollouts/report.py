"""The rollout triage report: `reports/rollout_triage.json` and `.md` in the world.

Counts per class and per cause (failed rollouts; passed ones only when flagged), examples with the
evidence behind each decision, the seeded causes of reference agents against the causes found
(calibration), malformed lines by number, rollouts for unknown tasks by name, the golden runs,
the repair jobs and what the affected rollouts are after them.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from factory.rollouts.classify import CLASSES, MODEL, NONE, Decision

REPORT_JSON = "reports/rollout_triage.json"
REPORT_MD = "reports/rollout_triage.md"
EXAMPLES = 3  # per class and cause


@dataclass
class TriageReport:
    world: str
    rollouts_file: str
    decisions: list[Decision] = field(default_factory=list)
    malformed: list[dict[str, Any]] = field(default_factory=list)  # {line, reason}
    unknown: list[dict[str, Any]] = field(default_factory=list)  # {line, task_id, episode_id, agent, reason}
    golden: dict[str, dict[str, Any]] = field(default_factory=dict)
    repair_tried: bool = False
    world_job: dict[str, Any] | None = None
    task_jobs: list[dict[str, Any]] = field(default_factory=list)
    after: list[Decision] = field(default_factory=list)  # the affected rollouts, classed again after repair
    after_how: dict[int, str] = field(default_factory=dict)  # line -> replayed | golden only
    seconds: dict[str, float] = field(default_factory=dict)
    judge: dict[str, Any] | None = None  # the judge's second opinions (`judge.py`), when a model gave them

    # ---------------------------------------------------------------- figures ----------------
    def flagged(self, decisions: list[Decision] | None = None) -> list[Decision]:
        """Failed rollouts, and passed ones whose evidence contradicts the reward."""
        return [d for d in (self.decisions if decisions is None else decisions) if d.failed or d.defect != NONE]

    def counts(self, decisions: list[Decision] | None = None) -> dict[str, int]:
        found = Counter(d.defect for d in self.flagged(decisions))
        return {c: found.get(c, 0) for c in CLASSES}

    def by_cause(self, decisions: list[Decision] | None = None) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {c: {} for c in CLASSES}
        for d in self.flagged(decisions):
            if d.defect in out:
                out[d.defect][d.cause] = out[d.defect].get(d.cause, 0) + 1
        return {c: dict(sorted(v.items())) for c, v in out.items()}

    def calibration(self, decisions: list[Decision] | None = None) -> dict[str, Any]:
        """Rollouts that name a seeded cause (reference agents): how many failed, how many were
        classed as model defects with that very cause, which were explained by a world or task
        defect first (`masked`), and which model defects got another cause (`mismatches`)."""
        seeded = [d for d in (self.decisions if decisions is None else decisions) if d.seeded_cause]
        failed = [d for d in seeded if d.failed]
        recovered = [d for d in failed if d.defect == MODEL and d.cause == d.seeded_cause]

        def row(d: Decision) -> dict[str, Any]:
            return {"line": d.line, "task_id": d.task_id, "seeded": d.seeded_cause, "found": f"{d.defect}:{d.cause}"}

        return {"seeded": len(seeded), "failed": len(failed), "recovered": len(recovered),
                "passed_anyway": [d.line for d in seeded if d.passed],
                "masked": [row(d) for d in failed if d.defect != MODEL],
                "mismatches": [row(d) for d in failed if d.defect == MODEL and d not in recovered]}

    def open_defects(self) -> list[dict[str, Any]]:
        """World and task defects still there: unrepaired jobs, or affected rollouts still flagged."""
        if not self.repair_tried:
            return [{"task_id": d.task_id, "line": d.line, "class": d.defect, "cause": d.cause}
                    for d in self.flagged() if d.defect in ("world", "task")]
        return [{"task_id": d.task_id, "line": d.line, "class": d.defect, "cause": d.cause}
                for d in self.flagged(self.after) if d.defect in ("world", "task")]

    def to_json(self) -> dict[str, Any]:
        examples: dict[str, list[dict[str, Any]]] = {}
        for d in self.flagged():
            bucket = examples.setdefault(f"{d.defect}:{d.cause}", [])
            if len(bucket) < EXAMPLES:
                bucket.append(d.to_json())
        out: dict[str, Any] = {
            "schema_version": 1, "world": self.world, "rollouts_file": self.rollouts_file,
            "rollouts": len(self.decisions), "failed": sum(d.failed for d in self.decisions),
            "passed": sum(d.passed for d in self.decisions),
            "passed_flagged": sum(d.passed and d.defect != NONE for d in self.decisions),
            "counts": self.counts(), "by_cause": self.by_cause(), "calibration": self.calibration(),
            "examples": dict(sorted(examples.items())),
            "malformed": self.malformed, "unknown_tasks": self.unknown,
            "decisions": [d.to_json() for d in self.decisions],
            "golden": self.golden, "repair_tried": self.repair_tried,
            "repairs": {"world": self.world_job, "tasks": self.task_jobs},
            "after_repair": None, "open": self.open_defects(), "seconds": self.seconds,
        }
        if self.judge is not None:
            out["judge"] = self.judge
        if self.repair_tried:
            out["after_repair"] = {"counts": self.counts(self.after), "by_cause": self.by_cause(self.after),
                                   "calibration": self.calibration(self.after),
                                   "rollouts": len(self.after), "passed": sum(d.passed for d in self.after),
                                   "decisions": [{**d.to_json(), "how": self.after_how.get(d.line, "")}
                                                 for d in self.after]}
        return out

    # ---------------------------------------------------------------- markdown ---------------
    def markdown(self) -> str:
        data = self.to_json()
        lines = [f"# Rollout triage: {self.world}", "",
                 f"{data['rollouts']} rollouts read from `{self.rollouts_file}`: {data['failed']} failed, "
                 f"{data['passed']} passed ({data['passed_flagged']} of them flagged); "
                 f"{len(self.malformed)} malformed line(s), {len(self.unknown)} rollout(s) for unknown tasks.", "",
                 "| class | rollouts | causes |", "|---|---:|---|"]
        for c in CLASSES:
            causes = ", ".join(f"{k} {v}" for k, v in data["by_cause"][c].items()) or "—"
            lines.append(f"| {c} defect | {data['counts'][c]} | {causes} |")
        cal = data["calibration"]
        if cal["seeded"]:
            lines += ["", f"Seeded mistakes (reference agents): {cal['seeded']} rollouts, {cal['failed']} failed, "
                          f"{cal['recovered']} classed as model defects with their seeded cause recovered, "
                          f"{len(cal['masked'])} explained by a world or task defect first."]
            for m in cal["mismatches"]:
                lines.append(f"- line {m['line']} ({m['task_id']}): seeded {m['seeded']}, found {m['found']}")
        if self.malformed:
            lines += ["", "## Malformed lines (skipped)", ""]
            lines += [f"- line {m['line']}: {m['reason']}" for m in self.malformed]
        if self.unknown:
            lines += ["", "## Rollouts for unknown tasks (not classed)", ""]
            lines += [f"- line {u['line']}: task `{u['task_id']}` (episode {u['episode_id']}, agent {u['agent']}): "
                      f"{u['reason']}" for u in self.unknown]
        lines += ["", "## Examples and their evidence", ""]
        for key, found in data["examples"].items():
            lines += [f"### {key}", ""]
            for d in found:
                lines.append(f"- line {d['line']}, `{d['task_id']}` ({d['agent']}, reward {d['reward']}): {d['why']}")
                lines.append(f"  - evidence: `{_short(d['evidence'])}`")
            lines.append("")
        if self.repair_tried:
            lines += ["## Repairs", ""]
            if self.world_job is not None:
                job = self.world_job
                kept = ", ".join(job["kept"]) or "none kept"
                lines.append(f"- stage one for {len(job['tasks'])} task(s) with world defects: {job['rounds']} round(s), "
                             f"fixes {kept}{'; error: ' + job['error'] if job['error'] else ''}")
            for t in self.task_jobs:
                what = "reward written again and re-gated" if t["regenerate"] else "re-gated"
                lines.append(f"- stage two, `{t['task_id']}` ({t['cause']}): {what} → {t['outcome']}"
                             f"{': ' + t['note'] if t['note'] else ''}")
            after = data["after_repair"]
            lines += ["", f"After repair, {after['rollouts']} affected rollout(s) classed again: {after['passed']} pass; "
                          + ", ".join(f"{c} {n}" for c, n in after["counts"].items()), ""]
            for d in after["decisions"]:
                lines.append(f"- line {d['line']}, `{d['task_id']}` ({d['how']}): reward {d['reward']}, "
                             f"{d['class']}:{d['cause']}")
        if self.judge is not None:
            flagged = [d for d in self.decisions if d.review is not None]
            lines += ["", "## Flagged for review by the judge", "",
                      f"The model {self.judge['model']} read {self.judge['asked']} READ answer(s) the rules scored 0 and "
                      f"thinks {len(flagged)} say what the reference answer says. The rewards stand; a person decides."]
            lines += [f"- line {d.line}, `{d.task_id}`: {(d.review or {}).get('rationale', '')}" for d in flagged]
        if data["open"]:
            lines += ["", "## Still open", ""]
            lines += [f"- line {o['line']}, `{o['task_id']}`: {o['class']} defect ({o['cause']})" for o in data["open"]]
        return "\n".join(lines) + "\n"

    def write(self, world: Path) -> tuple[Path, Path]:
        out_json, out_md = world / REPORT_JSON, world / REPORT_MD
        out_json.parent.mkdir(parents=True, exist_ok=True)
        out_json.write_text(json.dumps(self.to_json(), indent=1, sort_keys=True) + "\n")
        out_md.write_text(self.markdown())
        return out_json, out_md


def _short(evidence: dict[str, Any], limit: int = 400) -> str:
    text = json.dumps({k: v for k, v in evidence.items() if k not in ("golden_steps",)}, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = ["REPORT_JSON", "REPORT_MD", "TriageReport"]
