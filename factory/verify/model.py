"""Verification results: per-claim outcome with its evidence, and the whole report."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

REPORT_VERSION = 1


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RequestRecord(Strict):
    """One HTTP exchange made while checking a claim."""

    method: str
    path: str
    user: str | None
    status: int
    body: Any = None


class Evidence(Strict):
    """Everything gathered while checking one claim (what a reviewer or the triager reads)."""

    requests: list[RequestRecord] = Field(default_factory=list)
    sql_rows: list[list[Any]] | None = None
    db_diff: dict[str, Any] | None = None
    screenshot: str | None = None
    console_errors: list[str] = Field(default_factory=list)
    server_log: list[str] = Field(default_factory=list)
    error: str | None = None


class ClaimResult(Strict):
    """The outcome of one claim."""

    id: str
    layer: str
    kind: str
    passed: bool
    message: str
    # wall-clock time is kept out of the written report: the report is committed, and the same
    # world verified twice must commit the same bytes (its timings go to run/verify/timings.json)
    seconds: float = Field(0.0, exclude=True)
    evidence: Evidence = Field(default_factory=Evidence)


class VerifyReport(Strict):
    """A verification run over a whole claim set."""

    schema_version: int = REPORT_VERSION
    world: str
    claims_sha256: str
    total: int
    passed: int
    seconds: float = Field(0.0, exclude=True)
    results: list[ClaimResult]

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 0.0

    def failures(self) -> list[ClaimResult]:
        return [r for r in self.results if not r.passed]
