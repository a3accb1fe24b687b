"""The independent fault suite (factory/faults): every kind finds many sites of a world, deterministically,
and its edit does what it says: the right file, the right line, the right value.

Kinds are applied to a copy of a small purpose-built world (a bank of wallets) without rebuilding the
bundle; two frontend kinds and one backend kind go end to end through `factory.mutate.run.inject`.
"""

from __future__ import annotations

import json
import py_compile
import random
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import git
import httpx
import pytest

from factory.mutate import faults
from factory.mutate.faults import derived
from factory.mutate.faults.data import check_invariants
from factory.mutate.mutations import ORDER as CLASSIC
from factory.mutate.mutations.base import MutationError
from factory.mutate.run import ALL_KINDS, SUITES, _view, inject, mutation, plan, suite_kinds, targets
from factory.mutate.score import FaultOutcome, MutationScore
from factory.runtime.server import AppServer, fresh_db
from factory.world.assemble import build_world

LAB = '''
# A tiny bank with a little of everything the independent fault suite aims at (tests only).
world: faultlab
title: Fault Lab
scenario: >
  People keep wallets of coins, move coins between their own wallets, cap and freeze wallets and
  keep savings goals; every wallet's balance is the sum of its entries.
today: 2026-06-15
random_seed: 7
users:
  accounts:
    - {username: ann, name: Ann Archer, password: ann-pass}
    - {username: ben, name: Ben Baker, password: ben-pass}
  generate: 1
entities:
  - name: wallet
    label: Wallet
    display: title
    owner: [owner]
    operations: [list, read]
    sort: title
    fields:
      - {name: owner, type: reference, to: user, editable: false}
      - {name: title, type: string, max_length: 40, searchable: true, gen: {template: "{word} wallet"}}
      - {name: kind, type: enum, values: [cash, savings], filter: true}
      - {name: balance, type: money, min: 0, default: 0, gen: {min: 0, max: 0}}
      - {name: cap, type: money, min: 0, max: 1000, required: false, gen: {min: 100, max: 900}}
      - {name: opened_on, type: date, filter: true, gen: {days_from: -300, days_to: -200}}
      - {name: checked_on, type: date, required: false, gen: {days_from: -100, days_to: -1}}
      - {name: frozen, type: bool, default: false, filter: true, gen: {choices: [false]}}
      - {name: hidden, type: bool, default: false, gen: {choices: [false]}}
    seed: {per_user: 2}
  - name: goal
    label: Goal
    display: title
    owner: [owner]
    operations: [list, read]
    fields:
      - {name: owner, type: reference, to: user, editable: false}
      - {name: wallet, type: reference, to: wallet, filter: true}
      - {name: title, type: string, max_length: 40, gen: {template: "Save for {word}"}}
      - {name: target, type: money, min: 1, gen: {min: 50, max: 500}}
    seed: {per_user: 1}
  - name: entry
    label: Entry
    plural: Entries
    display: memo
    owner: [owner]
    operations: [list, read]
    sort: -posted_on
    fields:
      - {name: owner, type: reference, to: user, editable: false}
      - {name: wallet, type: reference, to: wallet, filter: true}
      - {name: amount, type: money, min: 0, filter: true}
      - {name: direction, type: enum, values: [in, out], filter: true}
      - {name: memo, type: string, max_length: 60, searchable: true}
      - {name: note, type: string, max_length: 60, required: false}
      - {name: posted_on, type: date, filter: true}
      - {name: balance_after, type: money, min: 0}
workflows:
  - name: move_coins
    label: Move coins
    params:
      - {name: from_wallet, type: reference, to: wallet, where: "not it.frozen"}
      - {name: to_wallet, type: reference, to: wallet}
      - {name: amount, type: money, min: 0.01, max: 500}
      - {name: memo, type: string, max_length: 60}
      - {name: note, type: string, max_length: 60, required: false}
    preconditions:
      - {check: "from_wallet != to_wallet", message: "Choose two different wallets."}
      - {check: "not from_wallet.frozen", message: "That wallet is frozen."}
      - {check: "amount > 0", message: "Move more than nothing."}
      - {check: "amount <= 500", message: "At most 500 at a time."}
      - {check: "from_wallet.balance >= amount", message: "Not enough coins in that wallet."}
    effects:
      - {set: from_wallet.balance, to: "from_wallet.balance - amount"}
      - {set: to_wallet.balance, to: "to_wallet.balance + amount"}
      - create: entry
        values: {wallet: from_wallet, amount: amount, direction: "'out'", memo: memo, note: note, posted_on: "today()", balance_after: from_wallet.balance}
      - create: entry
        values: {wallet: to_wallet, amount: amount, direction: "'in'", memo: memo, note: note, posted_on: "today()", balance_after: to_wallet.balance}
    success: Coins moved.
  - name: set_cap
    label: Set a cap
    subject: wallet
    params:
      - {name: wallet, type: reference, to: wallet}
      - {name: cap, type: money, min: 0, max: 1000}
      - {name: reason, type: enum, values: [travel, safety, other]}
    preconditions:
      - {check: "cap >= wallet.balance", message: "The cap cannot be below the balance."}
    effects:
      - {set: wallet.cap, to: cap}
      - {set: wallet.checked_on, to: "today()"}
    success: Cap set.
  - name: open_wallet
    label: Open a wallet
    params:
      - {name: title, type: string, max_length: 40}
      - {name: kind, type: enum, values: [cash, savings]}
    preconditions:
      - {check: "len(title) >= 3", message: "A title needs at least 3 characters."}
    effects:
      - create: wallet
        values: {title: title, kind: kind, balance: "0", opened_on: "today()", frozen: "false", hidden: "false"}
    success: Wallet opened.
  - name: schedule_check
    label: Schedule a check
    subject: wallet
    params:
      - {name: wallet, type: reference, to: wallet}
      - {name: check_on, type: date}
    preconditions:
      - {check: "check_on > today()", message: "Pick a day after today."}
      - {check: "check_on <= today() + days(30)", message: "Checks are scheduled at most 30 days ahead."}
    effects:
      - {set: wallet.checked_on, to: check_on}
    success: Check scheduled.
  - name: freeze
    label: Freeze wallet
    subject: wallet
    params:
      - {name: wallet, type: reference, to: wallet}
    preconditions:
      - {check: "not wallet.frozen", message: "That wallet is already frozen."}
    effects:
      - {set: wallet.frozen, to: "true"}
    success: Wallet frozen.
  - name: tidy_wallet
    label: Tidy a wallet
    subject: wallet
    params:
      - {name: wallet, type: reference, to: wallet}
    effects:
      - {set: wallet.checked_on, to: "today()", when: "wallet.balance > 0"}
      - {set: wallet.hidden, to: "true", when: "wallet.balance == 0"}
      - {for_each: "e in entry where e.wallet == wallet and e.note == null", set: e.note, to: "'tidied'"}
      - {for_each: "g in goal where g.wallet == wallet", set: g.target, to: "g.target + 1"}
    success: Wallet tidied.
  - name: check_goal_wallet
    label: Check a goal's wallet
    subject: goal
    params:
      - {name: goal, type: reference, to: goal}
    effects:
      - {set: goal.wallet.checked_on, to: "today()"}
      - {set: goal.wallet.cap, to: goal.target}
    success: Goal wallet checked.
  - name: deposit
    label: Deposit
    system: true
    params:
      - {name: wallet, type: reference, to: wallet}
      - {name: amount, type: money}
    effects:
      - {set: wallet.balance, to: "wallet.balance + amount"}
      - create: entry
        values: {wallet: wallet, amount: amount, direction: "'in'", memo: "'Deposit'", posted_on: "today()", balance_after: wallet.balance}
tasks:
  - {name: count_wallets, kind: read, phrasings: ["How many wallets do I have?"]}
capabilities: [search, select, money_input, date_picker]
storyline:
  - name: monthly_deposit
    workflow: deposit
    start: 2026-03-01
    every: month
    for_each: "w in wallet"
    actor: w.owner
    params: {wallet: w, amount: "rand_money(20, 200)"}
invariants:
  - name: balance_matches_entries
    for_each: "w in wallet"
    check: "w.balance == sum(e.amount for e in entry where e.wallet == w and e.direction == 'in') - sum(e.amount for e in entry where e.wallet == w and e.direction == 'out')"
    message: A wallet's balance is its entries in minus its entries out.
  - name: entry_in_own_wallet
    for_each: "e in entry"
    check: "e.wallet.owner == e.owner"
    message: An entry sits in one of its owner's wallets.
'''  # noqa: E501  (a seed file: its lines are kept as a seed author writes them)
PASSWORDS = {"ann": "ann-pass", "ben": "ben-pass"}


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lab world, built once (frontend included: esbuild takes about a second)."""
    root = tmp_path_factory.mktemp("faultlab")
    (root / "faultlab.yaml").write_text(LAB)
    return build_world(root / "faultlab.yaml", root / "worlds").path


@pytest.fixture(scope="module")
def bench(lab: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy of the lab that the edit tests share, put back to its last commit after each test."""
    copy = tmp_path_factory.mktemp("bench") / "faultlab"
    shutil.copytree(lab, copy)
    return copy


