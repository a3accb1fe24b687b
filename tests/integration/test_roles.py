"""Roles (tests/fixtures/approvals.yaml: employees draft and submit, managers approve, reject and set
budget limits, finance pays and alone sees payouts): the app refuses a user outside a workflow's or
an entity's roles on every route, the browser shows each role only its own links and says so on a
page for other roles, and the role claims that say all this pass on the built world and fail, each
where it should, when the backend's or the frontend's role check is taken out."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from factory.claims.compile import compile_claims, write_claims
from factory.compiler.frontend import build_frontend
from factory.mutate.run import inject, targets
from factory.verify.run import verify_world
from factory.world.assemble import build_world
from factory.world.layout import World

SEED = Path(__file__).resolve().parents[1] / "fixtures" / "approvals.yaml"
RUNNERS = {"draft_report": "employee", "submit_report": "employee", "approve_report": "manager",
           "reject_report": "manager", "set_budget_limit": "manager", "mark_paid": "finance"}


@pytest.fixture(scope="module")
def approvals(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_world(SEED, tmp_path_factory.mktemp("roles"), frontend=True).path


def _role_claims_only(world: Path, dest: Path) -> list[str]:
    shutil.copytree(world, dest, ignore=shutil.ignore_patterns("run", "reports"))
    compiled = compile_claims(dest)
    mine = [c for c in compiled.claims if c.id.startswith(("roles:", "ui:role:"))]
    write_claims(dest, compiled.model_copy(update={"claims": mine}))
    return [c.id for c in mine]


def _failed_with(world: Path, dest: Path, rel: str, old: str, new: str) -> set[str]:
    """The role claims that fail on a copy of `world` whose backend file `rel` has `old` (once) as `new`."""
    _role_claims_only(world, dest)
    target = dest / rel
    text = target.read_text()
    assert text.count(old) == 1, (rel, old)
    target.write_text(text.replace(old, new))
    return {r.id for r in verify_world(dest, ui=False).failures()}


def test_every_role_limited_route_and_page_is_claimed_and_witnesses_are_run_by_their_roles(approvals: Path) -> None:
    spec = World(approvals).spec
    assert {w.name: w.roles for w in spec.workflows if not w.system} == {k: [v] for k, v in RUNNERS.items()}
    claims = compile_claims(approvals)
    ids = {c.id for c in claims.claims}
    for name, role in RUNNERS.items():
        for other in ("employee", "manager", "finance"):
            assert (f"roles:workflow:{name}@{other}" in ids) == (other != role), (name, other)
    assert {"roles:list:payout@employee", "roles:list:payout@manager", "roles:detail:payout@employee",
            "roles:list:payout@finance", "ui:role:home@employee", "ui:role:payout@manager"} <= ids
    users = {u.id: u for u in spec.users}
    by_id = {c.id: c for c in claims.claims}
    for name, role in RUNNERS.items():  # every call a behaviour claim expects to go ahead is by its role
        steps = by_id[f"behaviour:{name}:effects"].getter.steps  # type: ignore[union-attr]
        assert {next(u.role for u in users.values() if u.username == s.user) for s in steps} == {role}, name


def test_role_claims_pass_and_fail_when_a_role_check_is_taken_out(approvals: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    ids = _role_claims_only(approvals, clean)
    report = verify_world(clean, ui=True)
    assert report.total == len(ids) and not report.failures(), [(r.id, r.message) for r in report.failures()]

    # the backend forgets the workflow roles: every call by another role goes through
    failed = _failed_with(approvals, tmp_path / "open_calls", "app/backend/workflows.py",
                          "    if allowed and getattr(actor, \"role\", None) not in allowed:\n", "    if False:\n")
    expected = {i for i in ids if i.startswith(("roles:workflow:", "roles:options:"))}
    assert expected and failed == expected, sorted(failed ^ expected)

    # the backend forgets the entity roles: everyone lists payouts
    failed = _failed_with(approvals, tmp_path / "open_lists", "app/backend/runtime.py",
                          "    return not meta.roles or getattr(actor, \"role\", None) in meta.roles\n", "    return True\n")
    # (a payout's page still answers 404 to them: payouts are their payer's alone, whatever the role)
    expected = {i for i in ids if i.startswith(("roles:list:", "roles:filter:")) and "@finance" not in i}
    assert expected and failed == expected, sorted(failed ^ expected)

    # the frontend shows every link and page to every role (the API still refuses)
    shown = tmp_path / "shown"
    _role_claims_only(approvals, shown)
    roles_js = shown / "app" / "frontend" / "src" / "runtime" / "roles.js"
    text = roles_js.read_text()
    assert text.count("export function allowed(item, user) {\n") == 1
    roles_js.write_text(text.replace("export function allowed(item, user) {\n",
                                     "export function allowed(item, user) {\n  return true;\n"))
    build_frontend(shown / "app")
    failed = {r.id for r in verify_world(shown, ui=True).failures()}
    expected = {i for i in ids if i.startswith("ui:role:")}
    assert expected and failed == expected, sorted(failed ^ expected)


def test_another_role_cannot_add_a_row_to_an_entity_it_does_not_see(tmp_path: Path) -> None:
    """An entity for some roles that users may add to (payouts with `create`): another role's POST
    with a body valid for finance is refused (403), and the claim fails when the check is gone."""
    text = SEED.read_text()
    old = "    roles: [finance]\n    operations: [list, read]\n"
    assert text.count(old) == 1
    seed = tmp_path / "approvals.yaml"
    seed.write_text(text.replace(old, "    roles: [finance]\n    operations: [list, read, create]\n"))
    world = build_world(seed, tmp_path / "built", frontend=False).path
    clean = tmp_path / "clean"
    ids = [i for i in _role_claims_only(world, clean) if i.startswith("roles:create:")]
    assert sorted(ids) == ["roles:create:payout@employee", "roles:create:payout@manager"]
    report = verify_world(clean, ui=False)
    assert not report.failures(), [(r.id, r.message) for r in report.failures()]
    gate = "    require_role(meta, actor)  # a role that does not see the entity cannot add to it either\n"
    failed = _failed_with(world, tmp_path / "open_create", "app/backend/runtime.py", gate, "")
    assert set(ids) <= failed and all(i.startswith(("roles:create:", "ui:role:")) for i in failed), sorted(failed)


@pytest.mark.parametrize("kind", ["workflow_role_dropped", "entity_role_opened", "role_link_shown"])
def test_each_role_fault_kind_is_killed_at_every_site(approvals: Path, tmp_path: Path, kind: str) -> None:
    """The independent suite's role kinds, injected as `factory mutate` injects them: the role claims
    that pass on the clean world fail at every site (the frontend kind at two: one link, one action)."""
    sites = targets(approvals, kind)
    if kind == "role_link_shown":
        sites = [next(s for s in sites if s.startswith("nav[")), next(s for s in sites if s.startswith("actions["))]
    assert sites, kind
    for index, site in enumerate(sites):
        copy = tmp_path / f"site{index}"
        _role_claims_only(approvals, copy)
        fault = inject(copy, kind, 0, target=site, suite="independent")
        failed = {r.id for r in verify_world(copy, ui=kind == "role_link_shown").failures()}
        prefix = {"workflow_role_dropped": "roles:workflow:", "entity_role_opened": "roles:list:",
                  "role_link_shown": "ui:role:home@"}[kind]
        assert any(i.startswith(prefix) for i in failed), (site, fault.description, sorted(failed))
