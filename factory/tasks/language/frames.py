"""Write sentences from workflow semantics: who or what a parameter is in the sentence (the row
acted on, the source and destination of money, the amount, the date, the fields it sets), so a
workflow run reads "Transfer $200 from my Main Checking account (··3808) to my Emergency Fund
account (··5290)." instead of a form dump ("transfer between accounts with from account …").

A `Frame` is a function of the workflow alone (its label, parameter names, types, references and
`set` effects); the renderer writes its pieces and the parser compiles the same pieces into one
pattern (`frames_read`), so whatever a frame writes it reads back. Rows are named as people
name them (`row_names.name_of`): "my Main Checking account (··3808)" when the label is a name
plus a code, "my visa card ··9591" when the label already says what it is, else `my payee
"Sunvale Energy"`; a row the money goes to is named bare ("Pay Sunvale Energy $45").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from factory.spec.model import ParamSpec, Spec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.arg_words import (
    FRAME_PREPOSITIONS,
    kind_param,
)
from factory.tasks.language.frame_params import (
    COUNT,
    classes_things,
    count_param,
    first_word,
    given_to,
    moves,
    part_of,
    set_fields,
)
from factory.tasks.language.spoken import (
    field_noun,
    noun,
    said,
    verb_words,
)
from factory.tasks.language.things import (
    PLACE_PREPOSITIONS,
    activity,
    person,
    stands_for,
    worldly,
)

_ARTICLES = ("a", "an", "the", "my", "your")
# Nouns of rows that hold others: a row is made "in" one of these, "for" anything else.
_CONTAINERS = frozenset(["notebook", "folder", "list", "wishlist", "board", "project", "album", "collection",
                         "channel", "calendar", "playlist", "cart", "inbox", "category", "section", "shelf",
                         "workspace", "space", "drive", "binder", "journal", "diary", "thread", "conversation",
                         "group", "account", "wallet", "portfolio", "library", "catalog", "catalogue", "directory"])
_PREPOSITIONS = FRAME_PREPOSITIONS
# The preposition a verb puts before the row a named thing goes to or comes off ("Apply my label … to
# my message"); a verb that takes its row after a preposition is `grammar.INTRANSITIVE`.
# Words after a verb that say how, not what ("Delete forever"): they follow the row, never "the forever".
_ADVERBS = frozenset(["forever", "permanently", "now", "again", "immediately", "later", "today", "back"])
_ONTO = {"apply": " to ", "add": " to ", "attach": " to ", "remove": " from ", "delete": " from ", "detach": " from "}
SETTING_VERBS = frozenset(["set", "rename", "change", "update", "edit"])  # verbs whose values say "to <value>"


PARTICLE_BEFORE, PARTICLE_AFTER = "particle", "particle_after"  # roles of a phrasal verb's particle


@dataclass(frozen=True)
class Piece:
    """A literal (`param` None) or a slot filled by one parameter's value, after its `lead` words."""

    lead: str
    param: str | None = None
    role: str = ""  # subject | object | source | dest | amount | date | kind | kind_a
    values: tuple[str, ...] = ()  # a kind's values, the only words its slot reads


@dataclass(frozen=True)
class Frame:
    """How one workflow's runs are said: the pieces in order, the parameters that take "to
    <value>" (`settings`), and how the other arguments are joined (`rest_lead`)."""

    workflow: str
    pieces: tuple[Piece, ...]
    settings: tuple[str, ...]
    setting_lead: str  # " to " (one value: "Rename … to X") or ": set the " (several)
    rest_lead: str  # " with " before the arguments the pieces do not place
    one_kind: str = ""  # "amount" or "date" when the one setting is one: its value's pattern
    span: tuple[str, str] | None = None  # a date range said "from June 24 to June 26, 2026"
    span_noun: str = ""  # what the range's days are ("pickup"), said "for pickup between … and …"

    def params(self) -> set[str]:
        return {p.param for p in self.pieces if p.param} | set(self.settings)


# A row a phrasal verb takes after its own preposition, said as the row everyone calls it by ("for
# the Docklands Off-Peak plan", never "for my … plan" said by the desk that manages it).
COMPLEMENT = "complement"
KIND, KIND_A = "kind", "kind_a"
# A row of the app's list of kinds said before the noun of the thing made: 'a "VPN keeps dropping"
# problem' (`_catalog`); the piece's one value is that noun.
KIND_REF = "kind_ref"  # a value said before the noun of the thing made, bare or after "a"/"an"


