"""What a workflow's parameters are to its sentence, from the spec alone: the field of its row
each one sets (`set_fields`), where a thing goes or comes from (`given_to`, `moves`), how many of
the thing its label names (`count_param`: "Buy 4 tickets"). `frames` builds its sentences from
these; the proposer and the resolver read `set_fields` too."""

from __future__ import annotations

from factory.spec.model import ParamSpec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.spoken import noun


def part_of(words: list[str], thing: list[str]) -> bool:
    """Whether `words` name the row `thing` by part of its noun, after any words that only say its
    state ("request" of a leave request, "approved leave" of a leave request)."""
    core = list(words)
    while len(core) > 1 and (grammar.is_participle(core[0]) or grammar.is_adjective(core[0])) and core[0] not in thing:
        core = core[1:]
    if not core or not thing or (len(core) >= len(thing) and core != thing):
        return False
    return any(thing[i:i + len(core)] == core for i in range(len(thing) - len(core) + 1))


def first_word(p: ParamSpec) -> str:
    """The first word of a parameter's label, lower case ("from" of "From account")."""
    return (p.label.split() or [""])[0].lower()


def given_to(p: ParamSpec) -> bool:
    """A label that says whom the thing goes to by a participle and "to" ("Sold to", "Paid to",
    "Sent to"): the run's destination, said "to Dennis Diaz"."""
    words = p.label.lower().split()
    return len(words) == 2 and words[1] == "to" and grammar.is_participle(words[0])


COUNT = "count"  # how many of the plural thing the label names, said before it: "Buy 4 tickets"
# Names of a whole-number parameter that only counts the thing the workflow's label names.
_COUNT_NAMES = frozenset(["quantity", "qty", "count", "number", "how_many"])


def count_param(workflow: WorkflowSpec, plural: str) -> ParamSpec | None:
    """The parameter that says how many of `plural` the run takes ("Buy tickets" with a
    "quantity"): a whole number named or labelled only as a count; None for any other."""
    if grammar.singular(plural) == plural:
        return None
    found = [p for p in workflow.params if p.type == "int" and not p.say
             and (p.name in _COUNT_NAMES or noun(p.label).replace(" ", "_") in _COUNT_NAMES)]
    return found[0] if len(found) == 1 else None


def set_fields(workflow: WorkflowSpec) -> dict[str, str]:
    """Parameter → the field of the row acted on that it sets (`set <subject>.<field> = <param>`)."""
    out: dict[str, str] = {}
    for e in workflow.effects:
        if e.kind == "set" and e.target == workflow.subject and e.field and e.to in {p.name for p in workflow.params}:
            out.setdefault(e.to, e.field)
    return out


def moves(workflow: WorkflowSpec, p: ParamSpec, sign: str) -> bool:
    """Whether the run adds to (`sign` "+") or takes from ("-") an amount on the row `p` names."""
    return any(e.kind == "set" and e.target == p.name and (e.to or "").startswith(f"{p.name}.")
               and f" {sign} " in (e.to or "") for e in workflow.effects)


def echoed(verb: str, thing: str) -> str | None:
    """The noun of the row a verb acts on without the verb's own word in it ("Refund" a "refund
    request": "request"), so the sentence does not say it twice ("refund the request for …",
    never "refund the refund request for …"); None where the noun does not repeat the verb."""
    words = thing.split()
    said_verb = verb.lower()
    if len(words) < 2 or said_verb not in words:
        return None
    return " ".join(w for w in words if w != said_verb)


# Nouns that class things of another noun ("ticket tier", "room type", "seat class"): a closed
# class of English. A "gift card" is a card, not a class of gifts, so no count of gifts is taken
# from it.
CLASS_NOUNS = frozenset(["tier", "type", "kind", "class", "category", "grade", "level", "band", "variety", "sort",
                         "option"])


def classes_things(row_noun: str) -> str | None:
    """The thing a two-word noun classes ("ticket" of "ticket tier"), or None ("gift card")."""
    words = row_noun.split()
    return words[0] if len(words) == 2 and words[1] in CLASS_NOUNS else None
