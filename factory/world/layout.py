"""What a world directory contains, and where: the one place a world-relative path is spelled.

    seed.yaml  spec.json  manifest.json  claims.json  README.md   the world's identity and lock
    app/backend/  app/frontend/{src,dist,index.html}               the generated app
    data/seed.db                                                   the seed database
    reports/{verification.json,verification.md,triage.json,        what stage one and the fault
             task_triage.json,mutation.json,screenshots/}          suite found
    reports/llm_usage.json                                         a model's tokens and cost (free-form seeds)
    tasks/{tasks.jsonl,report.json,trajectories/}                  stage two's corpus
    run/{verify,tasks,serve}/                                      scratch (ignored by git)

Every path is spelled once here: as a world-relative constant (`CLAIMS`, `VERIFICATION`, `SEED_DB`...),
the form git, the manifest and the reports record, joined to a world's root as `root / CLAIMS`; the
folders and files code opens directly are also properties of `World(path)` (`seed_db`, `app_dir`,
`tasks_file`...), whose spec and manifest are read once per `World`, on first use.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from factory.errors import WorldError
from factory.spec.model import Spec
from factory.world.manifest import LLM_USAGE, Manifest, read_manifest

SEED = "seed.yaml"
SPEC = "spec.json"
MANIFEST = "manifest.json"
CLAIMS = "claims.json"
README = "README.md"
SEED_DB = "data/seed.db"
BACKEND = "app/backend"
FRONTEND = "app/frontend"
REPORTS = "reports"
VERIFICATION = "reports/verification.json"
VERIFICATION_SUMMARY = "reports/verification.md"
TRIAGE = "reports/triage.json"
TASK_TRIAGE = "reports/task_triage.json"
MUTATION = "reports/mutation.json"
REPAIRS = "reports/repairs.jsonl"
TASKS = "tasks/tasks.jsonl"
TASKS_REPORT = "tasks/report.json"


class World:
    """A world directory: its paths, and its spec and manifest (each read once)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"World({str(self.root)!r})"

    @property
    def name(self) -> str:
        return self.root.name

    # ---- identity and lock ------------------------------------------------------------------
    @property
    def seed_file(self) -> Path:
        return self.root / SEED

    @property
    def spec_file(self) -> Path:
        return self.root / SPEC

    @property
    def manifest_file(self) -> Path:
        return self.root / MANIFEST

    @property
    def readme(self) -> Path:
        return self.root / README

    # ---- the app and its data ---------------------------------------------------------------
    @property
    def app_dir(self) -> Path:
        return self.root / "app"

    @property
    def backend_dir(self) -> Path:
        return self.root / BACKEND

    @property
    def frontend_dir(self) -> Path:
        return self.root / FRONTEND

    @property
    def seed_db(self) -> Path:
        return self.root / SEED_DB

    # ---- reports ----------------------------------------------------------------------------
    @property
    def reports_dir(self) -> Path:
        return self.root / REPORTS

    @property
    def triage_report(self) -> Path:
        return self.root / TRIAGE

    @property
    def llm_usage(self) -> Path:
        return self.root / LLM_USAGE

    @property
    def screenshots_dir(self) -> Path:
        return self.reports_dir / "screenshots"

    # ---- the task corpus --------------------------------------------------------------------
    @property
    def tasks_dir(self) -> Path:
        return self.root / "tasks"

    @property
    def tasks_file(self) -> Path:
        return self.root / TASKS

    @property
    def tasks_report(self) -> Path:
        return self.root / TASKS_REPORT

    @property
    def trajectories_dir(self) -> Path:
        return self.tasks_dir / "trajectories"

    # ---- scratch ----------------------------------------------------------------------------
    @property
    def run_dir(self) -> Path:
        return self.root / "run"

    @property
    def verify_work(self) -> Path:
        return self.run_dir / "verify"

    @property
    def verify_timings(self) -> Path:
        return self.verify_work / "timings.json"

    @property
    def tasks_work(self) -> Path:
        return self.run_dir / "tasks"

    @property
    def tasks_timings(self) -> Path:
        """Stage two's wall-clock time: beside the world's committed files, never in them."""
        return self.run_dir / "tasks-timings.json"

    # ---- contents, read once ----------------------------------------------------------------
    @cached_property
    def spec(self) -> Spec:
        return Spec.model_validate_json(self.spec_file.read_text())

    @cached_property
    def manifest(self) -> Manifest:
        return read_manifest(self.manifest_file)

    def relative(self, path: Path) -> str:
        """A path inside the world as git and the manifest spell it (`reports/triage.json`)."""
        return path.resolve().relative_to(self.root.resolve()).as_posix()

    def require_built(self) -> World:
        """This world, or a WorldError saying which part of a built world is missing."""
        for needed in (self.manifest_file, self.backend_dir / "app.py", self.seed_db):
            if not needed.exists():
                raise WorldError(f"{self.root} is not a built world: {self.relative(needed)} is missing "
                                 "(run `make world SEED=...` first)")
        return self


__all__ = [
    "BACKEND",
    "CLAIMS",
    "FRONTEND",
    "LLM_USAGE",
    "MANIFEST",
    "MUTATION",
    "REPAIRS",
    "REPORTS",
    "SEED",
    "SEED_DB",
    "SPEC",
    "TASKS",
    "TASKS_REPORT",
    "TASK_TRIAGE",
    "TRIAGE",
    "VERIFICATION",
    "VERIFICATION_SUMMARY",
    "World",
]
