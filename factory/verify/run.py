"""Run every claim of a world against the running app and write the verification report.

SQL claims read the seed database. HTTP and UI claims run in parallel lanes (`factory.runtime.lanes`),
each a real uvicorn server on a free loopback port; every claim that may write gets its own fresh
copy of the seed database (the lane's server is rebound to it through its control endpoint), and
its row-level difference from the seed database is part of the evidence. A lane's UI claims share
its one Chromium, each in a fresh context.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from episodes.dbfiles import copy_db
from factory import progress as reporting
from factory.claims.compile import claims_sha256
from factory.claims.model import (
    Claim,
    ClaimSet,
    EffectsExactly,
    EntriesAre,
    HttpGetter,
    IdsAmong,
    InvariantGetter,
    ListIs,
    NoRows,
    RejectedUnchanged,
    SqlGetter,
    StatusIs,
    UiGetter,
    UiPasses,
)
from factory.errors import ClaimsTampered, FactoryError, WorldError
from factory.runtime.lanes import Lane, run_lanes
from factory.spec.model import Spec
from factory.verify.judge import judge_effects, judge_entries, judge_ids_among, judge_list, judge_rejected, judge_status
from factory.verify.model import ClaimResult, Evidence, RequestRecord, VerifyReport
from factory.world.layout import CLAIMS, VERIFICATION, VERIFICATION_SUMMARY, World
from verifiers.dbdiff import diff_databases

Progress = Callable[[int, int, ClaimResult], None]


def load_claims(world: Path, expected_sha256: str | None = None) -> tuple[ClaimSet, str]:
    """The world's claims and their hash; with `expected_sha256`, refuse a claims file that changed."""
    path = world / CLAIMS
    if not path.is_file():
        raise WorldError(f"{path} is missing: compile the claims first")
    text = path.read_text()
    digest = claims_sha256(text)
    if expected_sha256 is not None and digest != expected_sha256:
        raise ClaimsTampered(f"{path} changed since the claims compiler wrote it (sha256 {digest[:12]} ≠ "
                             f"{expected_sha256[:12]}); claims are the yardstick and are never edited by hand or by a repair")
    return ClaimSet.model_validate_json(text), digest


class LoginFailed(WorldError):
    """A claim's user could not log in (recorded as the claim's failure, not raised out of the run)."""


class _Clients:
    """One logged-in HTTP client per user (sessions are signed cookies, valid across databases)."""

    def __init__(self, base: str, spec: Spec) -> None:
        self.base, self.spec = base, spec
        self.clients: dict[str | None, httpx.Client] = {}

    def get(self, user: str | None) -> httpx.Client:
        if user not in self.clients:
            # idle connections are dropped before uvicorn closes them (its keep-alive is 5 s): a lane
            # interleaves browser claims, and reusing a connection the server closed fails the request
            client = httpx.Client(base_url=self.base, timeout=20, limits=httpx.Limits(keepalive_expiry=1.0))
            if user is not None:
                password = next(u.password for u in self.spec.users if u.username == user)
                response = client.post("/api/auth/login", json={"username": user, "password": password})
                if response.status_code != 200 or "session" not in client.cookies:
                    raise LoginFailed(f"cannot log in as {user}: {response.status_code} {response.text[:200]}")
            self.clients[user] = client
        return self.clients[user]

    def close(self) -> None:
        for client in self.clients.values():
            client.close()


class _LaneState:
    """What a verifier lane keeps between its claims: logged-in HTTP clients, the browser sessions
    (username → storage state) and which of its two claim database copies comes next."""

    def __init__(self, base: str, spec: Spec) -> None:
        self.clients = _Clients(base, spec)
        self.sessions: dict[str, Any] = {}
        self.flip = 0

    def close(self) -> None:
        self.clients.close()


