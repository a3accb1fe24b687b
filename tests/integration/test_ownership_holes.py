"""An ownership hole in one option list of a built world fails exactly the matching ownership claims
against the real server, and the same claims all pass on the untouched world."""

from __future__ import annotations

import shutil
from pathlib import Path

from factory.claims.compile import compile_claims, write_claims
from factory.verify.run import verify_world

# `move_note`'s destination list without its visibility condition: every user's notebooks
HOLE = ('    ("move_note", "target"): lambda user, ctx: (\n'
        '        select(Notebook).where(visible(REGISTRY["notebook"], user)).order_by(col(Notebook.id))\n',
        '    ("move_note", "target"): lambda user, ctx: (\n'
        "        select(Notebook).where(col(Notebook.id) > 0).order_by(col(Notebook.id))\n")


def _copy_with_ownership_claims(world: Path, dest: Path) -> list[str]:
    shutil.copytree(world, dest, ignore=shutil.ignore_patterns("run", "reports"))
    compiled = compile_claims(dest)
    own = [c for c in compiled.claims if c.id.startswith("ownership:")]
    # only the ownership claims: the rest of the world's claims are other tests' business
    write_claims(dest, compiled.model_copy(update={"claims": own}))
    return [c.id for c in own]


def test_a_hole_in_one_option_list_fails_its_claims(mock_world: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    ids = _copy_with_ownership_claims(mock_world, clean)
    report = verify_world(clean, ui=False)
    assert report.total == len(ids) and not report.failures(), [(r.id, r.message) for r in report.failures()]

    holed = tmp_path / "holed"
    _copy_with_ownership_claims(mock_world, holed)
    router = holed / "app" / "backend" / "routers" / "workflows.py"
    text = router.read_text()
    assert text.count(HOLE[0]) == 1
    router.write_text(text.replace(*HOLE))
    report = verify_world(holed, ui=False)
    failed = {r.id: r.message for r in report.failures()}
    expected = {i for i in ids if i.startswith("ownership:param_options:move_note.target@")}
    assert expected and set(failed) == expected
    assert all("must not see" in message for message in failed.values())
