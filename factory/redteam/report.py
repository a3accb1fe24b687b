"""The red team's result: every graded probe, counts per probe kind, and every false positive.

`probes` of a kind counts the probes graded (left out: those not applicable to a task, and those
`equivalent` to the golden state, which are legitimate solutions). Of these, `graded_0` scored
below 1 (the reward held), `false_positives` scored 1, `errors` could not be graded.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from factory.redteam.probes import KINDS

# Answers are quoted this long at most in reports (a probe's answer can be a megabyte).
ANSWER_PREVIEW = 120
# Not-applicable reasons listed per kind (the counts cover them all).
NA_EXAMPLES = 3


def preview(answer: object) -> str | None:
    """An answer as a report quotes it: short ones whole, long ones cut with their length."""
    if answer is None:
        return None
    text = str(answer)
    return text if len(text) <= ANSWER_PREVIEW else f"{text[:ANSWER_PREVIEW]}… ({len(text)} characters)"


@dataclass(frozen=True)
class ProbeResult:
    """One probe as graded: `verdict` is rejected, false_positive, equivalent, error or
    not_applicable (then `note` says why and there is no score)."""

    task: str
    task_type: str
    kind: str
    name: str
    verdict: str
    score: float | None = None
    note: str = ""
    answer: str | None = None
    explanation: str = ""
    # Building and grading it; left out of `to_json` so that two runs give the same results.
    seconds: float = field(default=0.0, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if (v not in ("", None) or k == "score") and k != "seconds"}


@dataclass
class KindCount:
    """The probes of one kind over the whole corpus."""

    kind: str
    probes: int = 0
    graded_0: int = 0
    false_positives: int = 0
    errors: int = 0
    equivalent: int = 0
    not_applicable: int = 0
    tasks: int = 0  # tasks that got at least one graded probe of this kind


@dataclass
class RedTeamReport:
    """The whole run: what was probed, how long it took, and every result in a stable order."""

    world: str
    tasks: int
    seed: int
    kinds: list[str]
    seconds: float
    results: list[ProbeResult]
    baseline: list[dict[str, Any]] = field(default_factory=list)
    cross_limit: int | None = None

    def counts(self) -> list[KindCount]:
        """One count per selected kind, in the catalogue's order."""
        by_kind = {k: KindCount(k) for k in KINDS if k in self.kinds}
        tasks: dict[str, set[str]] = {k: set() for k in by_kind}
        for r in self.results:
            c = by_kind[r.kind]
            if r.verdict == "not_applicable":
                c.not_applicable += 1
                continue
            if r.verdict == "equivalent":
                c.equivalent += 1
                continue
            c.probes += 1
            tasks[r.kind].add(r.task)
            if r.verdict == "false_positive":
                c.false_positives += 1
            elif r.verdict == "error":
                c.errors += 1
            else:
                c.graded_0 += 1
        for kind, c in by_kind.items():
            c.tasks = len(tasks[kind])
        return list(by_kind.values())

    def false_positives(self) -> list[ProbeResult]:
        return [r for r in self.results if r.verdict == "false_positive"]

    def errors(self) -> list[ProbeResult]:
        return [r for r in self.results if r.verdict == "error"]

    @property
    def probes(self) -> int:
        return sum(c.probes for c in self.counts())

    @property
    def graded(self) -> int:
        """Every call to `verifiers.grade` on a probe (equivalent ones included)."""
        return sum(r.verdict != "not_applicable" for r in self.results)

    @property
    def probes_per_second(self) -> float:
        return self.graded / self.seconds if self.seconds > 0 else 0.0

    def seconds_by_kind(self) -> dict[str, float]:
        """Time spent building and grading each kind's probes, summed over the workers."""
        spent: dict[str, float] = {}
        for r in self.results:
            spent[r.kind] = spent.get(r.kind, 0.0) + r.seconds
        return {k: round(spent[k], 3) for k in KINDS if k in spent}

    def not_applicable(self) -> dict[str, list[dict[str, Any]]]:
        """Per kind, the most common reasons a probe could not be made, with how often."""
        reasons: dict[str, Counter[str]] = {}
        for r in self.results:
            if r.verdict == "not_applicable":
                # Grouped by the reason without its details (the SQLite message, the other task).
                reason = r.note.split(" (")[0]
                if r.kind == "cross:other_golden":
                    reason = reason.replace(r.name, "another task")
                reasons.setdefault(r.kind, Counter())[reason.strip()] += 1
        return {kind: [{"reason": reason, "count": n} for reason, n in counter.most_common(NA_EXAMPLES)]
                for kind, counter in reasons.items()}

    def summary(self) -> str:
        """One line: probes, false positives (by kind), time and rate."""
        fps = Counter(r.kind for r in self.false_positives())
        by_kind = ", ".join(f"{k} {n}" for k, n in sorted(fps.items(), key=lambda kv: list(KINDS).index(kv[0])))
        spent = self.seconds_by_kind()
        slowest = max(spent, key=lambda k: spent[k]) if spent else None
        most = f", most time in {slowest} ({spent[slowest]:.0f} s of work)" if slowest else ""
        return (f"redteam: {self.probes} probes on {self.tasks} tasks, {sum(fps.values())} false positives"
                f"{f' ({by_kind})' if by_kind else ''}, {len(self.errors())} grading errors, "
                f"in {self.seconds:.1f} s ({self.probes_per_second:.0f} probes/s{most})")

    def to_json(self) -> dict[str, Any]:
        return {
            "world": self.world,
            "tasks": self.tasks,
            "seed": self.seed,
            "kinds": self.kinds,
            "cross_limit": self.cross_limit,
            "seconds": round(self.seconds, 3),
            "probes": self.probes,
            "graded": self.graded,
            "probes_per_second": round(self.probes_per_second, 1),
            "false_positive_count": len(self.false_positives()),
            "counts": [asdict(c) for c in self.counts()],
            "seconds_by_kind": self.seconds_by_kind(),
            "false_positives": [r.to_json() for r in self.false_positives()],
            "errors": [r.to_json() for r in self.errors()],
            "baseline": self.baseline,
            "not_applicable": self.not_applicable(),
            "results": [r.to_json() for r in self.results],
        }
