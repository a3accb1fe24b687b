"""The instruction language of stage two: what a task asks (`Ask`), rendered to text and parsed back.

The proposer renders an `Ask` into an instruction; reward-gen, in its own process, parses the text
back with nothing but the spec, then resolves the named rows against the initial database. Both
directions are functions of the spec only, so a parse never depends on how the task was made.

Instructions name rows the way the app shows them: by their display label in quotes
(`"Main Checking ··8488"`) or, in the seed's own task phrasings, by field values (`card ending
in 4599`, `the payment to Jordan Lee on June 5, 2026`). Values are written as people write them:
`$1,250.00`, `June 5, 2026`, `yes`.

Generic write forms (the seed's task intents add their own phrasings on top, `intents.py`):

- `Transfer between accounts: from account "A"; to account "B"; amount $250.00.`
  (also `Please <label>: …` and `I need to <label> with …`); two steps: `First, … Then, …`
- sentences: `Lock my card "Visa ··4599", reason "travel".`,
  `Please transfer between accounts with from account "A", to account "B" and amount $250.00.`,
  `Could you star my message "Q2 planning" for me?`, `Could you <label> for me? <Args>.`
- read: `What is the <field> of my <entity> "<ref>"?`, `How many of my <plural> have <conds>?`,
  `What is the total <field> of my <plural> with <conds>?` (`across` for a field of two words or
  more: "the total amount spent across the budgets"),
  `Which of my <plural> with <conds> has the highest <field>?`; a yes/no state is asked
  `Is my message "Hi" read?`, a thing a row has `Does the listing "Loft" have wifi?`, a count
  `How many guests does the listing "Loft" have?` and ranked "the most / fewest guests"
- read_write: `Find my <entity> with <conds> that has the highest <field>, and use "<workflow>"
  on it with <args>.`

Conditions: `the <field> "<value>"`, `the <field> $5.00`, or `a <field> between <a> and <b>`
(no article for a field led by its own preposition: `from account "A"`), joined by
` and `; arguments are joined by `; ` (the colon forms) or listed `a, b and c` (the sentences).

The language is split by direction, around the data it carries:

- `asks.py`: what an instruction asks (`Ask`, `AskStep`, `Question`, `Cond`, `RefText`);
- `values.py`: values as written (`$1,250.00`, `June 5, 2026`) and read back;
- `words.py`: how rows are possessed and named ("my card", "the listing", "my profile");
- `render.py`: the forms above, written;
- `parse.py`: the same forms, read back;
- this module: the two entry points, `render` and `parse`, and every public name of the
  language, so callers import from here alone.
"""

from __future__ import annotations

import re

from factory.spec.model import Spec
from factory.tasks.language.arg_phrases import arg_phrase
from factory.tasks.language.asks import (
    ONLY,
    Ask,
    AskStep,
    Cond,
    ParseError,
    Question,
    RefText,
    joint_ref,
)
from factory.tasks.language.conds_said import render_conds
from factory.tasks.language.day_order import read_in_order

# The seed's phrasings build on the parts of the language (parse, render),
# never on this module, so `parse` can try them without an import cycle.
from factory.tasks.language.intents import parse_intent
from factory.tasks.language.parse import (
    DIRECTIONS,
    LIST_SEPARATORS,
    my_phrases,
    parse_args,
    parse_step,
)
from factory.tasks.language.parse_conds import parse_conds, unranked
from factory.tasks.language.parse_errands import parse_compound
from factory.tasks.language.parse_questions import parse_question
from factory.tasks.language.render import (
    TIE_BREAK,
    lower_first,
    render_args,
    render_list,
    render_question,
    render_sentence,
    render_step,
)
from factory.tasks.language.seed_context import spoken_in
from factory.tasks.language.values import (
    DATE,
    MONEY,
    field_value_text,
    param_text,
    parse_scalar,
    scan_value,
)
from factory.tasks.language.words import my_only, possessed_head

__all__ = [
    "DATE", "DIRECTIONS", "LIST_SEPARATORS", "MONEY", "ONLY", "TIE_BREAK",
    "Ask", "AskStep", "Cond", "ParseError", "Question", "RefText",
    "arg_phrase", "field_value_text", "joint_ref", "my_only", "my_phrases", "param_text",
    "parse", "parse_args", "parse_conds", "parse_question", "parse_scalar", "parse_step",
    "possessed_head", "render", "render_args", "render_conds", "render_list", "render_question",
    "render_sentence", "render_step", "scan_value",
]

_MULTI = re.compile(r"^First, (?P<a>.+?\.) Then, (?P<b>.+\.)$")


def render(spec: Spec, ask: Ask, variant: int) -> str:
    """The instruction text of `ask`; `variant` picks among equivalent phrasings."""
    with spoken_in(spec):
        return _render(spec, ask, variant)


def _render(spec: Spec, ask: Ask, variant: int) -> str:
    if ask.question is not None:
        return render_question(spec, ask.question, variant)
    if len(ask.steps) == 2:
        first, second = (render_step(spec, s, 0) for s in ask.steps)
        return f"First, {lower_first(first)} Then, {lower_first(second)}"
    return render_step(spec, ask.steps[0], variant)


def parse(spec: Spec, text: str) -> Ask:
    """The `Ask` behind an instruction, from the spec alone; ParseError when nothing fits."""
    with spoken_in(spec):  # days said in the world's order are read month first (`day_order`)
        return _parse(spec, read_in_order(spec, text))




def _parse(spec: Spec, text: str) -> Ask:
    written = " ".join(text.split())
    text = unranked(written)  # "has been lent the most times" is a ranking like any other
    errand = parse_compound(spec, text)  # a purpose first: an errand of several actions (`errands.py`)
    if errand is not None:
        return errand
    question = parse_question(spec, text)
    if question is not None:
        return Ask("read", question=question)
    intent = parse_intent(spec, written)  # a seed's own phrasing, word for word
    if intent is not None:
        return intent
    m = _MULTI.match(text)
    if m:
        steps = tuple(parse_step(spec, s[:1].upper() + s[1:]) for s in (m["a"], m["b"]))
        return Ask("write", steps=steps)
    try:
        step = parse_step(spec, text)
    except ParseError as exc:  # no single action: several, said without a purpose (`errands.NO_PURPOSE`)
        try:
            errand = parse_compound(spec, text, bare=True)
        except ParseError:
            raise exc from None
        if errand is None:
            raise
        return errand
    return Ask("read_write" if step.pick else "write", steps=(step,))