def frame(spec: Spec, workflow: WorkflowSpec) -> Frame | None:
    """The frame of `workflow`, None when its label does not start with a verb."""
    head = verb_words(workflow)
    if head is None:
        return None
    verb_list, after = head
    if verb_list == ["create"] and not noun(said(workflow)).startswith("create"):
        return _made(spec, workflow, after)  # "New tier": 'Create a new tier "Balcony" for my event …'
    params = {p.name: p for p in workflow.params}
    subject_noun = (noun(said(spec.entity(params[workflow.subject].ref or ""))).split()
                    if workflow.subject in params and params[workflow.subject].ref else [])
    param_nouns = [noun(said(p)).split() for p in workflow.params]
    if len(verb_list) == 2 and after and after[0] not in grammar.PREPOSITIONS and not part_of(after, subject_noun) \
            and after not in param_nouns and workflow.subject in params:
        # "Take off market": the particle is a preposition with its own noun ("Take my flat off the
        # market"); "Sign up member" keeps its phrasal verb (the member is a parameter)
        verb_list, after = verb_list[:1], [verb_list[1], *after]
    sets = {w for n, field in set_fields(workflow).items() for w in (field.replace("_", " "), noun(said(params[n])))}
    if len(verb_list) == 1 and len(after) == 1 and grammar.is_verb(after[0]) and verb_list[0] in sets:
        # "Budget change" is a noun compound naming the field it changes: "Change the budget for …"
        verb_list, after = after, verb_list
    verb = " ".join(verb_list)
    own_article = ""  # "Place a hold": the label's own "a" is kept where the thing is named
    if after and after[0] in _ARTICLES:
        own_article, after = after[0], after[1:]
    subject = workflow.subject if workflow.subject in params and params[workflow.subject].ref else None
    refs = [p for p in workflow.params if p.ref and p.name != subject]
    source = next((p for p in refs if first_word(p) == "from" or p.name.startswith("from_")), None) or next(
        (p for p in refs if moves(workflow, p, "-")), None)
    dest = next((p for p in refs if p is not source and (first_word(p) in ("to", "destination") or given_to(p)
                                                          or p.name.startswith("to_"))), None) or next(
        (p for p in refs if p is not source and moves(workflow, p, "+")), None)
    making = next((e for e in workflow.effects if e.kind == "create"), None)
    # a person is the thing acted on only when the row made stands for them ("Add the user "Kofi
    # Mensah" as a contact"); a desk or a broker named on a booking is one of its details
    people = [p for p in refs if p.ref == "user" and p.required and p not in (source,)]
    if dest is None and subject and verb_list[0] in grammar.DATIVE_VERBS and len(people) == 1:
        dest = people[0]  # "Assign my ticket … to Mei Lin": the one person a dative verb gives it to
    obj = None if subject else next((p for p in refs if p not in (source, dest) and p.required
                                     and (p.ref != "user" or making is None or stands_for(spec, making, p))), None)
    moved = {e.to or "" for e in workflow.effects if e.kind == "set"}
    amount = next((p for p in workflow.params if p.type == "money" and p.required and (source or dest or obj)
                   and (p.name == "amount" or any(re.search(rf"\b{p.name}\b", t) for t in moved))), None)
    # a day, or a time labelled as the thing made ("Add viewing slot" at a "Slot"): "… on June 15 at 10:00 AM"
    date = next((p for p in workflow.params if (p.type == "date" or (p.type == "datetime" and making is not None
                                                                     and part_of(noun(said(p)).split(), after)))
                 and p.required and not p.range_end
                 and not p.range_of and (source or obj) and p.name not in set_fields(workflow)), None)
    taken = {q.name for q in (source, dest, obj, amount, date) if q is not None} | {subject}
    # A setting verb says its values "to …"; so does any verb whose parameter is labelled as the new
    # value of the row's field ("Extend my rental … to June 5", never "with the new return time …"),
    # and one whose label names the field it sets ("Reassess duty": "Reassess the duty for … to $120")
    object_words = [w for w in after if w not in _ARTICLES]
    settings = tuple(n for n in set_fields(workflow) if n not in taken and (
        verb in SETTING_VERBS or noun(said(params[n])).startswith("new ")
        or (bool(object_words) and params[n].type not in ("string", "text")  # text is left "with", never set "to"
            and object_words in (noun(said(params[n])).split(), field_noun(params[n]).split()))))
    made = making.entity if making is not None else None
    if not after and not subject and obj is None and amount is None and made is not None:
        after = noun(said(spec.entity(made))).split()  # "Compose": "Compose a message to …", not "Compose to …"
    if not subject and len(verb_list) == 1 and len(after) > 1 and after[0] in grammar.PARTICLES \
            and after[0] not in _PREPOSITIONS:  # "Hand over queue": a phrasal verb and its object
        verb_list, after = [*verb_list, after[0]], after[1:]
        verb = " ".join(verb_list)
    pieces: list[Piece] = [Piece(verb[:1].upper() + verb[1:])]
    lead = " "
    if subject and verb_list[0] in grammar.PARTICLES and (not after or after[0] in grammar.PREPOSITIONS):
        # "Back in stock", "Back on": a state, not a verb: "Mark my asset … as back in stock"
        state = " ".join([*verb_list, *after])
        pieces = [Piece("Mark"), Piece(" ", subject, "subject"), Piece(" as " + state)]
        return Frame(workflow.name, tuple(pieces), (), " to ", " with ")
    if subject:
        held = spec.entity(params[subject].ref or "")
        thing = noun(said(held)).split()
        tail = after[len(thing):] if after[:len(thing)] == thing else None
        if tail and any(tail in (noun(params[n].label).split(), noun(held.field_named(set_fields(workflow)[n]).label).split())
                        for n in settings):  # "Change budget limit": "Change the limit of the budget … to $50"
            pieces += [Piece(" the " + " ".join(tail)), Piece(" of ", subject, "subject")]
        elif tail is not None:  # "Lock card", "Report card lost or stolen"
            pieces.append(Piece(" ", subject, "subject"))
            words = [w for w in tail[1:] if w not in _ARTICLES]
            into = next((p for p in refs if p.required and tail and tail[0] in _PREPOSITIONS and words in (
                noun(said(p)).split(), noun(said(spec.entity(p.ref or ""))).split())), None)
            if into is not None:  # "Add booking to trip": "Add my booking … to my trip …"
                pieces.append(Piece(f" {tail[0]} ", into.name, "thing"))
            elif tail:
                pieces.append(Piece((" " if tail[0] in _PREPOSITIONS else " as ") + " ".join(tail)))
        elif not after or thing[-len(after):] == after or part_of(after, thing):
            # "Restore", "Unblock dates" (blocked dates), "Deny request" (a leave request), "Cancel approved leave"
            lead_in = grammar.INTRANSITIVE.get(verb) if not after else None
            pieces.append(Piece(f" {lead_in} " if lead_in else " ", subject, "subject"))
        elif (verb, after[0]) in grammar.PREPOSITIONAL_VERBS and after[1:] and not part_of(after[1:], thing) \
                and [w for w in after[1:] if w not in _ARTICLES] != thing:
            # "Ask for cover": the preposition brings the verb's own object; the row follows it all
            pieces += [Piece(" " + " ".join(after)), Piece(" for ", subject, "subject")]
        elif (after[0] in _PREPOSITIONS or after[0] in PLACE_PREPOSITIONS) and after[1:]:
            # "Mark as read", "Move to inbox", "Add to trip", "Take off market"
            prep, words = after[0], [w for w in after[1:] if w not in _ARTICLES]
            into = next((p for p in refs if p.required and words in (noun(said(p)).split(),
                                                                       noun(said(spec.entity(p.ref or ""))).split())), None)
            if words == thing:  # "Respond to review": the row is what the preposition governs
                pieces.append(Piece(f" {prep} ", subject, "subject"))
            elif into is not None and into not in (source, dest):  # "Add my booking … to my trip …"
                pieces += [Piece(" ", subject, "subject"), Piece(f" {prep} ", into.name, "thing")]
            elif (titled := next((p for p in workflow.params if p.type in ("string", "text") and p.name != subject
                                   and noun(said(p)).split() == words), None)) is not None:
                # "Save to wishlist" with the wishlist's name: "Save the listing … to my wishlist "Dream homes""
                pieces += [Piece(" ", subject, "subject"), Piece(f" {prep} my {' '.join(words)} ", titled.name, "thing")]
            else:  # "Mark my message … as read", "Remove my saved listing … from the wishlist"
                gerund = bool(words) and words[-1].endswith("ing") and grammar.participle_of(words[-1]) is None \
                    and "VERB" in grammar.tags(words[-1][:-3] + "e") | grammar.tags(words[-1][:-3])
                # the label's own article where it has one; else "the" before a thing of this world
                # (a kind of row, a field, a value: "to the inbox", "from the wishlist") and a place
                # a row goes to ("to the workshop"); an activity or a state is said bare ("for
                # repair", "on hold", "under review", "to inspection")
                own = [w for w in after[1:2] if w in _ARTICLES]
                article = "" if prep == "as" or gerund else f"{own[0]} " if own else (
                    "the " if worldly(spec, words) or (prep in PLACE_PREPOSITIONS and not activity(words[-1]))
                    else "")
                pieces += [Piece(" ", subject, "subject"), Piece(f" {prep} {article}{' '.join(words)}")]
        elif (named := next((p for p in refs if p.required and after in (
                noun(said(p)).split(), noun(said(spec.entity(p.ref or ""))).split())), None)) is not None:
            if verb in grammar.EXCHANGE_VERBS and named.name in set_fields(workflow):
                # "Swap car" putting a new car on the rental: what is given up is the car the row
                # holds, so "Swap the car on my rental … for the car …", never "swap my car … for it"
                pieces += [Piece(" the " + " ".join(after)), Piece(" on ", subject, "subject"),
                           Piece(" for ", named.name, "thing")]
            else:  # "Apply label" with a label to pick: "Apply my label "Travel" to my message …"
                pieces += [Piece(" ", named.name, "thing"), Piece(_ONTO.get(verb, " for "), subject, "subject")]
        elif after and all(w in _ADVERBS for w in after):  # "Delete forever": "Delete my message … forever"
            pieces += [Piece(" ", subject, "subject"), Piece(" " + " ".join(after))]
        elif after and verb in _ONTO and not settings:  # "Remove the label from my message …"
            # a thing the run makes is "a" ("Add a note to the claim …" makes an adjuster note)
            makes = any(noun(said(spec.entity(e.entity))).split()[-len(after):] == after
                        for e in workflow.effects if e.kind == "create")
            article = grammar.with_article(" ".join(after)).split()[0] if makes else "the"
            pieces += [Piece(f" {article} " + " ".join(after)), Piece(_ONTO[verb], subject, "subject")]
        elif after and len(settings) == 1 and verb == "set":  # "Set the low-balance alert on my account"
            pieces += [Piece(" the " + " ".join(after)), Piece(" on ", subject, "subject")]
        elif verb in ("mark", "flag") and after:  # "Mark no-show": "Mark my shift … as a no-show"
            state = " ".join(after)
            said_as = grammar.with_article(state) if grammar.is_noun(after[-1]) and not grammar.is_adjective(after[-1]) \
                else state
            pieces += [Piece(" ", subject, "subject"), Piece(" as " + said_as)]
        else:  # "Place a hold": "Place a hold for the book …"; "Edit price": "Edit the price for …"
            plural = bool(after) and grammar.singular(after[-1]) != after[-1]  # "Request changes for …"
            # a row this run makes is "a" ("Request a review for my issue …" makes a code review)
            makes = any(noun(said(spec.entity(e.entity))).split()[-len(after):] == after
                        for e in workflow.effects if e.kind == "create")
            article = own_article if own_article in ("a", "an") else "" if plural else "a" if makes else "the"
            if article == "the" and not own_article and verb in grammar.LIGHT_VERBS and len(after) == 1:
                article = ""  # a light verb's own noun is bare, as the label says it: "Give notice for my tenancy"
            article = grammar.with_article(after[0]).split()[0] if article == "a" else article
            # a word that is part of the noun of the row made ("damage" of a damage report)
            made_part = not makes and bool(after) and any(
                part_of(after, noun(said(spec.entity(e.entity))).split()) for e in workflow.effects if e.kind == "create")
            kind = kind_param(workflow, after) if after and ((makes and article in ("a", "an")) or made_part) else None
            paid = next((p for p in workflow.params if p.type == "money" and p.required and noun(said(p)) == "amount"),
                        None) if verb in grammar.PAYING_VERBS and after and not makes and kind is None else None
            if paid is not None:  # "Pay £750 rent for my tenancy", never "Pay the rent … with an amount of £750"
                pieces += [Piece(" ", paid.name, "amount"), Piece(" " + " ".join(after))]
            elif kind is not None and made_part:  # "Log windscreen damage for the rental …"
                pieces += [Piece(" ", kind.name, KIND, tuple(kind.values or ())), Piece(" " + " ".join(after))]
            elif kind is not None:  # "Post a quiz assignment for my section …": the kind before its noun
                pieces += [Piece(" ", kind.name, KIND_A, tuple(kind.values or ())), Piece(" " + " ".join(after))]
            else:
                pieces.append(Piece(" " + " ".join([w for w in (article, *after) if w]) if after else ""))
            named = next((p for p in workflow.params if p.name in ("name", "title") and p.required
                          and p.type in ("string", "text")), None) if makes else None
            if named is not None:  # a thing made is named right after its noun: 'Post an assignment "Quiz 2" for …'
                pieces.append(Piece(" ", named.name, "named"))
            worth = next((p for p in workflow.params if p.type == "money" and p.required
                          and noun(said(p)) == "amount"), None) if makes and named is None else None
            if worth is not None:  # a sum made is said by its amount: "Take a payment of £40 for …"
                pieces.append(Piece(" of ", worth.name, "amount"))
            pieces.append(Piece(" for ", subject, "subject"))
        rest_lead = " with "
    else:
        said_re = rf"\b{re.escape(' '.join(after))}\b"
        names_obj = obj is not None and bool(after) and bool(re.search(said_re, noun(said(obj)))
                                                             or re.search(said_re, noun(said(spec.entity(obj.ref or "")))))
        if (after and after[0] in _PREPOSITIONS) or names_obj or not after:  # "Transfer between accounts": said by the roles
            if obj is not None:  # "Pay Sunvale Energy" (a payee), "Pay my Travel Rewards Card account (··1683)"
                bare = " ".join(after) == noun(said(spec.entity(obj.ref or "")))
                pieces.append(Piece(" ", obj.name, "object" if bare else "thing"))
                lead = " "
                obj = None
        else:
            phrase = " ".join(after)  # "Buy tickets": a plural takes no article ("Buy tickets for …")
            # a thing made takes "a" ("Book a shipment", "Add a viewing slot"); a word that is only
            # part of its name is said as the label says it ("Request leave" makes a leave
            # request: "Request leave from June 4 …", never "request a leave")
            made_noun = noun(said(spec.entity(made))).split() if made else []
            counted_thing = bool(own_article) or not (made_noun and len(after) < len(made_noun)
                                                      and part_of(after, made_noun))
            if own_article:
                said_phrase = f"{own_article} {phrase}"
            elif grammar.singular(phrase) != phrase or not counted_thing or not grammar.is_noun(after[-1]):
                said_phrase = phrase  # "Buy tickets", "Request leave", "Flag overdue"
            elif not made:  # nothing is made: the thing is one the world has ("Hand over the queue")
                said_phrase = f"the {phrase}"
            else:
                said_phrase = grammar.with_article(phrase)
            kind = kind_param(workflow, after)
            counted = count_param(workflow, said_phrase) if kind is None and len(after) == 1 else None
            if counted is not None:  # "Buy 4 tickets", "Buy 1 ticket"; "Buy tickets" when the run says none
                pieces += [Piece(" ", counted.name, COUNT), Piece(" " + said_phrase)]
            elif kind is not None:  # "Request sick leave", "Book an express shipment": the kind before its noun
                first, _, noun_after = said_phrase.partition(" ")
                counted_one = first in ("a", "an")
                pieces += [Piece(" ", kind.name, KIND_A if counted_one else KIND, tuple(kind.values or ())),
                           Piece(" " + (noun_after if counted_one else said_phrase))]
            else:
                pieces.append(Piece(" " + said_phrase))
            lead = " of "
            # A thing made is named right after its noun: 'Add a payee "Daniel Cho" with …'
            named = next((p for p in workflow.params if p.name in ("name", "title") and p.required
                          and p.type in ("string", "text")), None)
            if named is not None:
                pieces.append(Piece(" ", named.name, "named"))
        if amount is not None:
            pieces.append(Piece(lead, amount.name, "amount"))
        if obj is not None:
            # Money goes to a payee named bare; a thing made goes in a row of the user's ("in my notebook …");
            # a person is added as the thing ("Add the user "Kofi Mensah" as a contact").
            if amount is not None:
                pieces.append(Piece(" to ", obj.name, "object"))
            elif obj.ref == "user":
                noun_piece = pieces.pop()
                pieces += [Piece(" ", obj.name, "thing"), Piece(" as" + noun_piece.lead)]
            elif _catalog(spec, obj) and own_article in ("a", "an") and len(after) == 1 \
                    and pieces[-1].lead == f" {own_article} {after[0]}":
                # a kind of thing made, from the app's list of kinds, said before its noun as a
                # kind is ('Report a "VPN keeps dropping" problem'), the noun said once where the
                # name ends on it ('Report a "Desk phone problem"'), never 'for the common issue "…"'
                pieces[-1] = Piece(" ", obj.name, KIND_REF, (after[0],))
            else:  # in a container ("Write a note in my notebook"), else for a thing ("Place a hold for the book")
                held_in = noun(said(spec.entity(obj.ref or ""))).split()[-1:] in ([w] for w in _CONTAINERS)
                pieces.append(Piece(" in " if held_in else " for ", obj.name, "thing"))
        amount = None
        rest_lead = " with "
    if amount is not None:
        pieces.append(Piece(" ", amount.name, "amount"))
    if source is not None:
        pieces.append(Piece(" from ", source.name, "source"))
    if dest is not None:
        pieces.append(Piece(" to ", dest.name, "dest"))
    if date is not None:
        pieces.append(Piece(" on ", date.name, "date"))
    if len(verb_list) == 2 and len(pieces) > 1 and pieces[1].role == "subject" and pieces[1].lead == " ":
        # the particle stands before a row said by its name ("Check out my rental …") and after a
        # pronoun ("check it out"): both places are pieces, and the renderer says one of them
        pieces[0] = Piece(verb_list[0][:1].upper() + verb_list[0][1:])
        pieces.insert(1, Piece(" " + verb_list[1], None, PARTICLE_BEFORE))
        pieces.insert(3, Piece(" " + verb_list[1], None, PARTICLE_AFTER))
    pieces = _scored(workflow, verb_list[0], _counted_kind(spec, workflow, pieces))
    placed = {pc.param for pc in pieces if pc.param}
    complement = grammar.PHRASAL_COMPLEMENTS.get(verb)
    rest_refs = [p for p in workflow.params if p.ref and p.required and p.name not in placed and p.ref != "user"]
    if complement is not None and len(rest_refs) == 1 and not settings:
        # "Sign up Jamie Osborne for the Docklands Off-Peak plan", never "… with the … plan"
        pieces.append(Piece(f" {complement} ", rest_refs[0].name, COMPLEMENT))
        placed.add(rest_refs[0].name)
    settings = tuple(n for n in settings if n not in placed)
    kinds = {"money": "amount", "date": "date"}
    one = kinds.get(params[settings[0]].type, "") if len(settings) == 1 else ""
    # The workflow's one range of days (a stay, a leave) is said as people say one, without its
    # label: "from June 24 to June 26, 2026".
    ranges = [(p.name, p.range_end) for p in workflow.params if p.range_end and p.type in ("date", "datetime")]
    placed_or_set: set[str | None] = {*placed, *settings}
    span = ranges[0] if len(ranges) == 1 and not set(ranges[0]) & placed_or_set else None
    return Frame(workflow.name, tuple(pieces), settings, " to " if len(settings) == 1 else ": set the ", rest_lead, one,
                 span, _span_noun(params, span))


