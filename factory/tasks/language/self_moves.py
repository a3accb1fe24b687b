"""A verb of moving oneself ("Leave waitlist", "Quit team") said as people say it of the one who
moves: "Take Paula Mitchell off the waitlist for the Spin class …" (a desk acting for a member),
"Take me off the waitlist for …" (the member), never "Leave Paula Mitchell's waitlist spot for …",
which says the desk leaves it.

The shape is grammar: the label is one such verb and a noun that is part of the noun of the row
acted on ("waitlist" of a "waitlist spot"), and the row is said as someone's ("my …", "Paula
Mitchell's …"). `unmoved` reads the sentence back into the frame's own words, so `frames_read`
parses it unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from factory.spec.model import Spec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.frame_params import part_of
from factory.tasks.language.frames import Frame
from factory.tasks.language.spoken import noun, said, verb_words

# A person as a label writes them ("Paula Mitchell", "Seán O'Brien").
_PERSON = r"[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)*"


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
    m = re.match(rf"{re.escape(move.verb)} (?:(?P<mine>my)|(?P<who>{_PERSON})'s) {re.escape(move.thing)} (?P<rest>.+)$",
                 text)
    if m is None:
        return None
    return f"Take {'me' if m['mine'] else m['who']} off the {move.place} {m['rest']}"


def unmoved(text: str, move: Move) -> str | None:
    """The frame's own words of a `moved` sentence, or None when `text` is not said so."""
    m = re.match(rf"Take (?:(?P<me>me)|(?P<who>{_PERSON})) off the {re.escape(move.place)} (?P<rest>.+)$", text)
    if m is None:
        return None
    return f"{move.verb} {'my' if m['me'] else m['who'] + chr(39) + 's'} {move.thing} {m['rest']}"
