"""Repairer: per-layer deterministic fixers, each applied as a commit, kept only if it does not hurt.

Fixers re-derive generated artifacts from their sources (seed → spec → app → seed database), which
undoes drift and hand edits; `rederive_spec` also repairs a spec that lost a form field or a route.
After each repair commit the world is re-verified. A repair that touches the claims is refused
before anything is committed. A repair that lowers the pass rate is not reverted at once: fixing
one layer can expose a fault that another layer's fault was hiding (a hand edit in the generated
backend that hid bad seed data), so the repairer escalates through the other fixers in
the fixed `ESCALATION` order, each on top of the last, and keeps the whole chain as soon as the
pass rate is back to at least where it was before the first fix. A chain that never gets there
is reverted as a whole.

A revert restores only the files the chain's fixers changed (`git checkout <base> -- <files>`)
and commits that as a new `revert(...)` commit, so the history shows the attempt and its undoing
and nothing else in the world, the reports under `reports/` least of all, is rolled back.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import git

from factory import progress
from factory.builder.build import build_spec
from factory.compiler.backend import render_backend
from factory.compiler.frontend import build_frontend, render_frontend
from factory.prove.triage import Triage
from factory.seed.loader import load_seed
from factory.spec.model import Spec
from factory.verify.model import VerifyReport
from factory.world.assemble import seed_database, spec_json, text_sha256
from factory.world.history import commit_paths, head
from factory.world.layout import CLAIMS, REPAIRS, REPORTS, SEED_DB, SPEC, World
from factory.world.manifest import sha256_file

Verify = Callable[[], VerifyReport]


# Outcomes a RepairRecord can have:
#   kept            applied and kept: alone, or as the step that brought an escalation chain back
#   kept-with-next  lowered the pass rate (or had not yet restored it) but is kept as part of a chain
#                   that, with the fixers after it, ends at least at the rate before the chain
#   superseded      part of a kept chain, but a later step put every file it changed back, so none of it remains
#   reverted        lowered the pass rate and no chain made up for it; its files are restored
#   refused         changed claims.json; undone before anything was committed
#   no-op           changed nothing
# A kept chain always ends in one `kept` record, so callers that look for "kept" see its progress.
KEPT_OUTCOMES = frozenset({"kept", "kept-with-next"})

# The order in which fixers are tried after one that lowered the pass rate. Each layer fixer is
# followed by the other layers in derivation order: backend first (the code every claim runs
# through), then the data (seeded through the backend's seed.py and read by its checkers; a backend
# fix most often exposes a data fault the broken code was hiding), then the frontend (UI claims sit
# on both of the others). `rederive_spec` comes last: the broadest fixer, it rewrites the spec and
# every layer after it, so it is the escalation of last resort and has nothing after it.
ESCALATION: tuple[str, ...] = ("regenerate_backend", "regenerate_data", "regenerate_frontend", "rederive_spec")


def escalation_after(name: str, order: tuple[str, ...] = ESCALATION) -> tuple[str, ...]:
    """The fixers to try, in turn, after `name` lowered the pass rate.

    Every other fixer of `order`, keeping its order; nothing after the last one (which, being
    `rederive_spec`, already re-derived every layer); a fixer outside the order (an extra one) gets
    the whole order.
    """
    if name not in order:
        return order
    if name == order[-1]:
        return ()
    return tuple(f for f in order if f != name)


@dataclass
class RepairRecord:
    """What one repair attempt did and what became of it (see the outcomes above)."""

    round: int
    fixer: str
    clusters: list[str]
    files: list[str]
    outcome: str
    before: float
    after: float | None
    note: str = ""
    escalated_from: str = ""  # the fixer whose fall in pass rate this step was tried after
    # A model's patch (`factory.prove.patcher`): the unified diff it proposed and why. Empty for the
    # deterministic fixers, and then left out of the log (`record_json`), which reads as before.
    diff: str = ""
    rationale: str = ""


def record_json(record: RepairRecord) -> dict[str, Any]:
    """A record as one line of the repair log: the model's diff and rationale only when it has them."""
    data = asdict(record)
    for key in ("diff", "rationale"):
        if not data[key]:
            del data[key]
    return data


