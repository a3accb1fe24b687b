"""A wh-question asked directly or as a person asks a colleague ("Can you tell me …?"): one
grammar for both, in both directions.

English puts the subject before its verb in an indirect question: "How much is the joining fee
for the … plan?" becomes "Can you tell me how much the joining fee for the … plan is?"; a verb
carried by "did" takes its past ("How much did asset BWL-1044 cost?" → "… how much asset BWL-1044
cost?"). `asked` writes either form from the parts of the direct one; `direct` reads an indirect
one back into the direct form, which `parse_questions` reads. Before, each question shape wrote
and read its own "Can you tell me" twin.
"""

from __future__ import annotations

import re

import lemminflect

from factory.tasks.language import grammar

TOLD = "Can you tell me "
# The question words a lookup opens on (`lookup_said.lookup_said`): a closed class of English.
_WH = r"when|where|who|how long|how much|how many|what [a-z]+|which [a-z]+"
_AUX = r"is|was|are|were"
# "Can you tell me <wh> <subject> <aux>[ <words>]?": the subject runs to the last verb that only
# lower-case words follow (a state and its bound, "in", a participle), never into a quoted name.
_INVERTED = re.compile(rf"^{TOLD}(?P<wh>{_WH}) (?P<subject>.+) (?P<aux>{_AUX})(?P<rest>(?: [a-z]+)*)\?$")
# "Can you tell me how much <subject> cost?": a past verb with no auxiliary, said with "did" directly
_DONE = re.compile(rf"^{TOLD}(?P<wh>{_WH}) (?P<subject>.+) (?P<verb>[a-z]+)\?$")


def asked(wh: str, aux: str, subject: str, rest: str, variant: int) -> str:
    """The question "<Wh> <aux> <subject><rest>?" on even variants, its "Can you tell me" form on
    odd ones (`rest` opens with a space, or is empty)."""
    if variant % 2 == 0:
        return f"{wh[:1].upper()}{wh[1:]} {aux} {subject}{rest}?"
    if aux == "did":  # "how much did X cost" → "how much X cost"
        verb, _, more = rest.strip().partition(" ")
        return f"{TOLD}{wh} {subject} {_past(verb)}{' ' + more if more else ''}?"
    return f"{TOLD}{wh} {subject} {aux}{rest}?"


def direct(text: str) -> str:
    """`text` in its direct form when it is an indirect wh-question `asked` writes; else as it is."""
    m = _INVERTED.match(text)
    if m is not None and '"' not in m["rest"]:
        return f"{m['wh'][:1].upper()}{m['wh'][1:]} {m['aux']} {m['subject']}{m['rest']}?"
    m = _DONE.match(text)
    if m is not None and _past(lemma := _verb_lemma(m["verb"])) == m["verb"]:
        return f"{m['wh'][:1].upper()}{m['wh'][1:]} did {m['subject']} {lemma}?"
    return text


def _past(verb: str) -> str:
    forms = lemminflect.getInflection(verb.lower(), tag="VBD")
    return forms[0] if forms else grammar.participle(verb)


def _verb_lemma(word: str) -> str:
    found = grammar.lemmas(word, "VERB")
    return found[0] if found else ""