@pytest.fixture()
def world(bench: Path) -> Iterator[Path]:
    repo = git.Repo(bench)
    base = repo.head.commit.hexsha
    yield bench
    repo.git.reset("--hard", base)
    repo.git.clean("-fdq")


@pytest.fixture()
def copy(lab: Path, tmp_path: Path) -> Path:
    """A copy of its own, for tests that commit or serve."""
    target = tmp_path / "faultlab"
    shutil.copytree(lab, target)
    return target


def diff_lines(world: Path, *paths: str) -> tuple[list[str], list[str]]:
    """(removed lines, added lines) of the working tree against HEAD."""
    text = git.Repo(world).git.diff("--unified=0", "--", *paths)
    lines = [line for line in text.splitlines() if not line.startswith(("+++", "---"))]
    return [line[1:] for line in lines if line.startswith("-")], [line[1:] for line in lines if line.startswith("+")]


def spec_js(world: Path) -> dict:
    text = (world / "app/frontend/src/spec.gen.js").read_text()
    return json.loads(text[text.index("export const SPEC = ") + len("export const SPEC = "):-2])


def sql(world: Path, query: str) -> list[tuple]:
    with closing(sqlite3.connect(world / "data" / "seed.db")) as conn:
        return conn.execute(query).fetchall()