def append_log(world: Path, records: list[RepairRecord]) -> None:
    """Append records to the world's repair log (`reports/repairs.jsonl`)."""
    log = world / REPAIRS
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as handle:
        for record in records:
            handle.write(json.dumps(record_json(record)) + "\n")


def _spec(world: Path) -> tuple[Spec, str]:
    text = World(world).spec_file.read_text()
    return Spec.model_validate_json(text), text_sha256(text)


def _sync(generated: Path, target: Path, world: Path) -> list[str]:
    """Copy every file of `generated` over `target` where it differs; return world-relative paths."""
    changed = []
    for src in sorted(p for p in generated.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        dst = target / src.relative_to(generated)
        if not dst.is_file() or dst.read_bytes() != src.read_bytes():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            changed.append(str(dst.relative_to(world)))
    for dst in sorted(p for p in target.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        if not (generated / dst.relative_to(target)).exists():  # a file the templates do not make
            dst.unlink()
            changed.append(str(dst.relative_to(world)))
    return changed


def regenerate_backend(world: Path) -> list[str]:
    """Re-render the backend package from spec.json and the templates."""
    spec, digest = _spec(world)
    with tempfile.TemporaryDirectory() as tmp:
        render_backend(spec, Path(tmp), digest)
        return _sync(Path(tmp) / "backend", World(world).backend_dir, world)


def regenerate_frontend(world: Path) -> list[str]:
    """Re-render the frontend source and rebuild its bundle."""
    spec, digest = _spec(world)
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp)
        render_frontend(spec, app, digest)
        build_frontend(app)
        changed = _sync(app / "frontend" / "src", World(world).frontend_dir / "src", world)
        changed += _sync(app / "frontend" / "dist", World(world).frontend_dir / "dist", world)
        index = World(world).frontend_dir / "index.html"
        if not index.is_file() or index.read_bytes() != (app / "frontend" / "index.html").read_bytes():
            shutil.copyfile(app / "frontend" / "index.html", index)
            changed.append("app/frontend/index.html")
        return changed


def regenerate_data(world: Path) -> list[str]:
    """Rebuild the seed database from the spec's plan with a freshly rendered backend."""
    spec, digest = _spec(world)
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "app"
        render_backend(spec, app, digest)
        db = Path(tmp) / "seed.db"
        seed_database(app, db)
        target = World(world).seed_db
        if target.is_file() and sha256_file(target) == sha256_file(db):
            return []
        shutil.copyfile(db, target)
        return [SEED_DB]


def rederive_spec(world: Path) -> list[str]:
    """Re-run the builder on the world's seed; if the spec drifted, restore it and everything after it."""
    spec = build_spec(load_seed(World(world).seed_file))
    text = spec_json(spec)
    if World(world).spec_file.read_text() == text:
        return []
    World(world).spec_file.write_text(text)
    return [SPEC, *regenerate_backend(world), *regenerate_frontend(world), *regenerate_data(world)]


FIXERS: dict[str, Callable[[Path], list[str]]] = {
    "regenerate_backend": regenerate_backend,
    "regenerate_frontend": regenerate_frontend,
    "regenerate_data": regenerate_data,
    "rederive_spec": rederive_spec,
}


def is_report(path: str) -> bool:
    return path == REPORTS or path.startswith(REPORTS + "/")


def changed_paths(world: Path) -> set[str]:
    """World-relative paths that differ from HEAD (untracked included, ignored ones not)."""
    out = git.Repo(world).git.status("--porcelain", "--untracked-files=all", "-z")
    # -z entries are "XY path"; a rename adds its old path as the next entry, which we skip.
    entries = out.split("\0")
    paths: set[str] = set()
    skip = False
    for entry in entries:
        if skip:
            skip = False
            continue
        if len(entry) > 3:
            paths.add(entry[3:])
            skip = entry[0] in "RC"
    return paths


def restore_files(world: Path, base: str, files: list[str]) -> None:
    """Put `files` back as they were at commit `base`; a file `base` did not have is removed.

    Only these files move: everything else, reports included, stays as it is.
    """
    repo = git.Repo(world)
    present = set(repo.git.ls_tree("-r", "--name-only", base, "--", *files).splitlines()) if files else set()
    if present:
        repo.git.checkout(base, "--", *sorted(present))
    for name in files:
        if name in present:
            continue
        path = world / name
        if path.is_file() or path.is_symlink():
            path.unlink()
        # Leave no empty directory behind where the fix created the first file.
        parent = path.parent
        while parent != world and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent


@dataclass
class _Step:
    """One applied and committed fix inside a repair round."""

    record: RepairRecord
    base: str  # the commit the fix was applied on
    report: VerifyReport  # the verification after it


class _Round:
    """One repair round's bookkeeping: apply a fixer, refuse, commit, verify, escalate, revert."""

    def __init__(self, world: Path, round_no: int, fixers: dict[str, Callable[[Path], list[str]]],
                 verify: Verify, plan: dict[str, list[str]], escalation: tuple[str, ...]) -> None:
        self.world, self.round_no, self.fixers, self.verify = world, round_no, fixers, verify
        self.plan, self.escalation = plan, escalation
        self.records: list[RepairRecord] = []

    def _apply(self, name: str, before: float, escalated_from: str) -> _Step | None:
        """Run fixer `name` and commit what it changed; None (with its record written) when it
        changed nothing or was refused."""
        clusters = self.plan.get(name, [])
        base, dirty = head(self.world), changed_paths(self.world)
        claims = self.world / CLAIMS
        claims_before = claims.read_bytes() if claims.is_file() else None
        reported = self.fixers[name](self.world)
        # A fixer must report what it changes; whatever else it changed is its change too.
        files = [f for f in dict.fromkeys([*reported, *sorted(changed_paths(self.world) - dirty)]) if not is_report(f)]
        context = f"escalation after {escalated_from}: " if escalated_from else ""
        # The claims are the yardstick: a fix that moves them is undone before it reaches the history,
        # whether or not the fixer owned up to the change.
        if CLAIMS in files or (claims.read_bytes() if claims.is_file() else None) != claims_before:
            restore_files(self.world, base, [f for f in files if f != CLAIMS])
            if claims_before is None:
                claims.unlink(missing_ok=True)
            else:
                claims.write_bytes(claims_before)
            self.records.append(RepairRecord(self.round_no, name, clusters, files, "refused", before, None,
                                             context + "a repair may not change claims.json", escalated_from))
            return None
        what = f"escalation after {escalated_from}" if escalated_from else (", ".join(clusters[:3]) or "drift")
        if not files or not commit_paths(self.world, files, f"repair({name}): round {self.round_no}, "
                                                            f"{len(files)} file(s) for {what}"):
            self.records.append(RepairRecord(self.round_no, name, clusters, [], "no-op", before, None,
                                             context + "already as generated", escalated_from))
            return None
        after = self.verify()
        record = RepairRecord(self.round_no, name, clusters, files, "kept", before, after.rate, "", escalated_from)
        self.records.append(record)
        return _Step(record, base, after)

    def run(self, name: str, current: VerifyReport) -> tuple[VerifyReport, set[str]]:
        """Apply `name`; if it lowers the pass rate, escalate. Returns the report the world now
        answers to and the fixers whose changes the world now holds."""
        start = current.rate
        first = self._apply(name, start, "")
        if first is None:
            return current, set()
        if first.report.rate >= start:
            return first.report, {name}
        fell = f"pass rate fell from {start:.3f} to {first.report.rate:.3f}"
        chain = [first]
        for nxt in escalation_after(name, self.escalation):
            if nxt not in self.fixers:
                continue
            step = self._apply(nxt, chain[-1].report.rate, name)
            if step is None:
                continue
            chain.append(step)
            if step.report.rate >= start:
                return self._keep(chain, start, fell), {s.record.fixer for s in chain}
        self._revert(chain, start, fell)
        return current, set()

    def _keep(self, chain: list[_Step], start: float, fell: str) -> VerifyReport:
        """The chain ended at least at `start`: keep all of it, marking how each step took part."""
        last = chain[-1]
        helpers = ", ".join(s.record.fixer for s in chain[1:])
        repo = git.Repo(self.world)
        for step in chain[:-1]:
            # A step whose every file a later step put back left nothing in the world: say so
            # rather than claim it was kept.
            if not repo.git.diff(step.base, "HEAD", "--name-only", "--", *step.record.files).strip():
                step.record.outcome = "superseded"
                step.record.note = (f"{fell if step is chain[0] else 'part of the chain'}; every file it changed "
                                    f"was put back by a later step of the chain ({helpers})")
            else:
                step.record.outcome = "kept-with-next"
                step.record.note = (f"{fell}; kept with {helpers}, which brought it to {last.report.rate:.3f} "
                                    f"(≥ {start:.3f})" if step is chain[0] else
                                    f"kept with the chain after {chain[0].record.fixer}, which ends at "
                                    f"{last.report.rate:.3f} (≥ {start:.3f})")
        last.record.outcome = "kept"
        last.record.note = (f"brought the pass rate back to {last.report.rate:.3f} (≥ {start:.3f} before "
                            f"{chain[0].record.fixer})")
        return last.report

    def _revert(self, chain: list[_Step], start: float, fell: str) -> None:
        """No step of the chain got back to `start`: put every file of the chain back as it was
        before the chain, in a commit of its own."""
        files = list(dict.fromkeys(f for s in chain for f in s.record.files))
        names = [s.record.fixer for s in chain]
        end = chain[-1].report.rate
        base = chain[0].base
        restore_files(self.world, base, files)
        commit_paths(self.world, files, f"revert({'+'.join(names)}): round {self.round_no}, pass rate {start:.3f} → "
                                        f"{end:.3f}; {len(files)} file(s) restored from {base[:12]}")
        tried = ", ".join(escalation_after(chain[0].record.fixer, self.escalation)) or "nothing after it"
        for step in chain:
            step.record.outcome = "reverted"
            step.record.note = (f"{fell}; escalation ({tried}) ended at {end:.3f} < {start:.3f}, so the chain was "
                                f"reverted" if step is chain[0] else
                                f"escalation after {chain[0].record.fixer} ended at {end:.3f} < {start:.3f}; "
                                f"reverted with the chain")


def repair_round(world: Path, round_no: int, triage: Triage, report: VerifyReport, verify: Verify,
                 extra: dict[str, Callable[[Path], list[str]]] | None = None,
                 escalation: tuple[str, ...] = ESCALATION) -> tuple[list[RepairRecord], VerifyReport]:
    """Apply each cluster's fixer (escalating to `rederive_spec` when it finds nothing to fix).

    A fixer that lowers the pass rate is followed by `escalation_after` it; see the module text.
    Returns every attempt's record (also appended to `reports/repairs.jsonl`) and the report of
    the world as it now stands.
    """
    fixers = {**FIXERS, **(extra or {})}
    plan: dict[str, list[str]] = {}
    for cluster in triage.clusters:
        if cluster.fixer:
            plan.setdefault(cluster.fixer, []).append(cluster.id)
    if plan:
        plan.setdefault("rederive_spec", [])
    state = _Round(world, round_no, fixers, verify, plan, escalation)
    current = report
    applied: set[str] = set()
    with progress.task(f"repair round {round_no}: fixers", total=len(plan)) as advance:
        for name in plan:
            # a fixer already run (and kept) as an escalation step this round has its clusters on that record
            if name not in applied:
                current, kept = state.run(name, current)
                applied |= kept
            advance(1)
    append_log(world, state.records)
    return state.records, current
