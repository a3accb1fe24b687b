"""The app's look (`factory/builder/look.py`): what a seed states is kept, what it leaves out is
drawn from its random seed among the families that fit the world's entities, and a look that
cannot fit is a located error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.builder.look import LAYOUTS, THEMES, calendar_dates, inbox_score
from factory.compiler.frontend import look_view
from factory.errors import SeedError
from factory.seed.loader import load_seed_text

REPO = Path(__file__).resolve().parents[2]
MAIL = (REPO / "seeds" / "echomail.yaml").read_text()
BANK = (REPO / "seeds" / "echobank.yaml").read_text()
STATED = re.compile(r"^look: .*$", re.MULTILINE)


def _look(text: str, look: str | None, file: str = "seed.yaml") -> object:
    text = STATED.sub(look, text) if look is not None else STATED.sub("", text)
    return build_spec(load_seed_text(text, file)).look


def test_the_repos_worlds_get_the_family_that_fits_them() -> None:
    for name, layout in (("echobank", "sidebar"), ("echomail", "inbox"), ("echostay", "calendar")):
        spec = build_spec(load_seed_text((REPO / "seeds" / f"{name}.yaml").read_text(), f"{name}.yaml"))
        assert spec.look.layout == layout
    stay = build_spec(load_seed_text((REPO / "seeds" / "echostay.yaml").read_text(), "echostay.yaml"))
    assert (stay.look.focus, stay.look.start, stay.look.end) == ("booking", "check_in", "check_out")


def test_a_look_left_out_is_drawn_from_the_random_seed_among_what_fits() -> None:
    drawn = {}
    for n in range(40):
        text = re.sub(r"^random_seed: \d+$", f"random_seed: {n}", BANK, flags=re.MULTILINE)
        first, again = _look(text, None), _look(text, None)
        assert first == again  # same seed, same look
        drawn[n] = first
    layouts = {look.layout for look in drawn.values()}  # type: ignore[attr-defined]
    themes = {look.theme for look in drawn.values()}  # type: ignore[attr-defined]
    assert themes == set(THEMES)
    # echobank has spans (a statement's period) but no message-like rows: never an inbox.
    assert layouts == {"sidebar", "topnav", "calendar"}
    calendars = [look for look in drawn.values() if look.layout == "calendar"]  # type: ignore[attr-defined]
    assert all((c.start, c.end) == ("period_start", "period_end") for c in calendars)  # type: ignore[attr-defined]


def test_fitting_is_read_from_the_shape_of_the_entities() -> None:
    seed = load_seed_text(MAIL, "echomail.yaml").seed
    by_name = {e.name: e for e in seed.entities}
    assert inbox_score(by_name["message"]) == (3, 1)  # owner, sender, recipient; a time of day
    assert inbox_score(by_name["contact"]) is None  # notes but no date
    assert calendar_dates(by_name["message"]) is None  # one date is not a span
    assert calendar_dates(by_name["message"], single=True) is not None
    assert set(LAYOUTS) == {"sidebar", "topnav", "inbox", "calendar"}


@pytest.mark.parametrize(("look", "where", "message"), [
    ("look: {layout: inbox}", "look.layout", "no entity is like that"),
    ("look: {layout: inbox, focus: card}", "look.focus", "card is not like that"),
    ("look: {layout: calendar, focus: vault}", "look.focus", "unknown entity 'vault'"),
    ("look: {layout: calendar, focus: bill, dates: [due_on, amount]}", "look.dates[1]", "'amount' is not a date"),
    ("look: {layout: calendar, dates: [due_on]}", "look.dates", "add `focus`"),
    ("look: {layout: sidebar, focus: bill}", "look.focus", "focus and dates are for inbox and calendar"),
    ("look: {layout: tabs}", "look.layout", ""),
    ("look: {theme: neon}", "look.theme", ""),
])
def test_a_look_that_cannot_fit_is_a_located_error(look: str, where: str, message: str) -> None:
    with pytest.raises(SeedError) as caught:
        _look(BANK, look, "echobank.yaml")
    text = str(caught.value)
    assert re.match(rf"echobank\.yaml:\d+: {re.escape(where)}", text), text
    assert message in text


def test_the_frontend_learns_the_inbox_folders_and_its_lead_action() -> None:
    spec = build_spec(load_seed_text(MAIL, "echomail.yaml"))
    view = look_view(spec)
    assert view["layout"] == "inbox" and view["focus"] == "message"
    assert view["lead"] == "send_message"  # writes a new message without choosing one
    assert [f["value"] for f in view["folders"]] == ["inbox", "sent", "drafts", "archive", "trash"]
    assert view["folders"][0]["href"] == "/messages?folder=inbox"