def _catalog(spec: Spec, p: ParamSpec) -> bool:
    """Whether `p` picks a row of a list of kinds everyone sees: rows named by their name alone
    ("Desk phone problem"), no person, nothing of anyone's."""
    ent = spec.entity(p.ref or "")
    return ent.visibility == "public" and not ent.builtin and not person(spec, ent.name) and bool(
        re.fullmatch(r"\{?name\}?", ent.display))


def _counted_kind(spec: Spec, workflow: WorkflowSpec, pieces: list[Piece]) -> list[Piece]:
    """A row acted on that is a kind of thing ("ticket tier") with a count of those things among
    the parameters ("quantity"): the count said before the things, the row after them ("Sell 4
    tickets for the Stalls ticket tier …", which `unit_fold` says "Sell 4 Stalls tickets for …"),
    never "Sell the Stalls ticket tier … with a quantity of 4"."""
    if any(pc.role == COUNT for pc in pieces):
        return pieces
    params = {p.name: p for p in workflow.params}
    for i, pc in enumerate(pieces):
        p = params.get(pc.param or "")
        if p is None or not p.ref or pc.role not in ("thing", "subject") or pc.lead != " ":
            continue
        thing = classes_things(noun(said(spec.entity(p.ref))))  # "ticket" of a "ticket tier"
        unit = grammar.plural(thing) if thing else ""
        counted = count_param(workflow, unit) if unit else None
        if counted is None:
            return pieces
        return [*pieces[:i], Piece(" ", counted.name, COUNT), Piece(" " + unit), Piece(" for ", p.name, pc.role),
                *pieces[i + 1:]]
    return pieces