# ---------------------------------------------------------------- what each kind must have done

Check = Callable[[Path], None]


def lines(removed: list[str] = (), added: list[str] = (), path: str = "app/backend/workflows.py") -> Check:  # type: ignore[assignment]
    """The diff of `path` removes a line containing each of `removed` and adds one containing each of `added`."""
    def check(world: Path) -> None:
        gone, new = diff_lines(world, path)
        for text in removed:
            assert any(text in line for line in gone), f"no removed line of {path} contains {text!r}: {gone}"
        for text in added:
            assert any(text in line for line in new), f"no added line of {path} contains {text!r}: {new}"
    return check


def both(*checks: Check) -> Check:
    def check(world: Path) -> None:
        for one in checks:
            one(world)
    return check


def labels_swapped(world: Path) -> None:
    params = {p["name"]: p["label"] for p in spec_js(world)["workflows"]["move_coins"]["params"]}
    assert (params["from_wallet"], params["to_wallet"]) == ("To wallet", "From wallet")


def filter_renamed(world: Path) -> None:
    flt = next(f for g in spec_js(world)["entities"]["entry"]["filterGroups"] for f in g["filters"] if f["field"] == "wallet")
    assert (flt["param"], flt["keys"]) == ("wallet", ["wallet"])  # the API reads wallet_id


