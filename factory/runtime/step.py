"""One workflow call as data: what a setup, a golden run, a claim's witness or an agent's action is made of."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Step:
    """One workflow call with API-level parameters: references as int ids (or None), money as int
    cents, dates 'YYYY-MM-DD', datetimes 'YYYY-MM-DDTHH:MM:SS', enums str, bools bool."""

    workflow: str
    params: dict[str, Any]


__all__ = ["Step"]