SCORE = "score"  # a mark on a scale the verb gives: "Rate my ticket … 4 out of 5"


def _scored(workflow: WorkflowSpec, verb: str, pieces: list[Piece]) -> list[Piece]:
    """A whole number on a closed scale whose noun is the verb's own ("rating" of "Rate", "score"
    of "Score"): said right after the row as a mark out of the scale's top ("Rate my ticket … 4 out
    of 5"), never "with a rating of 4", which names what the verb already says."""
    subject = next((i for i, pc in enumerate(pieces) if pc.role == "subject" and pc.lead == " "), None)
    if subject is None:
        return pieces
    for p in workflow.params:
        head = noun(said(p)).split()
        if (p.type == "int" and p.required and p.min is not None and p.max is not None and 0 <= p.min < p.max <= 100
                and len(head) == 1 and verb in grammar.lemmas(head[0], "VERB")):
            return [*pieces[:subject + 1], Piece(" ", p.name, SCORE, (str(int(p.max)),)), *pieces[subject + 1:]]
    return pieces


def _made(spec: Spec, workflow: WorkflowSpec, said_thing: list[str]) -> Frame:
    """The frame of a workflow labelled by the thing it makes: its noun, its name right after it,
    then the row it is made for, a row the new one is filed under (never a person: "for the
    manager …" would say whom it is for), and the rest "with …"."""
    making = next(e for e in workflow.effects if e.kind == "create")
    pieces = [Piece("Create"), Piece(" " + " ".join(said_thing))]
    named = next((p for p in workflow.params if p.name in ("name", "title") and p.required
                  and p.type in ("string", "text")), None)
    if named is not None:
        pieces.append(Piece(" ", named.name, "named"))
    filed = set((making.values or {}).values())
    parent = next((p for p in workflow.params if p.ref and p.required and p.name in filed
                   and not person(spec, p.ref)), None)
    if parent is not None:
        pieces.append(Piece(" for ", parent.name, "thing"))
    return Frame(workflow.name, tuple(pieces), (), " to ", " with ")


