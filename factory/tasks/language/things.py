"""What a word or a parameter of a workflow names in its world, for the frames (`frames.py`): a
person (named by their name), the user's own row the app finds itself, the person a row made
stands for, a thing of the world or a place (said with "the"), an activity (said bare)."""

from __future__ import annotations

import re

from factory.spec.model import EffectSpec, ParamSpec, Spec
from factory.tasks.language import grammar
from factory.tasks.language.grammar import activity
from factory.tasks.language.spoken import field_noun, noun, said


def person(spec: Spec, entity: str) -> bool:
    """Whether rows of `entity` are the world's users: people, named by their names."""
    ent = spec.entity(entity)
    return ent.builtin and ent.name == "user"


def own_lookup(p: ParamSpec) -> bool:
    """Whether the app finds `p`'s row itself among the user's own (`lookup: first(… == me)`)."""
    return bool(p.ref and p.lookup and re.search(r"==\s*me\b|\bme\s*==", p.lookup))


def stands_for(spec: Spec, made: EffectSpec, p: ParamSpec) -> bool:
    """Whether the row a workflow makes stands for the person `p` names: a field of its display
    (its name) is copied from them ("Add contact": a contact's name is the person's)."""
    ent = spec.entity(made.entity)
    shown = set(re.findall(r"\{(\w+)\}", ent.display)) or {ent.display}
    return any(field in shown and (expr == p.name or expr.startswith(f"{p.name}."))
               for field, expr in (made.values or {}).items())


# Prepositions of motion and place: what follows is somewhere a row goes or is ("to the workshop").
PLACE_PREPOSITIONS = frozenset(["to", "into", "onto", "from", "in", "at", "out", "off"])
def worldly(spec: Spec, words: list[str]) -> bool:
    """Whether `words` name a thing of this world: a kind of row, a field or a value of one ("the
    inbox"), so a sentence says it with an article."""
    said_words = " ".join(words).lower()
    for ent in spec.entities:
        if said_words in (noun(said(ent)), noun(ent.label), grammar.singular(noun(ent.plural))):
            return True
        for f in ent.fields:
            if said_words in (noun(f.label), field_noun(f)) or said_words in {
                    v.replace("_", " ").lower() for v in (f.values or [])}:
                return True
    return False


__all__ = ["PLACE_PREPOSITIONS", "activity", "own_lookup", "person", "stands_for", "worldly"]
