"""What each storyline event did when the seed database was built, one line per event.

The generated seeder (`templates/backend/seed.py.j2`) counts, per event, the occurrences that ran,
those a precondition (or another check of the app) refused, those its `chance` skipped, the rows
the runs created and the commonest refusal. An event that never runs leaves no trace in the world
but its absence: the build prints these lines so a seed author sees it at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from factory.spec.model import Spec

TOTALS = ("ran", "rejected", "skipped")  # the manifest's `storyline` counts


@dataclass(frozen=True)
class EventCount:
    """One storyline event's occurrences over the whole history."""

    name: str
    workflow: str
    ran: int
    rejected: int
    skipped: int  # by chance
    created: int  # rows the runs created
    refusal: str | None = None  # the commonest refusal's message
    refusal_count: int = 0

    def line(self) -> str:
        """`storyline paycheck (deposit): 5 ran, 1 refused (×1 "Not enough money."), 2 skipped by chance; 10 rows created`."""
        if not (self.ran or self.rejected or self.skipped):
            return (f"storyline {self.name} ({self.workflow}): never ran: its `for_each` found no row on any of "
                    "its dates")
        parts = [f"{self.ran} ran"]
        if self.rejected:
            commonest = f" (×{self.refusal_count} {self.refusal!r})" if self.refusal else ""
            parts.append(f"{self.rejected} refused{commonest}")
        if self.skipped:
            parts.append(f"{self.skipped} skipped by chance")
        return f"storyline {self.name} ({self.workflow}): {', '.join(parts)}; {self.created} rows created"


def totals(report: dict[str, Any]) -> dict[str, int]:
    """The seeder's counts over every event, as the manifest keeps them."""
    return {key: int(report.get(key, 0)) for key in TOTALS}


def event_counts(report: dict[str, Any], spec: Spec) -> list[EventCount]:
    """Per storyline event of `spec`, in seed order, what the seeder's report says it did (none for
    a seeder generated before it counted per event)."""
    events: dict[str, dict[str, Any]] = report.get("events") or {}
    out = []
    for story in spec.storyline:
        counted = events.get(story.name)
        if counted is None:
            continue
        out.append(EventCount(
            name=story.name, workflow=story.workflow, ran=int(counted.get("ran", 0)),
            rejected=int(counted.get("rejected", 0)), skipped=int(counted.get("skipped", 0)),
            created=int(counted.get("created", 0)), refusal=counted.get("refusal"),
            refusal_count=int(counted.get("refusal_count", 0))))
    return out