class Verifier:
    """Checks claims against one world; `run` returns the report."""

    def __init__(self, world: Path, ui: bool = True, keep_screenshots: bool = True, workers: int = 2) -> None:
        self.world = world.resolve()
        self.spec = World(self.world).spec
        self.ui, self.keep_screenshots = ui, keep_screenshots
        self.work = World(self.world).verify_work
        self.seed = World(self.world).seed_db
        self.workers = workers
        self.passwords = {u.username: u.password for u in self.spec.users}
        self.shots = World(self.world).screenshots_dir

    def run(self, claims: ClaimSet, digest: str, progress: Progress | None = None) -> VerifyReport:
        start = time.perf_counter()
        if self.work.exists():
            shutil.rmtree(self.work)
        self.work.mkdir(parents=True)
        if self.ui and self.shots.exists():  # every browser claim photographs its page again (the review site shows them)
            shutil.rmtree(self.shots)
        todo = [c for c in claims.claims if self.ui or not isinstance(c.getter, UiGetter)]
        # the counted display (a live bar in the CLI) is display only; `progress` stays the caller's hook
        with reporting.task("verify claims", total=len(todo)) as advance:
            return self._run(todo, claims, digest, start, advance, progress)

    def _run(self, todo: list[Claim], claims: ClaimSet, digest: str, start: float, advance: reporting.Advance,
             progress: Progress | None) -> VerifyReport:
        results: dict[str, ClaimResult] = {}

        def record(result: ClaimResult) -> None:  # the lanes call it under their lock, one at a time
            results[result.id] = result
            advance(1)
            if progress:
                progress(len(results), len(todo), result)

        invariants: dict[str, list[int]] | str | None = None
        for claim in todo:
            if isinstance(claim.getter, SqlGetter):
                record(self._sql(claim))
            elif isinstance(claim.getter, InvariantGetter):
                if invariants is None:
                    invariants = self._invariants()
                record(self._invariant(claim, invariants))
        http = [c for c in todo if isinstance(c.getter, HttpGetter)]
        browser_claims = [c for c in todo if isinstance(c.getter, UiGetter)]
        # Lanes run in parallel, each with its own server, database copies and browser: claims
        # never share a database, so parallel checking cannot make one claim see another's writes.
        # They share one queue, the slow browser claims first, so they finish together.
        run_lanes(self.world, browser_claims + http, self._lane_claim, lanes=self.workers, work=self.work,
                  start_db=self.seed, name="verify-lane", on_result=lambda _, result: record(result))
        ordered = [results[c.id] for c in todo]
        report = VerifyReport(world=claims.world, claims_sha256=digest, total=len(ordered),
                              passed=sum(r.passed for r in ordered), seconds=round(time.perf_counter() - start, 2),
                              results=ordered)
        return report

    def _lane_claim(self, lane: Lane, claim: Claim) -> ClaimResult:
        """One HTTP or browser claim, in a lane (claims in a lane run one after another)."""
        state = lane.resource("verify", lambda: _LaneState(lane.server.url, self.spec))
        if isinstance(claim.getter, UiGetter):
            return self._browser_claim(claim, lane, state)
        return self._http(claim, lane, state)

    # ---- getters --------------------------------------------------------------------------
    def _sql(self, claim: Claim) -> ClaimResult:
        started = time.perf_counter()
        assert isinstance(claim.getter, SqlGetter) and isinstance(claim.predicate, NoRows)
        evidence = Evidence()
        try:
            with sqlite3.connect(f"file:{self.seed}?mode=ro", uri=True) as conn:
                rows = [list(r) for r in conn.execute(claim.getter.query).fetchmany(20)]
            evidence.sql_rows = rows
            ok, message = (not rows), ("no violations" if not rows else f"{len(rows)}+ violating rows, e.g. {rows[0]}")
        except sqlite3.Error as exc:
            ok, message, evidence.error = False, f"query failed: {exc}", str(exc)
        return self._result(claim, ok, message, started, evidence)

    def _invariants(self) -> dict[str, list[int]] | str:
        """Every invariant's violations, evaluated by the factory from the spec's sources over the seed
        database (or the reason it could not be). Never the app's generated `backend.invariants`: a
        repair could edit that checker to pass while the data breaks the invariant."""
        # imported here: the expression interpreter is only needed when a claim names an invariant
        from factory.claims.invariants import all_violations

        try:
            return all_violations(self.spec, self.world, self.seed)
        except FactoryError as exc:
            return str(exc)

    def _invariant(self, claim: Claim, invariants: dict[str, list[int]] | str) -> ClaimResult:
        started = time.perf_counter()
        assert isinstance(claim.getter, InvariantGetter)
        evidence = Evidence()
        if isinstance(invariants, str):
            evidence.error = invariants
            return self._result(claim, False, f"query failed: the invariants could not be evaluated: {invariants}",
                                started, evidence)
        if claim.getter.name not in invariants:
            return self._result(claim, False, f"query failed: the spec has no invariant {claim.getter.name}", started, evidence)
        rows = invariants[claim.getter.name]
        evidence.sql_rows = [[i] for i in rows[:20]]
        message = "no violations" if not rows else f"{len(rows)}+ violating rows, e.g. {rows[:5]}"
        return self._result(claim, not rows, message, started, evidence)

    def _fresh(self, lane: Lane, state: _LaneState) -> Path:
        """A fresh copy of the seed database, bound to the lane's server (two files, used in turn)."""
        state.flip ^= 1
        db = lane.work / f"claim-{state.flip}.db"
        copy_db(self.seed, db)
        lane.server.use_db(db)
        return db

    def _plant(self, db: Path, statements: list[str]) -> Path:
        """Run a claim's planting SQL on its own database copy (the seed database is never touched);
        return a copy of the planted state, the baseline the claim's changes are read against."""
        with sqlite3.connect(db) as conn:
            for statement in statements:
                conn.execute(statement)
        conn.close()
        return copy_db(db, db.with_name(db.stem + "-planted.db"))

    def _http(self, claim: Claim, lane: Lane, state: _LaneState) -> ClaimResult:
        server = lane.server
        started = time.perf_counter()
        getter = claim.getter
        assert isinstance(getter, HttpGetter)
        evidence = Evidence()
        _, offset = server.log_tail(0)
        if not getter.steps:
            return self._result(claim, False, "no witness: the claims compiler found no call that completes it",
                                started, evidence)
        db = self._fresh(lane, state) if getter.fresh_db or getter.plant else None
        baseline = self.seed
        if getter.plant and db is not None:
            baseline = self._plant(db, getter.plant)
        status, body, content_type = 0, None, ""
        try:
            for step in getter.steps:
                client = state.clients.get(step.user)
                if step.user is None:
                    client.cookies.clear()
                response = client.request(step.method, step.path, params=step.query,
                                          json=step.body if step.method != "GET" else None)
                status, content_type = response.status_code, response.headers.get("content-type", "")
                body = response.json() if "json" in content_type else response.text[:300]
                evidence.requests.append(RequestRecord(method=step.method, path=step.path, user=step.user,
                                                       status=status, body=body))
        except (httpx.HTTPError, LoginFailed) as exc:
            evidence.error = f"{type(exc).__name__}: {exc}"
            if db is not None:
                server.use_db(lane.db)
            return self._result(claim, False, f"request failed: {exc}", started, evidence)
        diff = diff_databases(baseline, db) if db is not None else None
        if diff is not None:
            evidence.db_diff = diff.to_json()
        evidence.server_log = server.log_tail(offset)[0][-40:]
        ok, message = self._judge(claim, status, body, content_type, diff)
        if db is not None:
            server.use_db(lane.db)  # reads between writes see the untouched copy
        return self._result(claim, ok, message, started, evidence)

    def _judge(self, claim: Claim, status: int, body: Any, content_type: str, diff: Any) -> tuple[bool, str]:
        predicate = claim.predicate
        if isinstance(predicate, StatusIs):
            return judge_status(predicate, status, body, content_type)
        if isinstance(predicate, EffectsExactly):
            return judge_effects(predicate, status, body, diff)
        if isinstance(predicate, RejectedUnchanged):
            return judge_rejected(predicate, status, body, diff)
        if isinstance(predicate, ListIs):
            return judge_list(predicate, status, body)
        if isinstance(predicate, IdsAmong):
            return judge_ids_among(predicate, status, body)
        if isinstance(predicate, EntriesAre):
            return judge_entries(predicate, status, body)
        raise AssertionError(f"{claim.id}: predicate {predicate.type} does not apply to an HTTP getter")

    def _browser_claim(self, claim: Claim, lane: Lane, state: _LaneState) -> ClaimResult:
        from factory.verify.ui import run_ui_claim

        server = lane.server
        started = time.perf_counter()
        getter, predicate = claim.getter, claim.predicate
        assert isinstance(getter, UiGetter) and isinstance(predicate, UiPasses)
        _, offset = server.log_tail(0)
        db = self._fresh(lane, state)
        baseline = self._plant(db, getter.plant) if getter.plant else self.seed
        browser = lane.browser()  # started at the lane's first browser claim
        self.shots.mkdir(parents=True, exist_ok=True)
        outcome = run_ui_claim(browser, server.url, self.spec, getter, self.passwords.__getitem__, self.shots,
                               claim.id, keep_screenshots=self.keep_screenshots, sessions=state.sessions)
        evidence = Evidence(console_errors=outcome.console_errors,
                            screenshot=str(Path(outcome.screenshot).relative_to(self.world)) if outcome.screenshot else None)
        ok, message = outcome.ok, outcome.message
        if predicate.effects is not None:
            diff = diff_databases(baseline, db)
            evidence.db_diff = diff.to_json()
            if ok:
                ok, message = judge_effects(predicate.effects, 200, None, diff)
        evidence.server_log = server.log_tail(offset)[0][-40:]
        server.use_db(lane.db)
        return self._result(claim, ok, message, started, evidence)

    @staticmethod
    def _result(claim: Claim, ok: bool, message: str, started: float, evidence: Evidence) -> ClaimResult:
        return ClaimResult(id=claim.id, layer=claim.layer, kind=claim.kind, passed=ok, message=message,
                           seconds=round(time.perf_counter() - started, 3), evidence=evidence)


