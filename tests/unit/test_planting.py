"""Which rows a plant must make: the row conditions a workflow's rules need to hold (its positive
`exists(...)` queries and its `for_each` selectors), never those it needs to fail."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from factory.builder.build import build_spec
from factory.claims.oracle import Oracle
from factory.claims.planting import selectors
from factory.seed.loader import load_seed_text

SEEDS = Path(__file__).resolve().parents[2] / "seeds"

SWEEP = """  - name: sweep_stale
    label: Sweep stale notes
    params: []
    preconditions:
      - {check: "not exists(n in note where n.owner == me and n.pinned)
                 and exists(n in note where n.owner == me and n.status == 'active')",
         message: "Nothing to sweep."}
    effects:
      - {for_each: "x in note where x.owner == me and x.priority > 4", set: x.status, to: "'archived'"}
    success: Swept.
"""


def test_a_plant_meets_the_rows_a_rule_asks_for_never_those_it_forbids(tmp_path: Path) -> None:
    text = (SEEDS / "mock.yaml").read_text().replace("workflows:\n", "workflows:\n" + SWEEP, 1)
    spec = build_spec(load_seed_text(text))
    db = tmp_path / "empty.db"
    sqlite3.connect(db).close()
    oracle = Oracle(spec, db)
    try:
        found = selectors(spec, oracle, next(w for w in spec.workflows if w.name == "sweep_stale"))
    finally:
        oracle.close()
    said = {(s.entity, s.var): len(s.conjuncts) for s in found}
    # the `not exists` (pinned) is left out; the rule's query and the loop's, named apart, stay apart
    assert said == {("note", "n"): 2, ("note", "x"): 2}, said