def header_changed(world: Path) -> None:
    fields = {f["name"]: f["label"] for f in spec_js(world)["entities"]["wallet"]["fields"]}
    assert fields["kind"] == "Balance" and fields["balance"] == "Balance"


def goal_row_gone(world: Path) -> None:
    assert sql(world, "SELECT COUNT(*) FROM goal") == [(2,)]


def balance_off_by_cent(world: Path) -> None:
    head = git.Repo(world).git.show("HEAD:data/seed.db", stdout_as_string=False)
    original = world.parent / "original.db"
    original.write_bytes(head)
    with closing(sqlite3.connect(original)) as conn:
        before = dict(conn.execute("SELECT id, balance FROM wallet"))
    after = dict(sql(world, "SELECT id, balance FROM wallet"))
    changed = {i: after[i] - before[i] for i in before if after[i] != before[i]}
    assert list(changed.values()) in ([1], [-1]), changed


def goal_in_foreign_wallet(world: Path) -> None:
    rows = sql(world, "SELECT g.id FROM goal g JOIN wallet w ON w.id = g.wallet_id WHERE w.owner_id != g.owner_id")
    assert len(rows) == 1, rows


def invariant_hidden(world: Path) -> None:
    # the data breaks the invariant, and the app's own checker no longer says so
    assert sql(world, "SELECT COUNT(*) FROM entry e JOIN wallet w ON w.id = e.wallet_id WHERE w.owner_id != e.owner_id")[0][0] > 0
    view = _view(world)
    assert check_invariants(view, world / "data" / "seed.db")[0]["entry_in_own_wallet"] == []
    lines(["        if not same_row("], ["        if False and (not same_row("], path="app/backend/invariants.py")(world)


