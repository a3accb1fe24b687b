"""The repairer's model policy on a tiny git world, through the scripted fake endpoint (real HTTP,
the real SDK): a diff that touches a forbidden path is refused whole, one that breaks a passing
claim is reverted, one that does not apply changes nothing, and a refusal goes back to the model.

The world is two generated files and the files a patch may never touch; the verifier is a function
of the backend file, so it judges the world as it stands in milliseconds. The end-to-end scenario
(a template fault in the built mock world, the real verifier) is tests/integration/test_model_repair.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import git
import pytest
from fakes.openai_server import FakeOpenAI, Scripted

from factory.errors import BuildError
from factory.llm.ask import LLM
from factory.llm.config import load_config
from factory.prove import patcher
from factory.prove.diff_apply import allowed
from factory.prove.patcher import patch_round
from factory.prove.repair import RepairRecord, changed_paths, record_json
from factory.prove.triage import Cluster, Triage
from factory.review.history import read_history, read_model_patches
from factory.review.model import Review
from factory.review.render import render_site
from factory.verify.model import ClaimResult, VerifyReport
from factory.world.history import commit_all
from factory.world.layout import REPAIRS

CODE = "app/backend/workflows.py"
GOOD_LIMIT = "LIMIT = 2\n"


def _world(tmp_path: Path) -> Path:
    world = tmp_path / "world"
    for name, text in {CODE: "LIMIT = 1\nOTHER = 1\n", "app/backend/invariants.py": "CHECK = True\n",
                       "claims.json": '{"claims": []}\n', "tasks/tasks.jsonl": "{}\n",
                       "app/frontend/src/App.jsx": "export default 1;\n"}.items():
        (world / name).parent.mkdir(parents=True, exist_ok=True)
        (world / name).write_text(text)
    git.Repo.init(world)
    commit_all(world, "the world")
    return world


def _verify(world: Path) -> Callable[[], VerifyReport]:
    """Claim `limit` holds when LIMIT is 2; claim `other` when OTHER is still 1."""
    def run() -> VerifyReport:
        text = (world / CODE).read_text()
        checks = {"behaviour:limit": "LIMIT = 2" in text, "behaviour:other": "OTHER = 1" in text}
        results = [ClaimResult(id=k, layer="backend", kind="wf_status", passed=v, message="ok" if v else "status 200, "
                               "expected 409") for k, v in checks.items()]
        return VerifyReport(world="tiny", claims_sha256="x", total=2, passed=sum(checks.values()), results=results)
    return run


def _triage() -> Triage:
    return Triage(world="tiny", failed=1, clusters=[Cluster(
        id="backend:wrong_status:limit", layer="backend", signature="wrong_status", fixer="regenerate_backend",
        needs_llm=False, claims=["behaviour:limit"], suspected_files=[CODE, "app/backend/runtime.py"],
        example="status 200, expected 409")])


def _diff(world: Path, edits: dict[str, str]) -> str:
    """The diff that would make these edits (made, diffed, then undone)."""
    repo = git.Repo(world)
    for name, text in edits.items():
        (world / name).write_text(text)
    diff = repo.git.diff("HEAD")
    repo.git.checkout("HEAD", "--", *edits)
    return diff + "\n"


def _llm(fake: FakeOpenAI, tmp_path: Path) -> LLM:
    config = load_config(fake.env(FACTORY_LLM_CACHE=str(tmp_path / "cache"), FACTORY_LLM_BACKOFF="0"))
    assert config is not None
    return LLM(config)


def _run(world: Path, tmp_path: Path, replies: list[Scripted], tries: int = 1) -> tuple[list[RepairRecord], FakeOpenAI]:
    verify = _verify(world)
    with FakeOpenAI(replies) as fake:
        records, _ = patch_round(world, 1, _triage(), verify(), verify, _llm(fake, tmp_path), tries=tries)
    return records, fake


def test_a_patch_touching_a_forbidden_path_is_refused_whole(tmp_path: Path) -> None:
    world = _world(tmp_path)
    head = git.Repo(world).head.commit.hexsha
    sneaky = _diff(world, {CODE: "LIMIT = 2\nOTHER = 1\n", "claims.json": '{"claims": [], "loosened": true}\n'})
    records, fake = _run(world, tmp_path, [Scripted({"rationale": "fix the limit", "diff": sneaky})])
    [record] = records
    assert record.outcome == "refused" and "claims.json" in record.note
    assert record.diff == sneaky and record.rationale == "fix the limit"
    assert (world / CODE).read_text() == "LIMIT = 1\nOTHER = 1\n"  # not even the allowed half was applied
    assert git.Repo(world).head.commit.hexsha == head and changed_paths(world) == {REPAIRS}  # the log, committed by the node
    logged = [json.loads(line) for line in (world / REPAIRS).read_text().splitlines()]
    assert logged == [record_json(record)] and logged[0]["diff"] == sneaky
    assert fake.count == 1


@pytest.mark.parametrize("path", ["app/backend/invariants.py", "app/backend/seed.py", "tasks/tasks.jsonl", "spec.json",
                                  "data/seed.db", "app/frontend/dist/_app/app.js", "tests/test_app.py",
                                  "app/backend/tests/test_x.py", "app/backend/../../claims.json", "/etc/passwd",
                                  "reports/verification.json", "seed.yaml"])
def test_the_allow_list_keeps_out_everything_but_the_apps_code(path: str) -> None:
    assert not allowed(path)


def test_the_allow_list_lets_the_apps_code_in() -> None:
    assert allowed("app/backend/workflows.py") and allowed("app/backend/routers/note.py")
    assert allowed("app/frontend/src/forms/WriteNoteForm.jsx")


def test_a_refusal_goes_back_to_the_model_which_may_answer_better(tmp_path: Path) -> None:
    world = _world(tmp_path)
    sneaky = _diff(world, {"app/backend/invariants.py": "CHECK = False\n"})
    fixed = _diff(world, {CODE: "LIMIT = 2\nOTHER = 1\n"})
    records, fake = _run(world, tmp_path, [Scripted({"rationale": "mask it", "diff": sneaky}),
                                           Scripted({"rationale": "raise the limit", "diff": fixed})], tries=2)
    assert [r.outcome for r in records] == ["refused", "kept"]
    assert records[1].files == [CODE] and records[1].after == 1.0
    again = fake.requests[1]["messages"][-1]["content"]
    assert "app/backend/invariants.py, which a repair may not change" in again
    assert (world / CODE).read_text() == "LIMIT = 2\nOTHER = 1\n"
    commit = git.Repo(world).head.commit
    assert str(commit.message).startswith("repair(model_patch): round 1, 1 file(s) for backend:wrong_status:limit")
    assert "raise the limit" in str(commit.message)


def test_a_patch_that_breaks_a_passing_claim_is_reverted(tmp_path: Path) -> None:
    world = _world(tmp_path)
    before = git.Repo(world).head.commit.hexsha
    both = _diff(world, {CODE: "LIMIT = 2\nOTHER = 2\n"})
    records, _ = _run(world, tmp_path, [Scripted({"rationale": "raise both", "diff": both})])
    [record] = records
    assert record.outcome == "reverted" and record.note.startswith("regression: 1 claim(s) that passed now fail")
    assert "behaviour:other" in record.note and record.after == 0.5 and record.before == 0.5
    assert (world / CODE).read_text() == "LIMIT = 1\nOTHER = 1\n"
    repo = git.Repo(world)
    subjects = [str(c.message).splitlines()[0] for c in repo.iter_commits(f"{before}..HEAD")]
    assert subjects[0].startswith("revert(model_patch): round 1, regression") and subjects[1].startswith("repair(model_patch)")
    assert changed_paths(world) == {REPAIRS}


def test_a_patch_that_fixes_nothing_is_reverted(tmp_path: Path) -> None:
    world = _world(tmp_path)
    idle = _diff(world, {CODE: "LIMIT = 1\nOTHER = 1\n# looked at it\n"})
    records, _ = _run(world, tmp_path, [Scripted({"rationale": "a comment", "diff": idle})])
    assert [(r.outcome, r.note) for r in records] == [("reverted", "fixed none of the failing claims")]
    assert (world / CODE).read_text() == "LIMIT = 1\nOTHER = 1\n"


def test_a_patch_that_does_not_apply_changes_nothing(tmp_path: Path) -> None:
    world = _world(tmp_path)
    head = git.Repo(world).head.commit.hexsha
    stale = (f"--- a/{CODE}\n+++ b/{CODE}\n@@ -1,2 +1,2 @@\n-LIMIT = 7\n+LIMIT = 2\n OTHER = 1\n")
    records, _ = _run(world, tmp_path, [Scripted({"rationale": "from another version", "diff": stale})])
    [record] = records
    assert record.outcome == "not-applied" and "does not apply" in record.note and CODE in record.note
    assert git.Repo(world).head.commit.hexsha == head and (world / CODE).read_text() == "LIMIT = 1\nOTHER = 1\n"


def test_no_usable_reply_leaves_the_world_as_it_was(tmp_path: Path) -> None:
    world = _world(tmp_path)
    records, _ = _run(world, tmp_path, [Scripted("not json")])  # the fake's script then runs out: HTTP 400
    assert [r.outcome for r in records] == ["no-reply"] and "HTTP 400" in records[0].note
    assert (world / CODE).read_text() == "LIMIT = 1\nOTHER = 1\n"


def test_a_deterministic_record_logs_the_keys_it_always_had() -> None:
    record = RepairRecord(1, "regenerate_backend", ["c"], [], "no-op", 0.5, None, "already as generated")
    assert set(record_json(record)) == {"round", "fixer", "clusters", "files", "outcome", "before", "after", "note",
                                        "escalated_from"}


def test_the_review_site_shows_every_patch_with_its_rationale_and_outcome(tmp_path: Path) -> None:
    world = _world(tmp_path)
    sneaky = _diff(world, {"app/backend/invariants.py": "CHECK = False\n"})
    fixed = _diff(world, {CODE: "LIMIT = 2\nOTHER = 1\n"})
    _run(world, tmp_path, [Scripted({"rationale": "mask the <check>", "diff": sneaky}),
                           Scripted({"rationale": "raise the limit", "diff": fixed})], tries=2)
    commit_all(world, "repair: round 1")  # the node commits the log after the round
    commits, _ = read_history(world)
    patches = read_model_patches(world)
    assert [(p.outcome, p.rationale) for p in patches] == [("refused", "mask the <check>"), ("kept", "raise the limit")]
    [patched] = [c for c in commits if c.subject.startswith("repair(model_patch)")]
    assert patched.repair_note.startswith("kept: pass rate 50.0% → 100.0%") and "raise the limit" in patched.body
    review = Review(world="tiny", title="Tiny", scenario="", factory_version="0", spec_sha256="x", counts=[], charts={},
                    erd="", claims=[], claim_filters={}, tasks=[], task_filters={}, strips_note="", commits=commits,
                    personas=[], shots=[], shots_note="", figures=[], patches=patches)
    (tmp_path / "site").mkdir()
    render_site(review, tmp_path / "site")
    page = (tmp_path / "site" / "history.html").read_text()
    assert "Patches a model proposed" in page and "mask the &lt;check&gt;" in page and "raise the limit" in page
    assert '<span class="add">+CHECK = False</span>' in page and "which a repair may not change" in page
    plain = review.model_copy(update={"patches": []})
    (tmp_path / "plain").mkdir()
    render_site(plain, tmp_path / "plain")
    assert "Patches a model proposed" not in (tmp_path / "plain" / "history.html").read_text()


def test_a_frontend_patch_rebuilds_the_bundle_and_commits_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A patch to the frontend's source is served only once bundled: the bundle is rebuilt after
    applying, and its files are part of the patch's commit (and of its revert); a source that no
    longer builds is put back and reported, with the build's error going back to the model."""
    world = _world(tmp_path)
    built: list[Path] = []

    def bundle(app: Path) -> None:  # stands for esbuild: the bundle is the source, or the build fails
        built.append(app)
        source = (app / "frontend" / "src" / "App.jsx").read_text()
        if "syntax error" in source:
            raise BuildError("esbuild: App.jsx:1: Unexpected token")
        (app / "frontend" / "dist" / "_app").mkdir(parents=True, exist_ok=True)
        (app / "frontend" / "dist" / "_app" / "app.js").write_text(source)

    monkeypatch.setattr(patcher, "build_frontend", bundle)
    frontend = "app/frontend/src/App.jsx"
    broken = _diff(world, {frontend: "syntax error\n"})
    both = _diff(world, {CODE: "LIMIT = 2\nOTHER = 1\n", frontend: "export default 2;\n"})
    records, fake = _run(world, tmp_path, [Scripted({"rationale": "try", "diff": broken}),
                                           Scripted({"rationale": "both layers", "diff": both})], tries=2)
    assert [r.outcome for r in records] == ["not-applied", "kept"] and built == [world / "app"] * 2
    assert "the frontend no longer builds: esbuild: App.jsx:1: Unexpected token" in fake.requests[1]["messages"][-1]["content"]
    assert records[1].files == [CODE, frontend, "app/frontend/dist/_app/app.js"]
    assert (world / "app/frontend/dist/_app/app.js").read_text() == "export default 2;\n"
    assert (world / frontend).read_text() == "export default 2;\n"
    assert changed_paths(world) == {REPAIRS}


def test_a_patch_that_makes_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    """A link at an allowed path ("app/backend/claims_link.py" → claims.json) is refused like its target."""
    world = _world(tmp_path)
    link = ("diff --git a/app/backend/claims_link.py b/app/backend/claims_link.py\n"
            "new file mode 120000\nindex 0000000..1111111\n--- /dev/null\n+++ b/app/backend/claims_link.py\n"
            "@@ -0,0 +1 @@\n+../../claims.json\n\\ No newline at end of file\n")
    records, _ = _run(world, tmp_path, [Scripted({"rationale": "link it", "diff": link})])
    [record] = records
    assert record.outcome == "refused" and "claims_link.py" in record.note, record
    assert not (world / "app/backend/claims_link.py").exists()
