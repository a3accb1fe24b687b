"""The app's look: which layout family and theme a world gets, and what an inbox or calendar shows.

A seed may say it (`look: {layout: inbox, theme: paper, focus: message}`); whatever it leaves out
is drawn from its `random_seed` among what fits the world, so a new seed gets a look of its own
and the same seed always the same one. Fitting is read from the entities' shape, never from their
names:

- an **inbox** lists message-like rows: a listed, readable entity with a long text (a body), a
  date or time it was written and two people it passes between;
- a **calendar** places rows that span days on them: a listed, readable entity with two date
  fields in a row whose names open and close a span (check in, check out; start, end; from, to);
  a seed that names its calendar's entity may also place rows by one date;
- a **sidebar** app and a **top-navigation** site fit every world.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import cast, get_args

from factory.seed.loaded import LoadedSeed
from factory.seed.model import EntityDef, Layout, Theme
from factory.spec.model import LookSpec

LAYOUTS: tuple[str, ...] = get_args(Layout)
THEMES: tuple[str, ...] = get_args(Theme)
_DATED = ("date", "datetime")


def _shown(entity: EntityDef) -> bool:
    """An entity with a page of its own in the navigation."""
    return entity.nav and "list" in entity.operations and "read" in entity.operations


def _people(entity: EntityDef) -> int:
    """How many users a row names (a sender and a recipient, a guest and a host)."""
    return sum(1 for f in entity.fields if f.type == "reference" and f.to == "user")


def inbox_score(entity: EntityDef) -> tuple[int, int] | None:
    """Message-like rows: a body to read, a moment it was written and two people it passes
    between; the more people and a time of day rank first. None: not message-like."""
    types = {f.type for f in entity.fields}  # a body kept out of the list still makes a message
    if not _shown(entity) or "text" not in types or not types & set(_DATED) or _people(entity) < 2:
        return None
    return _people(entity), int("datetime" in types)


# Words that open and close a span in a field's name: check_in/check_out, start_on/end_on,
# period_start/period_end, depart_on/return_on, valid_from/valid_to.
_OPENS = frozenset({"start", "starts", "from", "begin", "begins", "in", "depart", "departs", "since", "open", "opens"})
_CLOSES = frozenset({"end", "ends", "to", "until", "out", "return", "returns", "close", "closes", "finish"})


def _span(first: str, second: str) -> bool:
    """Two field names that open and close one span."""
    return bool(set(first.split("_")) & _OPENS) and bool(set(second.split("_")) & _CLOSES)


def calendar_dates(entity: EntityDef, single: bool = False) -> tuple[str, str | None] | None:
    """The field a row starts on and the next field, a date of the same kind whose name closes what
    the first opens, it ends on (a stay, a leave, a period). With `single`, a lone date will do (a
    seed that names its calendar's entity)."""
    if not _shown(entity):
        return None
    fields = [f for f in entity.fields if not f.hidden]
    lone: tuple[str, str | None] | None = None
    for i, field in enumerate(fields):
        if field.type in _DATED:
            after = fields[i + 1] if i + 1 < len(fields) else None
            if after is not None and after.type == field.type and _span(field.name, after.name):
                return field.name, after.name
            lone = lone or (field.name, None)
    return lone if single else None


def _best(entities: list[EntityDef], score: Callable[[EntityDef], tuple[int, ...] | None]) -> EntityDef | None:
    """The best-scoring entity, the first of equals (seed order)."""
    scored = [(s, -i, e) for i, e in enumerate(entities) if (s := score(e)) is not None]
    return max(scored, key=lambda t: (t[0], t[1]))[2] if scored else None


def _focus(loaded: LoadedSeed, layout: str) -> tuple[str | None, str | None, str | None]:
    """The entity an inbox or a calendar shows, with the calendar's date fields."""
    seed = loaded.seed
    look = seed.look
    entities = {e.name: e for e in seed.entities}
    if layout not in ("inbox", "calendar"):
        return None, None, None
    named = look.focus if look is not None else None
    if named is not None and named not in entities:
        raise loaded.error(("look", "focus"), f"unknown entity {named!r} (entities: {', '.join(entities)})")
    candidates = [entities[named]] if named is not None else list(seed.entities)
    subject = f"{named} is not" if named else "no entity is"
    if layout == "inbox":
        entity = _best(candidates, inbox_score)
        if entity is None:
            raise loaded.error(("look", "focus" if named else "layout"),
                               "an inbox lists message-like rows (a listed page, a long text of type text, a date or "
                               f"datetime and two references to users); {subject} like that")
        return entity.name, None, None
    dates = look.dates if look is not None else None
    if dates:
        if named is None:
            raise loaded.error(("look", "dates"), "dates need the calendar's entity: add `focus`")
        fields = {f.name: f for f in entities[named].fields}
        for i, name in enumerate(dates):
            if name not in fields or fields[name].type not in _DATED:
                raise loaded.error(("look", "dates", i), f"{name!r} is not a date or datetime field of {named}")
        if len(dates) == 2 and fields[dates[0]].type != fields[dates[1]].type:
            raise loaded.error(("look", "dates"), "the start and end fields must both be dates or both datetimes")
        return named, dates[0], dates[1] if len(dates) == 2 else None
    entity = _best(candidates, lambda e: None if calendar_dates(e, bool(named)) is None else (_people(e),))
    found = calendar_dates(entity, single=True) if entity is not None else None
    if entity is None or found is None:
        raise loaded.error(("look", "focus" if named else "layout"),
                           "a calendar places rows that span days (a listed page and two date fields in a row, a "
                           f"start and an end); {subject} like that: name the entity and its `dates`")
    return entity.name, found[0], found[1]


def choose_look(loaded: LoadedSeed) -> LookSpec:
    """The world's look: what the seed says, the rest drawn from its random seed among what fits."""
    seed = loaded.seed
    look = seed.look
    rng = random.Random(f"look:{seed.world}:{seed.random_seed}")
    layout: str | None = look.layout if look is not None and look.layout else None
    if layout is None:
        fitting: list[str] = ["sidebar", "topnav"]
        if any(inbox_score(e) is not None for e in seed.entities):
            fitting.append("inbox")
        if any(calendar_dates(e) is not None for e in seed.entities):
            fitting.append("calendar")
        layout = rng.choice(fitting)
    theme = look.theme if look is not None and look.theme else rng.choice(THEMES)
    focus, start, end = _focus(loaded, layout)
    if look is not None and layout in ("sidebar", "topnav") and (look.focus or look.dates):
        raise loaded.error(("look", "focus" if look.focus else "dates"),
                           f"a {layout} layout shows no single entity: focus and dates are for inbox and calendar")
    return LookSpec(layout=cast(Layout, layout), theme=theme, focus=focus, start=start, end=end)