# kind → (a substring naming the target, what the edit must have done)
EXPECTED: dict[str, tuple[str, Check]] = {
    "effect_off_by_one": ("move_coins effect 1 ", lines(
        ["    from_wallet.balance = from_wallet.balance - amount"],
        ["    from_wallet.balance = (from_wallet.balance - amount) - 1"])),
    "effect_wrong_sign": ("move_coins effect 2 ", lines(
        ["    to_wallet.balance = to_wallet.balance + amount"], ["    to_wallet.balance = to_wallet.balance - amount"])),
    "effect_wrong_column": ("freeze effect 1 ", lines(["wallet.frozen = True"], ["wallet.hidden = True"])),
    "created_field_wrong": ("move_coins effect 3 create entry.note", lines(["note=note"], ["note=memo"])),
    "effect_wrong_row": ("move_coins effect 3 create entry.wallet_id", lines(
        ["        wallet_id=row_id(from_wallet),"], ["        wallet_id=row_id(to_wallet),"])),
    "condition_dropped": ("tidy_wallet effect 1 ", lines(["    if wallet.balance > 0:"], ["    if True:"])),
    "condition_negated": ("tidy_wallet effect 2 ", lines(["    if wallet.balance == 0:"], ["    if wallet.balance != 0:"])),
    "bulk_first_row_only": ("tidy_wallet effect 4 ", lines(
        ["    for g in session.exec(select(Goal).where(col(Goal.wallet_id) == row_id(wallet)).order_by(col(Goal.id))).all():"],
        [".order_by(col(Goal.id))).all()[:1]:"])),
    "bulk_where_ignored": ("tidy_wallet effect 4 ", lines(
        ["    for g in session.exec(select(Goal).where(col(Goal.wallet_id) == row_id(wallet)).order_by(col(Goal.id))).all():"],
        ["    for g in session.exec(select(Goal).order_by(col(Goal.id))).all():"])),
    "related_row_wrong": ("check_goal_wallet effect 2 ", lines(
        ["    get_row(session, Wallet, goal.wallet_id).cap = goal.target"],
        ["    get_row(session, Wallet, goal.id).cap = goal.target"])),
    "precondition_removed": ("move_coins.pre2", lines(["    if from_wallet.frozen:", '"That wallet is frozen."'])),
    "precondition_negated": ("move_coins.pre3", lines(["    if amount <= 0:"], ["    if amount > 0:"])),
    "boundary_operator": ("move_coins.pre4", lines(["    if amount > 50000:"], ["    if amount >= 50000:"])),
    "boundary_literal": ("schedule_check.pre2", lines(["timedelta(days=30)"], ["timedelta(days=31)"])),
    "message_swapped": ("move_coins.pre1 ↔ move_coins.pre2", lines(
        added=['raise PreconditionFailed("That wallet is frozen.", "move_coins.pre1")',
               'raise PreconditionFailed("Choose two different wallets.", "move_coins.pre2")'])),
    "leak_list": ("GET /api/wallets (wallet)", lines(
        ["return list_rows(session, META, user"], ["return list_rows(session, dataclasses.replace(META, public=True), user",
                                                    "import dataclasses"], "app/backend/routers/wallet.py")),
    "leak_detail": ("GET /api/entries/{id}", lines(
        ["load_visible(session, META, row_id, user)"], ["row = session.get(META.model, row_id)",
                                                         "from backend.runtime import NotFound"],
        "app/backend/routers/entry.py")),
    "leak_filter_options": ("every entity", lines(
        ["conds = [visible(meta, actor), *filter_conditions(meta, params, skip=column)]"],
        ["conds = [*filter_conditions(meta, params, skip=column)]"], "app/backend/runtime.py")),
    "leak_param_options": ("move_coins.to_wallet", lines(
        ['        select(Wallet).where(visible(REGISTRY["wallet"], user)).order_by(col(Wallet.id))'],
        ["        select(Wallet).where().order_by(col(Wallet.id))"],
        "app/backend/routers/workflows.py")),
    "leak_param_load": ("set_cap.wallet", lines(
        ['        {"wallet": "wallet"},'], ["    wallet = load_row(session, Wallet, wallet)", "        {},",
                                        "raise NotFound('Wallet not found')", "from backend.runtime import load_row"])),
    "max_length_raised": ("move_coins.memo", both(
        lines(added=['"memo": Rule("Memo", "string", required=True, min=None, max=None, max_length=600, values=None)']),
        lines(added=['"memo": Rule("Memo", "string", required=True, min=None, max=None, max_length=600, values=None)'],
              path="app/backend/schema.py"))),
    "min_bound_removed": ("set_cap.cap", both(
        lines(added=['"cap": Rule("Cap", "money", required=True, min=None, max=100000,']),
        lines(added=['"cap": Rule("Cap", "money", required=False, min=None, max=100000,'], path="app/backend/schema.py"))),
    "max_bound_raised": ("move_coins.amount", lines(
        added=['"amount": Rule("Amount", "money", required=True, min=1, max=500000,'])),
    "enum_extra_value": ("open_wallet.kind", both(
        lines(['"Kind", "enum", required=True, min=None, max=None, max_length=None, values=("cash", "savings")'],
              ['"Kind", "enum", required=True, min=None, max=None, max_length=None, values=(\'cash\', \'savings\', \'in\')']),
        lines(added=["values=('cash', 'savings', 'in')"], path="app/backend/schema.py"))),
    "required_dropped": ("move_coins.memo", lines(
        ["    memo: str", '"memo": Rule("Memo", "string", required=True'],
        ["    memo: str | None = None", '"memo": Rule("Memo", "string", required=False'])),
    "form_labels_swapped": ("move_coins form: from_wallet ↔ to_wallet", labels_swapped),
    "filter_param_renamed": ("entry filter wallet", filter_renamed),
    "money_scale": ("majorToCents", lines(["Math.round(value * 100)"], ["Math.round(value * 10)"],
                                          "app/frontend/src/runtime/format.js")),
    "select_options_misaligned": ("yes/no filter", lines(
        added=['options={[["true", "No"], ["false", "Yes"]]}'], path="app/frontend/src/runtime/FilterPanel.jsx")),
    "column_header_changed": ("wallet list column kind", header_changed),
    "search_sends_nothing": ("list request", lines(['const keys = ["q", "sort", "page"];'], ['const keys = ["sort", "page"];'],
                                                   "app/frontend/src/runtime/ListPage.jsx")),
    "row_deleted": ("one goal row", goal_row_gone),
    "total_off_by_cent": ("wallet.balance", balance_off_by_cent),
    "reference_repointed": ("goal.wallet", goal_in_foreign_wallet),
    "invariant_masked": ("entry_in_own_wallet", invariant_hidden),
}


