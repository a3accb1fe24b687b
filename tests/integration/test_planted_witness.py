"""A workflow the seed data gives nothing to act on is witnessed on planted rows (issue 30, point 6:
the suite's freight and help-desk worlds kept one failing claim each, `behaviour:flag_overdue:effects`
and `behaviour:close_resolved:effects`, because their storylines had already run the clock-driven
bulk workflow on schedule, so every sampled call was refused and the claim had no witness)."""

from __future__ import annotations

from pathlib import Path

from factory.claims.compile import compile_claims, write_claims
from factory.verify.run import Verifier, load_claims
from factory.world.assemble import build_world

SEEDS = Path(__file__).resolve().parents[2] / "seeds"

# notes are updated within the last 90 days, so none is "stale": only a planted row can be
SWEEP = """  - name: sweep_stale
    label: Sweep stale notes
    params: []
    preconditions:
      - {check: "exists(n in note where n.owner == me and n.status == 'active' and n.updated_on < today() - days(400))",
         message: "None of your active notes is stale."}
    effects:
      - {for_each: "n in note where n.owner == me and n.status == 'active' and n.updated_on < today() - days(400)",
         set: n.status, to: "'archived'"}
    success: Stale notes archived.
"""


def test_a_workflow_with_no_seed_row_to_act_on_is_witnessed_on_planted_rows(tmp_path: Path) -> None:
    text = (SEEDS / "mock.yaml").read_text()
    assert "workflows:\n" in text
    (tmp_path / "mock.yaml").write_text(text.replace("workflows:\n", "workflows:\n" + SWEEP, 1))
    world = build_world(tmp_path / "mock.yaml", tmp_path / "worlds", frontend=False).path
    claims = compile_claims(world)
    effects = next(c for c in claims.claims if c.id == "behaviour:sweep_stale:effects")
    plant = effects.getter.plant  # type: ignore[union-attr]
    assert len(plant) == 2 and all(s.startswith('UPDATE "note" SET') and "updated_on" in s for s in plant), plant
    expect = effects.predicate.expect  # type: ignore[union-attr]
    assert expect is not None and sorted(r.values["status"] for r in expect.updated) == ["archived", "archived"]
    assert "behaviour:sweep_stale:effect1_rows" in {c.id for c in claims.claims}
    assert not any(u.startswith("sweep_stale: no user can complete it") for u in claims.unwitnessed)
    write_claims(world, claims)
    saved, digest = load_claims(world)
    mine = [c for c in saved.claims if c.id.startswith("behaviour:sweep_stale:") or c.id.startswith("roles:workflow:sweep")]
    report = Verifier(world, ui=False).run(saved.model_copy(update={"claims": mine}), digest)
    failed = [(r.id, r.message) for r in report.results if not r.passed]
    assert failed == [], failed
    # the planted change is the baseline: the diff the effects claim judged holds only the sweep's own change
    result = next(r for r in report.results if r.id == "behaviour:sweep_stale:effects")
    diff = result.evidence.db_diff
    assert diff is not None, result
    changed = [r["changed"] for t in diff["tables"].values() for r in t["updated"]]
    assert changed == [["status"], ["status"]], diff