def write_report(world: Path, report: VerifyReport) -> None:
    """The JSON report and a readable summary next to it."""
    path = world / VERIFICATION
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report.model_dump(mode="json"), indent=1) + "\n")
    timings = {"seconds": report.seconds, "claims": {r.id: r.seconds for r in report.results}}
    World(world).verify_work.mkdir(parents=True, exist_ok=True)
    World(world).verify_timings.write_text(json.dumps(timings, indent=1, sort_keys=True) + "\n")
    lines = [f"# Verification of {report.world}", "",
             f"{report.passed}/{report.total} claims passed ({100 * report.rate:.1f}%).", ""]
    by_layer: dict[str, list[int]] = {}
    for r in report.results:
        tally = by_layer.setdefault(r.layer, [0, 0])
        tally[0] += r.passed
        tally[1] += 1
    lines += ["| layer | passed | total |", "|---|---|---|"]
    lines += [f"| {layer} | {p} | {t} |" for layer, (p, t) in sorted(by_layer.items())]
    failures = report.failures()
    if failures:
        lines += ["", "## Failures", ""]
        lines += [f"- `{r.id}` ({r.layer}): {r.message}" for r in failures]
    (world / VERIFICATION_SUMMARY).write_text("\n".join(lines) + "\n")


def verify_world(world: Path, ui: bool = True, expected_sha256: str | None = None,
                 progress: Progress | None = None, workers: int = 2) -> VerifyReport:
    """Verify every claim of a built world and write its report (browser claims in `workers` lanes)."""
    claims, digest = load_claims(world, expected_sha256)
    report = Verifier(world, ui=ui, workers=workers).run(claims, digest, progress)
    write_report(world, report)
    return report