# ---------------------------------------------------------------- the registry

# The lab names no roles, so the role kinds have no site in it: tests/integration/test_roles.py injects
# them at every site of the approvals fixture and checks the claims kill them.
LAB_KINDS = tuple(k for k in faults.ORDER if faults.GROUPS[k] != "roles")


def test_the_suite_has_at_least_25_kinds_spread_over_the_world() -> None:
    assert len(faults.ORDER) >= 25 and set(faults.SUITE) == set(faults.ORDER) and set(LAB_KINDS) == set(EXPECTED)
    assert not set(faults.ORDER) & set(CLASSIC), "kind names must differ from the classic suite's"
    assert suite_kinds("independent") == faults.ORDER and suite_kinds("classic") == CLASSIC
    assert set(ALL_KINDS) == set(faults.ORDER) | set(CLASSIC) | set(derived.ORDER)
    per_group: dict[str, int] = {}
    for kind, injector in faults.SUITE.items():
        assert injector.kind == kind and injector.summary, kind
        if faults.GROUPS[kind] != "roles":  # a role is kept on both sides: the server's kinds and the pages'
            assert injector.layer == {"frontend": "frontend", "data": "db"}.get(faults.GROUPS[kind], "backend"), kind
        per_group[faults.GROUPS[kind]] = per_group.get(faults.GROUPS[kind], 0) + 1
    assert per_group == {"effects": 5, "effect_scope": 5, "rules": 5, "ownership": 5, "roles": 3, "validation": 5,
                         "frontend": 6, "data": 4}


def test_a_kind_of_one_suite_is_refused_in_the_other(lab: Path) -> None:
    with pytest.raises(MutationError, match="belongs to the classic suite"):
        mutation("drop_route", "independent")
    with pytest.raises(MutationError, match="unknown fault kind"):
        mutation("no_such_kind")
    with pytest.raises(MutationError, match="belongs to the independent suite"):
        plan(lab, ["leak_list"], 1, 0)  # the default suite is classic


def test_plan_covers_every_kind_at_distinct_sites(lab: Path) -> None:
    runs = plan(lab, None, 2, 0, suite="independent")
    assert [kind for kind, _ in runs] == [kind for kind in LAB_KINDS for _ in range(2)]
    assert runs == plan(lab, None, 2, 0, suite="independent")
    view = _view(lab)
    for kind in LAB_KINDS:
        names = [random.Random(s).choice(faults.SUITE[kind].targets(view)).name for k, s in runs if k == kind]
        assert len(set(names)) == 2, (kind, names)
    classic = [k for k, _ in plan(lab, None, 1, 0)]  # the default stays the classic suite
    assert classic == [k for k in CLASSIC if k in classic] and "drop_route" in classic


# ---------------------------------------------------------------- sites


@pytest.mark.parametrize("kind", LAB_KINDS)
def test_targets_are_many_and_deterministic(lab: Path, bench: Path, kind: str) -> None:
    names = targets(lab, kind)
    assert len(names) >= 2, f"{kind} finds {names} in the lab world"
    assert len(set(names)) == len(names), f"{kind} names two sites alike"
    assert targets(bench, kind) == names  # another copy of the world, the same sites in the same order


# ---------------------------------------------------------------- each edit


