"""A lending library (tests/fixtures/library.yaml) built end to end: roles (members and
librarians), computed fields and a row lookup (borrowing a book takes its first copy on the shelf,
a refusal names how many members wait), conditional effects (a late
return is fined, an on-time one is not; a returned or repaired copy goes to the hold shelf only
when members wait), bulk effects (cancelling or filling a hold renumbers the queue; withdrawing a
book retires every copy and deletes every hold) and effects on related rows (a return sets
`loan.copy.status` and `loan.copy.book.last_returned_on`) reach the bar every seed must reach:
at least 99% of claims pass and at least 150 tasks are accepted. Each side of every condition and
every bulk effect over several rows is claimed, and every fault of where an effect applies
(`factory.mutate.faults.effect_scope`) fails one of those claims.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import git
import pytest

from factory.cli import main
from factory.mutate.faults import effect_scope
from factory.mutate.run import _view
from factory.verify.run import Verifier, load_claims
from factory.world.layout import World
from factory.world.manifest import read_manifest

SEED = Path(__file__).resolve().parents[1] / "fixtures" / "library.yaml"
BRANCHES = [  # each side of every `when`, and every `for_each` over two rows or more
    "return_loan:effect3_when_true", "return_loan:effect3_when_false", "return_loan:effect5_when_true",
    "return_loan:effect5_when_false", "cancel_hold:effect1_rows", "fill_hold:effect4_rows",
    "finish_repair:effect2_when_true", "finish_repair:effect2_when_false", "withdraw_book:effect1_rows",
    "withdraw_book:effect2_rows",
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("library")
    assert main(["world", str(SEED), "--out", str(out)]) == 0
    return out / "library"


@pytest.mark.slow
def test_the_library_reaches_the_claims_and_task_bar(library: Path) -> None:
    manifest = read_manifest(library / "manifest.json")
    assert manifest.claims.passed / manifest.claims.total >= 0.99, manifest.claims
    assert manifest.tasks.accepted >= 150, manifest.tasks
    claims, _ = load_claims(library)
    ids = {c.id for c in claims.claims}
    missing = [b for b in BRANCHES if f"behaviour:{b}" not in ids]
    assert not missing, (missing, claims.unwitnessed)
    # computed fields are claimed on seed rows and right after a workflow changes what they count;
    # the lookup is claimed where it picks a copy and where it finds none
    assert {"data:computed:book:1", "data:computed:loan:1", "behaviour:borrow_book:lookup",
            "behaviour:borrow_book:lookup:book_copy"} <= ids, sorted(i for i in ids if "computed" in i or "lookup" in i)
    assert any(i.startswith("data:computed:book:after:") for i in ids)
    # tasks act through the new effects too: a return, a cancelled hold, a filled hold, a withdrawal,
    # and a borrow whose copy the library picks
    records = (library / "tasks" / "tasks.jsonl").read_text()
    for workflow in ("return_loan", "cancel_hold", "fill_hold", "withdraw_book", "borrow_book"):
        assert f'"{workflow}"' in records, workflow


@pytest.mark.slow
def test_every_fault_of_where_an_effect_applies_is_killed(library: Path, tmp_path: Path) -> None:
    world = tmp_path / "library"
    shutil.copytree(library, world)
    repo = git.Repo(world)
    base = repo.head.commit.hexsha
    claims, digest = load_claims(world)
    spec = World(world).spec
    survived: list[str] = []
    tried = 0
    for injector in effect_scope.MUTATIONS:
        for target in injector.targets(_view(world)):
            workflow = target.ref[0].name
            # the workflow's own behaviour claims: its witness, its branches, its boundaries
            mine = [c for c in claims.claims if c.id.startswith((f"behaviour:{workflow}:", f"behaviour:{workflow}."))]
            assert mine, workflow
            injector.apply(_view(world), target, random.Random(0))
            report = Verifier(world, ui=False).run(claims.model_copy(update={"claims": mine}), digest)
            tried += 1
            if all(r.passed for r in report.results):
                survived.append(f"{injector.kind} {target.name}")
            repo.git.reset("--hard", base)
            repo.git.clean("-fdq")
    assert tried >= 15 and spec.world == "library"
    assert not survived, survived
