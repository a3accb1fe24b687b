"""Measure in-process grading time of one realistic task on the echobank seed database.

Usage: `.venv/bin/python bench/grading.py [--db worlds/echobank/data/seed.db] [--repeats 200]`.
The final database is a copy of the seed on which one bill is paid the way the app pays it (bill
status and date, account balance, one new transaction); the program has six checks of the kinds
a generated pay-a-bill task uses. Prints median/min/max in milliseconds; target: median <= 5 ms.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from verifiers import grade, load_reward  # noqa: E402  (importable only after the sys.path line above)
from verifiers.program import RewardProgram  # noqa: E402  (likewise)

TARGET_MS = 5.0


def pay_a_bill(seed: Path, workdir: Path) -> tuple[Path, Path, dict[str, object]]:
    """Copies of the seed before and after paying its first due bill; the facts for a program."""
    initial, final = workdir / "initial.db", workdir / "final.db"
    shutil.copyfile(seed, initial)
    shutil.copyfile(seed, final)
    conn = sqlite3.connect(final)
    bill_id, owner, amount = conn.execute(
        "SELECT id, owner_id, amount FROM bill WHERE status = 'due' ORDER BY id LIMIT 1").fetchone()
    account_id, balance = conn.execute(
        "SELECT id, balance FROM account WHERE owner_id = ? AND kind = 'checking' ORDER BY id",
        (owner,)).fetchone()
    conn.execute("UPDATE bill SET status = 'paid', paid_on = '2026-06-10', paid_from_id = ? "
                 "WHERE id = ?", (account_id, bill_id))
    conn.execute("UPDATE account SET balance = balance - ? WHERE id = ?", (amount, account_id))
    conn.execute(
        'INSERT INTO "transaction" (owner_id, account_id, posted_on, description, amount, '
        "direction, category, balance_after) VALUES (?, ?, '2026-06-10', 'Bill payment', ?, "
        "'debit', 'bills', ?)", (owner, account_id, amount, balance - amount))
    due_left = conn.execute("SELECT count(*) FROM bill WHERE status = 'due' AND owner_id = ?",
                            (owner,)).fetchone()[0]
    conn.commit()
    conn.close()
    facts = {"bill": bill_id, "account": account_id, "amount": amount, "owner": owner,
             "due_left": due_left}
    return initial, final, facts


def program_for(facts: dict[str, object]) -> RewardProgram:
    """Six checks: the row, the balance, the new transaction, nothing else, a query, an answer."""
    return load_reward({"schema_version": 1, "mode": "all", "checks": [
        {"id": "paid", "type": "row_matches", "table": "bill", "key": {"id": facts["bill"]},
         "expect": {"status": "paid", "paid_from_id": facts["account"]}},
        {"id": "balance", "type": "field_delta", "table": "account",
         "key": {"id": facts["account"]}, "column": "balance", "delta": -facts["amount"]},  # type: ignore[operator]
        {"id": "txn", "type": "rows_added", "table": "transaction",
         "where": {"account_id": facts["account"], "amount": facts["amount"]}, "count": 1},
        {"id": "nothing_else", "type": "diff_within", "allowed": {
            "bill": {"update": ["status", "paid_on", "paid_from_id"]},
            "account": {"update": ["balance"]}, "transaction": {"insert": True}}},
        {"id": "due_left", "type": "sql", "query": "SELECT count(*) FROM bill WHERE "
         f"status = 'due' AND owner_id = {facts['owner']}", "expect": [[facts["due_left"]]]},
        {"id": "answer", "type": "answer", "kind": "money",
         "expected": facts["amount"] / 100, "tolerance": 0.01},  # type: ignore[operator]
    ]})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=REPO / "worlds/echobank/data/seed.db")
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    if not args.db.exists():
        print(f"{args.db} not found; build it with `make world SEED=seeds/echobank.yaml`")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        initial, final, facts = pay_a_bill(args.db, Path(tmp))
        program = program_for(facts)
        answer = f"${facts['amount'] / 100:,.2f}"  # type: ignore[operator]
        first = grade(program, initial, final, answer)
        if not first.passed:
            print("the benchmark program does not pass; fix it first:\n" + first.explanation)
            return 1
        samples: list[float] = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            grade(program, initial, final, answer)
            samples.append((time.perf_counter() - start) * 1000)
    median = statistics.median(samples)
    print(f"grading one task ({len(program.checks)} checks) on {args.db.name}, "
          f"n={len(samples)}: median {median:.2f} ms, min {min(samples):.2f} ms, "
          f"max {max(samples):.2f} ms (target median <= {TARGET_MS:g} ms: "
          f"{'met' if median <= TARGET_MS else 'missed'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
