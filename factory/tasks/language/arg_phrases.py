"""One argument of a run said in a list, as a person lists it (`frames.render_frame`'s "with …",
"Set the …"): "4 guests", "a weight of 1947 kg", "Vikram Iyer as the customs broker", "due April
19", "the tank not full", else "<label> <value>". `parse.parse_args` reads each form back."""

from __future__ import annotations

import re
from typing import Any

from factory.spec.model import ParamSpec
from factory.tasks.language import grammar
from factory.tasks.language.arg_words import (
    FRAME_PREPOSITIONS,
    bare_word,
    measured,
    named_as,
    noun_state,
    of_lead,
    split_label,
)
from factory.tasks.language.asks import ONLY, RefText
from factory.tasks.language.measures import count_noun, counted, value_first, with_unit
from factory.tasks.language.modifiers import graded
from factory.tasks.language.row_labels import _named_before
from factory.tasks.language.spoken import amount_said, noun, param_said, said
from factory.tasks.language.values import param_text, without_this_year

_PREPOSITIONS = FRAME_PREPOSITIONS


def bool_flag(kind: str) -> str:
    """Yes/no values read "<label> set to yes", for arguments and conditions alike."""
    return "set to " if kind == "bool" else ""


def arg_phrase(param: ParamSpec, value: Any, joiner: str = " ", article: str = "") -> str:
    """One argument: `<label> <value>`, or `<label> to <value>` (joiner " to ") after "Set the";
    `article` goes before the label. A count is said as one: "4 guests", never "the guests 4"."""
    word = count_noun(param)
    if word is not None and joiner == " " and re.fullmatch(r"\d+", str(value)):
        return counted(word, value)
    if isinstance(value, RefText) and value.by == ONLY and joiner == " ":
        return value.text  # the user's only one says what it is: "my client", never "the client my client"
    if article == "the " and joiner == " " and isinstance(value, RefText) and named_as(param, value.text):
        return f"{value.text} as the {noun(said(param))}"  # "Vikram Iyer as the customs broker"
    if article == "the " and joiner == " " and isinstance(value, RefText) and named_before_noun(param, value):
        return f"the {value.text} {noun(said(param))}"  # "with the Docklands Off-Peak plan", never 'the plan "…"'
    after = value_first(param) if joiner == " " else None
    if after is not None and value is not None:
        return f"{param_text(param, value)} {after}"  # "6 carried over", "£40 per day"
    words = noun(said(param)).split()
    if (joiner == " " and param.type in ("int", "money") and not param.say and len(words) > 1
            and all(w in grammar.PREPOSITIONS or w in grammar.PARTICLES for w in words)):
        return f"{' '.join(words)} {param_text(param, value)}"  # "out of 20", "up to £500": no noun to say
    if joiner == " " and article == "the " and value is not None and (param.type == "money" or measured(param)):
        # an amount or a measure is "of" its noun: "with an estimate of £20", "a weight of 1947 kg",
        # "payment terms of 15 days" (a plural noun takes no article), never "the weight 1947 kg"
        head, trailer = amount_said(param)  # "a premium of £30 on top"
        number = param_text(param, value) if param.type == "money" else with_unit(param, param_text(param, value))
        return f"{of_lead(head)} of {number}" + (f" {trailer}" if trailer else "")
    if joiner == " " and (word := bare_word(param)) is not None and value is not None:
        if param.type == "enum":  # "by debit card": a choice of how, said as a word, not a quoted value
            return f"{word} {str(value).replace('_', ' ')}"
        return f"{word} {without_this_year(param.type, param_text(param, value))}"  # "due April 19", "until July 5"
    state = noun_state(param) if joiner == " " and value in (True, False, "yes", "no") else None
    if state is not None:  # "the tank full", "the tank not full", never "the tank full set to no"
        return f"{article}{state[0]} {'' if value in (True, 'yes') else 'not '}{state[1]}"
    scale = graded(param, str(value).replace("_", " ")) if joiner == " " and param.type == "enum" else None
    if scale is not None:  # "and high priority", never "the priority "high""
        return scale.replace("-", " ")
    split = split_label(param) if joiner == " " and isinstance(value, str) else None
    if split is not None:  # "the question "Which laptop?" for the requester"
        return f"{article}{split[0]} {param_text(param, value)} {split[1]}"
    flag = bool_flag(param.type) if joiner == " " else ""
    words = noun(said(param)).split()
    if joiner == " " and len(words) > 1 and (words[0] in _PREPOSITIONS or words[-1] in _PREPOSITIONS):
        as_noun = param_said(param, setting=True)
        if (article and words[0] not in _PREPOSITIONS and as_noun != noun(said(param))
                and not grammar.verb_only(as_noun.split()[0])):  # "the incident date", never "the remind date"
            # in a list of "the …" a predicate is said by its noun: "with the type of loss
            # "glass", the incident date August 9", never "…, happened on August 9"
            return _day_of(param, value, as_noun) or article + _arg_label(param, value, joiner, flag, as_noun=True)
        article = ""  # a label that is a predicate reads bare: "starts on July 20", "check in June 4"
    said_day = _day_of(param, value, param_said(param, setting=True)) if article == "the " and joiner == " " else None
    return said_day or article + _arg_label(param, value, joiner, flag)


# The nouns a day or a moment is called by, which take its value after "of" in a list.
WHEN_NOUNS = frozenset(["date", "time", "day", "deadline"])


def dated_noun(param: ParamSpec) -> str | None:
    """The noun a day or a moment an argument gives is called by in a list ("move-in date" of
    "Move in on"), where it ends on a noun of time; None otherwise."""
    if param.type not in ("date", "datetime"):
        return None
    said_as = param_said(param, setting=True)
    return said_as if said_as.split()[-1:] and said_as.split()[-1] in WHEN_NOUNS else None


def _day_of(param: ParamSpec, value: Any, said_as: str) -> str | None:
    """A day in a list said as its noun's value: "a move-in date of July 18", never "the move-in
    date July 18"; None for an argument that is no day, or is called otherwise."""
    if value is None or dated_noun(param) != said_as:
        return None
    return f"{of_lead(said_as)} of {without_this_year(param.type, param_text(param, value))}"


class SameAsNamed(str):
    """A text argument read as "that as the summary": the name of the row the sentence named
    before it, filled in by the frame that knows that row (`frames_read`)."""


def same_as_named(param: ParamSpec) -> str:
    """A text said as the name of the row named before it: "that as the summary", never 'the
    summary "Desk phone problem"' after 'for the common issue "Desk phone problem"'."""
    return f"that as the {noun(said(param))}"


def named_before_noun(param: ParamSpec, value: RefText) -> bool:
    """Whether a row an argument names goes by a proper name that reads before the argument's own
    noun ("the Docklands Off-Peak plan"): a row that is no person, named by its label alone, for an
    argument that names no part someone plays ("the manager Grace Okafor", "the carrier Silk Road
    Rail Express": a name before a role reads as a kind of that role)."""
    thing = noun(said(param))
    return (param.type == "reference" and bool(param.ref) and param.ref != "user" and value.by is None
            and not grammar.agent_noun(thing.split()[-1]) and '"' not in value.text
            and _named_before(value.text, thing))


def _arg_label(param: ParamSpec, value: Any, joiner: str, flag: str, as_noun: bool = False) -> str:
    # a measure with its unit: "the allowance 25 days"; a day this year without it: "the incident date June 4"
    text = without_this_year(param.type, param_text(param, value))
    return f"{param_said(param, setting=as_noun or joiner == ' to ')}{joiner}{flag}{with_unit(param, text)}"
