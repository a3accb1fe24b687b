"""Server-side events of one episode (requests, statuses, exceptions, timing), bounded, for
rollout triage to read through the evaluator API."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

MAX_EVENTS = 5000  # an episode that floods the server keeps its first events and a count of the rest


@dataclass
class EventLog:
    started: float = field(default_factory=time.monotonic)
    events: list[dict[str, Any]] = field(default_factory=list)
    dropped: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, kind: str, **details: Any) -> None:
        event = {"n": 0, "t": round(time.monotonic() - self.started, 4), "kind": kind, **details}
        with self._lock:
            if len(self.events) >= MAX_EVENTS:
                self.dropped += 1
                return
            event["n"] = len(self.events) + 1
            self.events.append(event)

    def to_json(self, since: int = 0) -> dict[str, Any]:
        with self._lock:
            chosen = [e for e in self.events if e["n"] > since]
            statuses = [e.get("status", 0) for e in self.events if e["kind"] == "request"]
            return {"events": chosen, "dropped": self.dropped,
                    "counts": {"requests": len(statuses),
                               "4xx": sum(400 <= s < 500 for s in statuses),
                               "5xx": sum(s >= 500 for s in statuses),
                               "exceptions": sum(e["kind"] == "exception" for e in self.events)}}