def _span_noun(params: dict[str, ParamSpec], span: tuple[str, str] | None) -> str:
    """The noun a range's two labels share before their words of time ("Pickup from", "Pickup
    by" → "pickup"), which says what the two days are: "for pickup between … and …"."""
    if span is None:
        return ""
    first, last = (noun(said(params[n])).split() for n in span)
    shared = first[0] if len(first) > 1 and len(last) > 1 and first[0] == last[0] else ""
    return shared if shared and grammar.is_noun(shared) and shared not in grammar.PREPOSITIONS else ""


_THE_THING = re.compile(r" the ([a-z][a-z -]*)")


def its_form(f: Frame) -> tuple[str, str] | None:
    """For a frame that says "<verb> the <noun> for <row>" ("Adjust the allowance for …"), how the
    row found is said: " the allowance for it" as " its allowance" ("adjust its allowance to 36
    days"); None for any other frame. `frames_read.parse_frame` reads the short form back."""
    for before, piece in zip(f.pieces, f.pieces[1:], strict=False):
        thing = _THE_THING.fullmatch(before.lead) if before.param is None else None
        if thing is not None and piece.role == "subject" and piece.lead == " for ":
            return f"{before.lead} for {IT}", f" its {thing[1]}"
    return None


REST_ARTICLE = "the "  # before each argument a frame's pieces do not place


def span_words(f: Frame) -> tuple[str, str]:
    """How a frame says its span: "from … to …", or "between … and …" where its places already
    took "from" and "to" ("Book a shipment from Busan to Los Angeles for pickup between July 3
    and July 5", the range's own noun first where its labels share one)."""
    if not any(pc.role in ("source", "dest") for pc in f.pieces):
        return "from", "to"
    return (f"for {f.span_noun} between" if f.span_noun else "between"), "and"


IT = "it"  # the row a find-then-act found: "…, then report it as lost or stolen"

