"""Verbs said of the person a row belongs to, as people say them.

A verb of moving oneself ("Leave waitlist", "Quit team") is said of the one who moves: "Take
Paula Mitchell off the waitlist for the Spin class …" (a desk acting for a member), "Take me off
the waitlist for …" (the member), never "Leave Paula Mitchell's waitlist spot for …", which says
the desk leaves it.

The shape is grammar: the label is one such verb and a noun that is part of the noun of the row
acted on ("waitlist" of a "waitlist spot"), and the row is said as someone's ("my …", "Paula
Mitchell's …"). `unmoved` reads the sentence back into the frame's own words, so `frames_read`
parses it unchanged.

A giving verb ("Offer the place") acting on someone's row gives to that person: "Offer Ashley Vega
the place for the Reformer Pilates class …", never "Offer the place for Ashley Vega's waitlist
spot for …" (`gift_shape`, read back by `ungiven`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from factory.spec.model import Spec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.frame_params import part_of
from factory.tasks.language.frames import Frame
from factory.tasks.language.spoken import noun, said, verb_words
from factory.tasks.language.values import PERSON


@dataclass(frozen=True)
class Move:
    """A frame that moves its row's holder: the verb as the frame says it ("Leave"), the place
    left ("waitlist") and the row's noun ("waitlist spot")."""

    verb: str
    place: str
    thing: str


def move_shape(spec: Spec, f: Frame, workflow: WorkflowSpec) -> Move | None:
    """The move of `f`: a verb of leaving and the row acted on right after it, whose noun holds
    the label's own noun; None otherwise."""
    head = verb_words(workflow)
    if head is None or len(f.pieces) < 2 or f.pieces[0].param is not None:
        return None
    verbs, after = head
    subject = f.pieces[1]
    if len(verbs) != 1 or verbs[0] not in grammar.LEAVING_VERBS or subject.role != "subject" or subject.lead != " ":
        return None
    p = next((q for q in workflow.params if q.name == subject.param), None)
    thing = noun(said(spec.entity(p.ref))) if p is not None and p.ref else ""
    words = [w for w in after if w not in ("a", "an", "the", "my")]
    if not words or not part_of(words, thing.split()) or " ".join(words) == thing:
        return None
    return Move(f.pieces[0].lead, " ".join(words), thing)


def moved(text: str, move: Move) -> str | None:
    """"Take Paula Mitchell off the waitlist for …" of "Leave Paula Mitchell's waitlist spot for
    …", or None where the row is not said as someone's."""
    m = re.match(rf"{re.escape(move.verb)} (?:(?P<mine>my)|(?P<who>{PERSON})'s) {re.escape(move.thing)} (?P<rest>.+)$",
                 text)
    if m is None:
        return None
    return f"Take {'me' if m['mine'] else m['who']} off the {move.place} {m['rest']}"


def unmoved(text: str, move: Move) -> str | None:
    """The frame's own words of a `moved` sentence, or None when `text` is not said so."""
    m = re.match(rf"Take (?:(?P<me>me)|(?P<who>{PERSON})) off the {re.escape(move.place)} (?P<rest>.+)$", text)
    if m is None:
        return None
    return f"{move.verb} {'my' if m['me'] else m['who'] + chr(39) + 's'} {move.thing} {m['rest']}"


@dataclass(frozen=True)
class Gift:
    """A frame that gives something to the holder of the row it names: the verb and what is given
    as the frame says them ("Offer", " the place") and the row's noun ("waitlist spot")."""

    head: str
    thing: str


def gift_shape(spec: Spec, f: Frame, workflow: WorkflowSpec) -> Gift | None:
    """The gift of `f`: a giving verb (`grammar.DATIVE_VERBS`), the label's own object, then "for"
    the row acted on; None otherwise."""
    pieces = f.pieces
    if len(pieces) < 3 or pieces[0].param is not None or pieces[1].param is not None:
        return None
    verb, given, row = pieces[0], pieces[1], pieces[2]
    if verb.lead.lower() not in grammar.DATIVE_VERBS or row.role != "subject" or row.lead != " for ":
        return None
    if not given.lead.startswith(" the "):
        return None
    p = next((q for q in workflow.params if q.name == row.param), None)
    if p is None or not p.ref:
        return None
    return Gift(verb.lead + given.lead, noun(said(spec.entity(p.ref))))


def given(text: str, gift: Gift) -> str | None:
    """"Offer Ashley Vega the place for the Spin class …" of "Offer the place for Ashley Vega's
    waitlist spot for the Spin class …", or None where the row is not said as someone's."""
    verb, _, what = gift.head.partition(" ")
    m = re.match(rf"{re.escape(gift.head)} for (?P<who>{PERSON})'s {re.escape(gift.thing)} (?P<rest>for .+)$", text)
    return f"{verb} {m['who']} {what} {m['rest']}" if m is not None else None


def ungiven(text: str, gift: Gift) -> str | None:
    """The frame's own words of a `given` sentence, or None when `text` is not said so."""
    verb, _, what = gift.head.partition(" ")
    m = re.match(rf"{re.escape(verb)} (?P<who>{PERSON}) {re.escape(what)} (?P<rest>for .+)$", text)
    return f"{gift.head} for {m['who']}'s {gift.thing} {m['rest']}" if m is not None else None