@pytest.mark.parametrize("kind", LAB_KINDS)
def test_each_kind_edits_what_it_says(world: Path, kind: str) -> None:
    part, check = EXPECTED[kind]
    injector = faults.SUITE[kind]
    view = _view(world)
    hits = [t for t in injector.targets(view) if part in t.name]
    assert len(hits) == 1, f"{kind}: {part!r} names {[t.name for t in hits]} among {[t.name for t in injector.targets(view)]}"
    dist = (world / "app/frontend/dist/_app/app.js").read_bytes()
    applied = injector.apply(view, hits[0], random.Random(f"0:{kind}:{hits[0].name}"))
    changed = set(git.Repo(world).git.status("--porcelain").split()[1::2])
    assert changed == set(applied.paths), f"{kind} says it wrote {applied.paths}, git sees {changed}"
    for rel in applied.paths:
        if rel.endswith(".py"):
            py_compile.compile(str(world / rel), doraise=True)  # a fault misbehaves; it never stops the import
    assert (world / "app/frontend/dist/_app/app.js").read_bytes() == dist  # apply alone never rebuilds
    assert applied.description
    check(world)


def test_a_changed_anchor_fails_loudly_and_leaves_nothing(copy: Path) -> None:
    repo = git.Repo(copy)
    code = copy / "app/backend/workflows.py"
    code.write_text(code.read_text().replace("from_wallet.balance = from_wallet.balance - amount",
                                             "from_wallet.balance -= amount"))
    someone = git.Actor("test", "test@example.invalid")
    repo.index.add(["app/backend/workflows.py"])
    repo.index.commit("hand edit", author=someone, committer=someone)
    name = next(n for n in targets(copy, "effect_wrong_sign") if "move_coins effect 1 " in n)
    with pytest.raises(MutationError, match="not found"):
        inject(copy, "effect_wrong_sign", 0, target=name, suite="independent")
    fmt = copy / "app/frontend/src/runtime/format.js"
    fmt.write_text(fmt.read_text().replace("value * 100", "value * 100.0"))
    repo.index.add(["app/frontend/src/runtime/format.js"])
    repo.index.commit("hand edit", author=someone, committer=someone)
    with pytest.raises(MutationError, match="anchor"):
        inject(copy, "money_scale", 0, target="majorToCents in runtime/format.js", suite="independent")
    assert not repo.is_dirty(untracked_files=True) and repo.head.commit.message == "hand edit"


# ---------------------------------------------------------------- end to end


def test_a_frontend_fault_rebuilds_the_bundle(copy: Path) -> None:
    before = (copy / "app/frontend/dist/_app/app.js").read_text()
    fault = inject(copy, "filter_param_renamed", 0, target="wallet filter kind (?kind)", suite="independent")
    repo = git.Repo(copy)
    assert repo.head.commit.message == f"mutation: filter_param_renamed {fault.target}"
    assert set(fault.files) >= {"app/frontend/src/spec.gen.js", "app/frontend/dist/_app/app.js"}
    after = (copy / "app/frontend/dist/_app/app.js").read_text()
    assert '"kind_eq"' in after and '"kind_eq"' not in before
    assert not repo.is_dirty(untracked_files=True)


def test_money_scale_reaches_the_bundle(copy: Path) -> None:
    before = (copy / "app/frontend/dist/_app/app.js").read_text()
    fault = inject(copy, "money_scale", 0, target="majorToCents in runtime/format.js", suite="independent")
    assert fault.layer == "frontend" and "app/frontend/dist/_app/app.js" in fault.files
    after = (copy / "app/frontend/dist/_app/app.js").read_text()
    assert re.search(r"Math\.round\(\w+\*10\)", after) and not re.search(r"Math\.round\(\w+\*10\)", before)


