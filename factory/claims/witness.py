"""Witness search: concrete calls that make a workflow succeed, and that trip each precondition.

Candidates come from the spec (parameter types, bounds, defaults) and the seed database (rows a
user's form offers). The search is deterministic (a seeded RNG over sorted candidates) and runs
every try through the world's probe, which rolls each one back.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from factory.claims.probe import Probe
from factory.spec.model import ParamSpec, Spec, WorkflowSpec

SAMPLES_PER_USER = 40
EXTRA_SAMPLES = 12  # per further user, once a workflow has its witness: only to find more bases
USERS_TRIED = 6
BASES = 4  # successful calls (of different users) that the precondition search varies


@dataclass
class Witness:
    """A successful call, and per precondition id a call that it rejects."""

    workflow: str
    user: int | None = None
    params: dict[str, Any] | None = None
    created: dict[str, list[int]] = field(default_factory=dict)
    updated: list[str] = field(default_factory=list)
    bases: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # one successful call per user
    violations: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    tries: int = 0


def scalar_candidates(param: ParamSpec, today: dt.date) -> list[Any]:
    """Plausible values for a non-reference parameter, most likely to succeed first."""
    kind = param.type
    out: list[Any] = []
    if kind == "int":
        lo = int(param.min) if param.min is not None else None
        hi = int(param.max) if param.max is not None else None
        base = [param.default, 1, 2, 3, lo, hi, (lo + hi) // 2 if lo is not None and hi is not None else None, 5, 10]
        out = [v for v in base if v is not None and (lo is None or v >= lo) and (hi is None or v <= hi)]
    elif kind == "money":
        lo = round(param.min * 100) if param.min is not None else None
        hi = round(param.max * 100) if param.max is not None else None
        default = round(float(param.default) * 100) if param.default is not None else None
        base = [default, 2500, 1000, 100, 5000, 10000, lo, 50000]
        out = [v for v in base if v is not None and (lo is None or v >= lo) and (hi is None or v <= hi)]
    elif kind == "date":
        out = [(today + dt.timedelta(days=d)).isoformat() for d in (7, 1, 30, 3, 60, 120, 200, 0, -1, -7)]
    elif kind == "datetime":
        out = [f"{(today + dt.timedelta(days=d)).isoformat()}T{h:02d}:00:00" for d, h in ((-1, 10), (0, 8), (1, 10), (7, 12))]
    elif kind == "enum":
        out = list(param.values or [])
        if param.default in out:
            out.remove(param.default)
            out.insert(0, param.default)
    elif kind == "bool":
        out = [True, False] if param.default is not False else [False, True]
    elif kind == "email":
        out = ["verifier@example.com"]
    elif kind == "text":
        out = ["Checked by the verifier: all good."]
    else:  # string
        text = f"Verifier {param.label}"
        if param.max_length:
            text = text[: param.max_length]
        out = [param.default] if param.default is not None else []
        out += [text, "Verifier"]
    if not param.required:
        out.append(None)
    unique: list[Any] = []
    for value in out:
        if value not in unique:
            unique.append(value)
    return unique


def range_candidates(today: dt.date) -> list[tuple[str, str]]:
    """(start, end) pairs for date-range parameters."""
    pairs = []
    for start, length in itertools.product((14, 30, 60, 7, 120, 200, 1, 3), (3, 2, 5, 1, 7)):
        begin = today + dt.timedelta(days=start)
        pairs.append((begin.isoformat(), (begin + dt.timedelta(days=length)).isoformat()))
    return pairs


class SeedRows:
    """Read-only access to the seed database: which rows a user sees, and their values."""

    def __init__(self, spec: Spec, db: Path) -> None:
        self.spec = spec
        self.conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        self.conn.row_factory = sqlite3.Row

    def visible_ids(self, entity: str, user: int, limit: int = 60) -> list[int]:
        e = self.spec.entity(entity)
        if e.visibility == "public" or e.builtin:
            sql, args = f'SELECT id FROM "{e.table}" ORDER BY id LIMIT ?', [limit]
        else:
            owners = " OR ".join(f'"{o}_id" = ?' for o in e.owner_fields)
            sql, args = f'SELECT id FROM "{e.table}" WHERE {owners} ORDER BY id LIMIT ?', [user] * len(e.owner_fields) + [limit]
        return [r[0] for r in self.conn.execute(sql, args)]

    def row(self, entity: str, row_id: int) -> dict[str, Any]:
        found = self.conn.execute(f'SELECT * FROM "{self.spec.entity(entity).table}" WHERE id = ?', (row_id,)).fetchone()
        return dict(found) if found else {}


class WitnessSearch:
    """Finds witnesses for every user-facing workflow of a world."""

    def __init__(self, spec: Spec, probe: Probe) -> None:
        self.spec, self.probe = spec, probe
        self.today = dt.date.fromisoformat(spec.today)
        self.rows = SeedRows(spec, probe.db)

    def _domains(self, wf: WorkflowSpec, user: int) -> dict[str, list[Any]] | None:
        domains: dict[str, list[Any]] = {}
        for p in wf.params:
            if p.range_of is not None:
                continue
            if p.range_end is not None:
                domains[p.name] = range_candidates(self.today)
            elif p.type == "reference":
                ids = self.probe.options(wf.name, p.name, user)
                if not ids and p.required:
                    return None
                domains[p.name] = ids + ([None] if not p.required else [])
            else:
                domains[p.name] = scalar_candidates(p, self.today)
                if p.type == "date":
                    domains[p.name] += [d for d in self._mined_dates(wf) if d not in domains[p.name]]
        return domains

    def _mined_dates(self, wf: WorkflowSpec) -> list[str]:
        """Dates just inside and outside the `days(N)` bounds the preconditions mention (an age
        limit of 5844 days needs a date 16 years back), plus a few far-away years."""
        offsets: list[int] = []
        for check in wf.preconditions:
            for n in map(int, re.findall(r"days\((\d+)\)", check.source)):
                offsets += [-n - 1, -n + 1, n - 1, n + 1]
        offsets += [-365 * years for years in (1, 10, 30, 60)]
        return [(self.today + dt.timedelta(days=o)).isoformat() for o in offsets]

    @staticmethod
    def _params(wf: WorkflowSpec, choice: dict[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {}
        for p in wf.params:
            if p.range_of is not None:
                continue
            value = choice[p.name]
            if p.range_end is not None:
                params[p.name], params[p.range_end] = value
            else:
                params[p.name] = value
        return params

    def _samples(self, wf: WorkflowSpec, domains: dict[str, list[Any]], rng: random.Random) -> list[dict[str, Any]]:
        names = sorted(domains)
        samples = [{n: domains[n][0] for n in names}]
        for _ in range(SAMPLES_PER_USER - 1):
            samples.append({n: rng.choice(domains[n]) for n in names})
        # per parameter, every value with the others at their first choice: finds narrow conditions
        for n in names:
            for value in domains[n][1:12]:
                samples.append({**samples[0], n: value})
        seen: list[dict[str, Any]] = []
        for s in samples:
            params = self._params(wf, s)
            if params not in seen:
                seen.append(params)
        return seen

    def search_all(self, workflows: list[WorkflowSpec]) -> dict[str, Witness]:
        """Witnesses for every workflow; probe runs are batched across workflows (each costs a process)."""
        # every user, in persona order: a workflow may only be possible for the few users whose
        # data is in the right state (a locked card); each round only carries the unwitnessed ones
        users = [u.id for u in self.spec.users]
        self.probe.prefetch_options([(w.name, p.name, u) for w in workflows for p in w.params
                                     if p.type == "reference" for u in users])
        witnesses = {w.name: Witness(workflow=w.name) for w in workflows}
        set_tables = {w.name: {self.spec.entity(e.entity).table for e in w.effects if e.kind == "set"} for w in workflows}
        tried: dict[str, list[tuple[int, dict[str, Any], dict[str, Any]]]] = {w.name: [] for w in workflows}
        for user in users:
            calls: list[tuple[str, int, dict[str, Any]]] = []
            for wf in workflows:
                found = witnesses[wf.name]
                complete = found.params is not None and set(found.updated) >= set_tables[wf.name]
                if complete and (len(found.bases) >= BASES or not wf.preconditions):
                    continue
                domains = self._domains(wf, user)
                if domains is None:
                    continue
                rng = random.Random(f"{self.spec.random_seed}:{wf.name}:{user}")
                samples = self._samples(wf, domains, rng)
                calls += [(wf.name, user, params) for params in (samples[:EXTRA_SAMPLES] if complete else samples)]
            if not calls:
                continue
            answers = self.probe.try_many(calls)
            for (name, _, params), answer in zip(calls, answers):
                witness = witnesses[name]
                witness.tries += 1
                tried[name].append((user, params, answer))
                if answer["status"] != 200:
                    continue
                if user not in [b[0] for b in witness.bases] and len(witness.bases) < BASES:
                    witness.bases.append((user, params))
                # prefer a call that really changes every table the workflow sets (not a no-op set)
                complete = set(answer.get("updated") or []) >= set_tables[name]
                if witness.params is None or (complete and not set(witness.updated) >= set_tables[name]):
                    witness.user, witness.params = user, params
                    witness.created, witness.updated = answer.get("created") or {}, answer.get("updated") or []
        for wf in workflows:
            for user, params, answer in tried[wf.name]:
                code = answer.get("precondition")
                if code and code not in witnesses[wf.name].violations:
                    witnesses[wf.name].violations[code] = (user, params)
        calls = [call for wf in workflows for user, params in witnesses[wf.name].bases
                 for call in self._variations(wf, witnesses[wf.name], user, params)]
        answers = self.probe.try_many(calls)
        for (name, user, params), answer in zip(calls, answers):
            witness = witnesses[name]
            witness.tries += 1
            code = answer.get("precondition")
            if code and code not in witness.violations:
                witness.violations[code] = (user, params)
        return witnesses

    def _variations(self, wf: WorkflowSpec, witness: Witness, user: int,
                    params: dict[str, Any]) -> list[tuple[str, int, dict[str, Any]]]:
        """Calls that vary one parameter (or the user) of a successful one, to trip the other preconditions."""
        wanted = {c.id for c in wf.preconditions} - set(witness.violations)
        if not wanted:
            return []
        base = Witness(workflow=wf.name, user=user, params=params)
        calls: list[tuple[str, int, dict[str, Any]]] = []
        for other in [u.id for u in self.spec.users[:USERS_TRIED]]:
            if other != user:
                calls.append((wf.name, other, dict(params)))
        domains = self._domains(wf, user) or {}
        for p in wf.params:
            if p.range_of is not None:
                continue
            if p.range_end is not None:
                values = [list(pair) for pair in domains.get(p.name, [])]
                values += [[params[p.range_end], params[p.name]],
                           [(self.today - dt.timedelta(days=3)).isoformat(), (self.today - dt.timedelta(days=1)).isoformat()],
                           [self.today.isoformat(), (self.today + dt.timedelta(days=400)).isoformat()]]
                for start, end in values:
                    calls.append((wf.name, user, {**params, p.name: start, p.range_end: end}))
                continue
            values = list(domains.get(p.name, []))
            if p.type in ("int", "money", "date", "string", "text", "email"):
                values += self._near_row_values(wf, base, p)
            if p.type in ("int", "money"):
                values += [0, -1, 10**9]
            if p.type in ("string", "text"):
                values += ["", "x", "x" * 300]
            if p.type == "date":
                values += [(self.today + dt.timedelta(days=d)).isoformat() for d in (-30, 400, 800)]
            if p.type == "reference" and p.ref:
                # rows the form does not offer (its `where` filters them) and other users' rows:
                # preconditions such as "already paid" or "not your own listing" need them
                values += self.rows.visible_ids(p.ref, user) + self._all_options(wf, p)
            for value in values:
                if value != params.get(p.name):
                    calls.append((wf.name, user, {**params, p.name: value}))
        return calls

    def _near_row_values(self, wf: WorkflowSpec, witness: Witness, p: ParamSpec) -> list[Any]:
        """Values just past the numbers and dates of the rows the call names (balance + 1 cent, due date - 1 day)."""
        assert witness.params is not None
        out: list[Any] = []
        for ref in wf.params:
            if ref.type != "reference" or ref.ref is None or witness.params.get(ref.name) is None:
                continue
            entity = self.spec.entity(ref.ref)
            row = self.rows.row(ref.ref, witness.params[ref.name])
            for f in entity.fields:
                value = row.get(f.column)
                if value is None or f.type != p.type:
                    continue
                if p.type in ("int", "money"):
                    out += [value + 1, value, value - 1]
                elif p.type in ("string", "text", "email"):
                    out.append(value)  # "the new nickname must differ from the current one"
                else:
                    day = dt.date.fromisoformat(str(value)[:10])
                    out += [(day + dt.timedelta(days=d)).isoformat() for d in (-1, 0, 1)]
        return out

    def _all_options(self, wf: WorkflowSpec, p: ParamSpec) -> list[int]:
        ids: list[int] = []
        for u in self.spec.users[:USERS_TRIED]:
            for i in self.probe.options(wf.name, p.name, u.id):
                if i not in ids:
                    ids.append(i)
        return ids[:40]
