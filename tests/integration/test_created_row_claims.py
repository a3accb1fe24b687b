"""A claim reads a row a call created as a user who may read it (issue 30, point 6: the suite's
restaurant failed 812/813 because a host seats a party and the table's order belongs to the waiter;
the claim read it back as the host and got 404, which repair could not fix)."""

from __future__ import annotations

from pathlib import Path

from factory.claims.compile import compile_claims, write_claims
from factory.verify.run import Verifier, load_claims
from factory.world.assemble import build_world

SEEDS = Path(__file__).resolve().parents[2] / "seeds"

GIFT = """  - name: gift_note
    label: Give a note
    params:
      - {name: friend, type: reference, to: user}
      - {name: title, type: string, max_length: 80}
    preconditions:
      - {check: "friend != me", message: "Give it to someone else."}
      - {check: "exists(b in notebook where b.owner == friend)", message: "{friend} has no notebook."}
    effects:
      - create: note
        values: {owner: friend, notebook: "first(b in notebook where b.owner == friend)", title: title,
                 status: "'active'", pinned: "false", priority: "3", updated_on: "today()"}
    success: Note given.
"""


def test_a_row_the_caller_creates_for_another_user_is_read_by_its_owner(tmp_path: Path) -> None:
    text = (SEEDS / "mock.yaml").read_text()
    fields = "      - {name: updated_on, type: date, filter: true, gen: {days_from: -90, days_to: 0}}\n"
    assert fields in text and "workflows:\n" in text
    text = text.replace(fields, fields + '      - {name: title_length, type: int, compute: "len(title)"}\n', 1)
    text = text.replace("workflows:\n", "workflows:\n" + GIFT, 1)
    (tmp_path / "mock.yaml").write_text(text)
    world = build_world(tmp_path / "mock.yaml", tmp_path / "worlds", frontend=False).path
    claims = compile_claims(world)
    fresh = [c for c in claims.claims if c.id == "data:computed:note:after:gift_note"]
    assert fresh, [c.id for c in claims.claims if "computed" in c.id]
    post, get = fresh[0].getter.steps  # type: ignore[union-attr]
    assert post.user != get.user and get.method == "GET", (post, get)  # the giver cannot read it: its owner does
    write_claims(world, claims)
    saved, digest = load_claims(world)
    mine = [c for c in saved.claims if c.id.startswith("data:computed:note:")]
    report = Verifier(world, ui=False).run(saved.model_copy(update={"claims": mine}), digest)
    failed = [(r.id, r.message) for r in report.results if not r.passed]
    assert failed == [], failed