def test_a_leaking_detail_route_answers_another_users_row(copy: Path, tmp_path: Path) -> None:
    (ben_wallet,) = sql(copy, "SELECT w.id FROM wallet w JOIN user u ON u.id = w.owner_id WHERE u.username = 'ben' "
                              "ORDER BY w.id LIMIT 1")[0:1]
    path = f"/api/wallets/{ben_wallet[0]}"
    with AppServer(copy, fresh_db(copy, tmp_path / "clean.db")) as server, httpx.Client(base_url=server.url) as ann:
        assert ann.post("/api/auth/login", json={"username": "ann", "password": PASSWORDS["ann"]}).status_code == 200
        assert ann.get(path).status_code == 404
    inject(copy, "leak_detail", 0, target="GET /api/wallets/{id} (wallet)", suite="independent")
    with AppServer(copy, fresh_db(copy, tmp_path / "mutant.db")) as server, httpx.Client(base_url=server.url) as ann:
        assert ann.post("/api/auth/login", json={"username": "ann", "password": PASSWORDS["ann"]}).status_code == 200
        answer = ann.get(path)
        assert answer.status_code == 200 and answer.json()["id"] == ben_wallet[0]
        assert ann.get("/api/wallets/999999").status_code == 404  # a missing row is still missing


def test_the_python_entry_point_lists_and_injects(copy: Path) -> None:
    run = [sys.executable, "-m", "factory.mutate.run", str(copy)]
    listing = subprocess.run([*run, "--suite", "independent"], capture_output=True, text=True, check=True)
    assert set(json.loads(listing.stdout)) == set(faults.ORDER)
    injected = subprocess.run([*run, "--kind", "precondition_removed", "--seed", "3"], capture_output=True, text=True,
                              check=True)
    assert json.loads(injected.stdout)["kind"] == "precondition_removed"


# ---------------------------------------------------------------- scores


def test_scores_per_kind_and_layer() -> None:
    def outcome(kind: str, layer: str, killed: bool, repaired: bool) -> FaultOutcome:
        return FaultOutcome(kind=kind, layer=layer, target="t", killed=killed, killed_by=[], repaired=repaired,
                            rounds=1, final_rate=1.0)

    score = MutationScore(world="w", suite="independent", faults=[
        outcome("money_scale", "frontend", True, True), outcome("leak_list", "backend", True, False),
        outcome("leak_list", "backend", False, False), outcome("row_deleted", "db", True, True)])
    kinds = score.by_kind()
    assert list(kinds) == ["leak_list", "money_scale", "row_deleted"]  # the suite's order
    assert (kinds["leak_list"].faults, kinds["leak_list"].killed, kinds["leak_list"].repaired) == (2, 1, 0)
    assert kinds["leak_list"].kill_rate == 0.5 and kinds["money_scale"].repair_rate == 1.0
    layers = score.by_layer()
    assert list(layers) == ["db", "backend", "frontend"] and layers["backend"].faults == 2
    report = score.as_dict()
    assert report["by_kind"]["row_deleted"] == {"layer": "db", "faults": 1, "killed": 1, "repaired": 1,
                                                "kill_rate": 1.0, "repair_rate": 1.0}
    # the repair rate is over the killed faults: the surviving leak_list fault is not counted against it
    assert report["by_kind"]["leak_list"]["repair_rate"] == 0.0 and layers["backend"].repair_rate == 0.0
    assert report["suite"] == "independent" and report["kill_rate"] == 0.75
    assert report["repair_rate"] == round(2 / 3, 4)
    kills_only = MutationScore(world="w", suite="independent", faults=score.faults, repair_tried=False).as_dict()
    assert kills_only["repair_rate"] is None and kills_only["by_kind"]["leak_list"]["repaired"] is None
    assert set(SUITES) == {"classic", "independent", "derived"}


def test_headers_of_a_table_no_page_renders_are_not_sites(lab: Path) -> None:
    # the built-in user entity has a table in spec.gen.js but, without a user list page, nobody sees
    # its headers: changing one would be an unobservable mutant, counted against the claims unfairly
    spec = _view(lab).spec
    listed = {p.entity for p in spec.pages if p.kind == "list" and p.entity}
    hit = {name.split(" list ")[0] for name in targets(lab, "column_header_changed")}
    assert hit and hit <= listed
    assert "user" not in listed and "user" not in hit
