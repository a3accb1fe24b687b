"""How people speak of a spec's names: workflows as verb phrases, fields as nouns, labels and
amounts as written by hand ("June 18", not "2026-06-18"; "$10", not "$10.00").

Every function here is a function of the spec alone, so the renderer writes these words and the
parser reads them back without knowing how a task was made (both directions import this module).
The words said before a noun are in `modifiers`, numbers with what they count or measure in `measures`.
"""

from __future__ import annotations

import datetime as dt
import re

from factory.spec.labels import CURRENCIES
from factory.spec.model import EntitySpec, FieldSpec, ParamSpec, Spec, WorkflowSpec
from factory.tasks.language import grammar

# Date fields labelled "<participle> on" are spoken of as a kind of date ("opened on" → "opening
# date"); participles not listed here read "<participle> date" ("posted date").
_DATE_NOUNS = {
    "opened": "opening date", "issued": "issue date", "expires": "expiry date", "created": "creation date",
    "updated": "date of the last update", "added": "date added", "paid": "payment date", "closed": "closing date",
    "cancelled": "cancellation date", "bought": "purchase date", "due": "due date", "joined": "joining date",
    "started": "start date", "starts": "start date", "ends": "end date", "ended": "end date",
    "renewed": "renewal date", "returned": "return date", "sent": "date sent", "received": "date received",
    "last paid": "date of the last payment", "status changed": "date of the last status change",
    "pay": "payment date", "serviced": "service date", "decided": "decision date", "submitted": "submission date",
    "approved": "approval date", "rejected": "rejection date", "booked": "booking date", "delivered": "delivery date",
    "shipped": "shipping date", "registered": "registration date", "published": "publication date",
    "completed": "completion date", "signed": "signing date", "hired": "hire date", "born": "date of birth",
    "modified": "date of the last change", "borrowed": "borrowing date", "archived": "archiving date",
    "resolved": "resolution date", "released": "release date", "enrolled": "enrolment date",
    "saved": "date saved", "charged": "charge date", "placed": "date placed", "posted": "posting date",
    "requested": "request date",
    "ordered": "order date", "purchased": "purchase date", "refunded": "refund date", "filed": "filing date",
    "reported": "report date", "logged": "date logged", "recorded": "date recorded", "assigned": "assignment date",
    "lent": "lending date", "loaned": "loan date", "reserved": "reservation date", "confirmed": "confirmation date",
    "verified": "verification date", "activated": "activation date", "suspended": "suspension date",
    "listed": "listing date", "checked out": "checkout date", "checked in": "check-in date",
    "moved in": "move-in date", "moved out": "move-out date", "scheduled": "scheduled date", "visited": "visit date",
    "withdrawn": "withdrawal date", "deposited": "deposit date", "transferred": "transfer date",
    "invoiced": "invoice date", "billed": "billing date", "settled": "settlement date", "repaired": "repair date",
    "inspected": "inspection date", "installed": "installation date", "expired": "expiry date",
    "terminated": "termination date", "graduated": "graduation date", "married": "wedding date",
}
_SCALE = re.compile(r"\s*\([^)]*\)")  # "USD per unit (x10000)": a storage scale, never spoken
_SHOWN = re.compile(r"\b(?P<mon>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (?P<day>\d{1,2}), (?P<year>\d{4})"
                    r"(?:, (?P<time>\d{1,2}:\d{2} [AP]M))?\b")
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2})?)?\b")


def noun(label: str) -> str:
    """A label inside a sentence: lower case except acronyms ("USD per unit"), scales dropped."""
    words = _SCALE.sub("", label).split()
    if len(words) > 1 and words[0].lower() == "your":  # "Your note": the app's voice, not the user's
        words = words[1:]
    return " ".join(w if (w.isupper() and len(w) > 1) else w.lower() for w in words)


def said(thing: EntitySpec | FieldSpec | ParamSpec | WorkflowSpec) -> str:
    """What a sentence calls a spec name: the seed's `say:` hint when it gives one, else its label
    (an entity's without a state it names, see `kind_of`)."""
    if thing.say:
        return thing.say
    return kind_of(thing.label) if isinstance(thing, EntitySpec) else thing.label


def kind_of(label: str) -> str:
    """An entity's label without a leading word that can only be an adjective ("Open claim",
    "Pending order", "New hire"): such a word names a state the row is in when it is made, not
    what it is, and a sentence about a row that has left it would contradict itself ("close the
    open claim", "the closed open slots"). Nouns and participles stay ("Business trip", "Saved
    listing", "Blocked dates"): they say which kind of row it is."""
    words = label.split()
    first = words[0].lower() if words else ""
    if (len(words) > 1 and grammar.is_adjective(first) and not grammar.is_noun(first)
            and not grammar.is_participle(first)):
        rest = " ".join(words[1:])
        return rest[:1].upper() + rest[1:]
    return label


def spoken_plural(entity: EntitySpec) -> str:
    """The entity's plural as a sentence says it: the seed's plural when it is the plural of its
    label ("payees", "blocked dates"), else the label made plural: a seed may title its list page
    "Wishlists" for the rows it calls "Saved listing", and "my wishlists with the wishlist …"
    would be said of saved listings."""
    label, plural = noun(said(entity)), noun(entity.plural if entity.say else kind_of(entity.plural))
    if grammar.singular(label) != label:  # a label that is a plural already ("Contact details", "Blocked dates")
        return label
    one = grammar.singular(plural).split()
    head, last = label.split()[-1], plural.split()[-1] if plural.split() else ""
    if entity.say is None and one and (one[-1] == head or (one == plural.split() and grammar.own_plural(last) and (
            last in label.split() or last[:2] == head[:2]))):
        # the seed's plural of its label or of its head noun ("Trips" of "Business trip"), or a
        # plural the lexicon does not derive from it ("People" of "Person", "Staff" of "Staff
        # member"); never another noun ("Fleet" of "Car", "Rota" of "Shift": "my cars")
        return plural
    return grammar.plural(label)


# A label that is only a preposition names one end of a span or a move: its noun by what it holds.
_ENDS = {"from": ("start date", "sender", "origin"), "since": ("start date", "sender", "origin"),
         "to": ("end date", "recipient", "destination"), "until": ("end date", "recipient", "destination"),
         "till": ("end date", "recipient", "destination")}


# A label led by a question word names what the question asks for ("Why comped" → the reason).
_WH = {"why": "reason", "when": "date", "where": "place", "who": "person", "whom": "person", "how": "amount",
       "what": "description"}


def field_noun(field: FieldSpec | ParamSpec) -> str:
    """How people name a field: "opened on" → "opening date", "member since" → "member-since date",
    "Spent this year" → "amount spent this year", "To" → "end date" (a date) or "recipient" (a
    person); a seed's `say:` hint wins."""
    if field.say:
        return noun(field.say)
    text = noun(said(field))
    words = text.split()
    when_kind = "time" if field.type == "datetime" else "date"
    dated = field.type in ("date", "datetime")
    if len(words) == 2 and grammar.is_verb(words[0]) and words[1] in grammar.PARTICLES \
            and not (dated and words[1] in ("on", "at", "by")):  # "Pay on" a day is the pay date, not a "pay-on"
        # a phrasal verb as a noun is one word: "Pick up" → "pick-up", "Check in" → "check-in date"
        joined = "-".join(words)
        return f"{joined} {when_kind}" if field.type in ("date", "datetime") else joined
    if len(words) == 1 and words[0] in _ENDS and (field.ref or field.type in ("date", "datetime")):
        # "From", "To": a preposition is no noun; a date is an end of a span, a row where something goes
        when, person, spot = _ENDS[words[0]]
        return when if field.type in ("date", "datetime") else person if field.ref == "user" else spot
    if len(words) == 1 and field.type in ("date", "datetime") and "ADP" in grammar.tags(words[0]):
        return when_kind  # "On", "At", "By": the day or the moment itself
    wh = re.sub(r"['’](?:s|re)$", "", words[0]) if words else ""  # "What's still wrong": "what"
    if wh in _WH:  # "Why waived", "When", "Where", "How much": the thing the question asks for
        asked = _WH[wh]
        named = field.name.replace("_", " ").split()
        if wh == "what" and named and grammar.is_noun(named[-1]) and wh not in named:
            return " ".join(named)  # "What's still wrong" of a field named "reason": the reason
        return when_kind if asked == "date" else asked
    tags = grammar.tags(words[0]) if len(words) == 1 else frozenset()
    if field.type in ("date", "datetime") and "ADJ" in tags and ("NOUN" not in tags or "ADV" in tags) \
            and not grammar.is_participle(words[0]) and wh not in _WH:
        return f"{words[0]} date"  # "Due" → "the due date" (of a moment too: people say "due date")
    if len(words) == 1 and field.type in ("date", "datetime") and grammar.is_participle(words[0]):
        return _DATE_NOUNS.get(words[0], f"{when_kind} {words[0]}")  # "Booked" → "date booked"
    if field.type in ("date", "datetime") and words:
        lemma = next((m for m in grammar.lemmas(words[-1], "VERB") if m != words[-1]
                      and grammar.third_person(m) == words[-1]), None)
        if lemma is not None:  # "Starts", "Pattern starts": a clause; its moment is "the pattern start date"
            return " ".join([*words[:-1], nominal(lemma), when_kind])  # "Departs": "the departure time"
    if field.type in ("date", "datetime"):
        named = field.name.split("_")
        if (len(words) > 1 and words[-1] in ("on", "at") and named[-1] in ("on", "at") and named[:-1]
                and all(grammar.is_noun(w) and not grammar.is_verb(w) and not grammar.is_participle(w) for w in named[:-1])
                and not set(named[:-1]) & set(words)):
            # "Happened on" is a clause about the row; its field's name ("incident_on") has the
            # noun people use: "the incident date", never "the date happened"
            return f"{' '.join(named[:-1])} {when_kind}"
        for suffix in (" on", " at"):
            if text.endswith(suffix):
                head = text[: -len(suffix)]
                if head in _DATE_NOUNS:
                    return _DATE_NOUNS[head]
                if head.split() and grammar.is_participle(head.split()[0]):  # "Picked up at" → "time picked up"
                    return f"{'time' if field.type == 'datetime' else 'date'} {head}"
                parts = head.split()
                if len(parts) == 2 and grammar.is_verb(parts[0]) and parts[1] in grammar.PARTICLES:
                    return f"{'-'.join(parts)} {when_kind}"  # "Move in on" → "the move-in date"
                return f"{head} {when_kind}"  # "Doors at" a moment → "the doors time"
        if text.endswith(" since"):
            return f"{text.replace(' ', '-')} date"
        if words[-1] == "by" and len(words) > 1:  # "Return by" → "return deadline", "Pay by" → "pay deadline"
            core = [w for w in words[:-1] if grammar.is_noun(w) and not grammar.is_participle(w)]
            return " ".join([*core, "deadline"])
        if words[-1] in ("until", "till", "to", "through", "from") and len(words) > 1:
            # "Licence valid until" → "licence end date", "Frozen until" → "end date of the freeze" is
            # too far: the nouns before the preposition name what ends or starts
            lead = 0  # "In force from": a state said with its preposition names no thing that starts
            while lead < len(words) - 1 and words[lead] in grammar.PREPOSITIONS:
                lead += 2
            core = [w for w in words[lead:-1] if grammar.is_noun(w) and not grammar.is_participle(w)
                    and not grammar.is_adjective(w)]
            end = "start" if words[-1] == "from" else "end"
            return " ".join([*core, end, when_kind])
        if text.split()[-1] in ("start", "end", "begin", "finish"):  # "the current statement start date"
            return f"{text} {when_kind}"  # a moment's: "the new start time"
    ones = {grammar.singular(words[0]), words[0][:-1]} - {words[0]} if len(words) == 1 and words[0].endswith("s") else set()
    if field.type == "enum" and ones:
        named = field.name.split("_")
        if len(named) > 1 and ones & set(named) and all(grammar.is_noun(w) for w in named):
            return " ".join(named)  # a choice labelled "Ages" of a field named age_limit: "the age limit"
    place = re.fullmatch(r"(?:place|position|spot) in (?:the )?([a-z]+)", text)
    if field.type == "int" and place is not None:  # "Place in queue" → "the queue position of my hold"
        return f"{place[1]} position"
    if field.type in ("money", "int") and words and (
            # one participle or adjective ("Spent", "Agreed", "Due", "Outstanding"): "the amount agreed"
            (len(words) == 1 and (grammar.is_participle(text) or (grammar.is_adjective(text) and not grammar.is_noun(text))))
            or (len(words) > 1 and grammar.is_participle(words[0]) and not grammar.is_noun(words[0])
                and words[1] in grammar.CLOSED | grammar.PARTICLES)):  # "Spent this year", not "Paid hours"
        # "the amount spent", never "the spent"; "the amount billed to the renter", never "… to renter"
        return f"{'amount' if field.type == 'money' else 'number'} {' '.join(grammar.with_role_article(words))}"
    if field.ref and len(words) >= 2 and words[-1] in grammar.PREPOSITIONS and words[-1] != "by" \
            and grammar.is_participle(words[0]):
        # "Parked at" a branch: the row it points at, said by its kind; "Paid to" a person: the
        # "-ee" noun where English has one ("payee"); else the label stays and `check` asks for a `say:`
        verb = grammar.participle_of(words[0]) or words[0]
        if field.ref != "user":
            return field.ref.replace("_", " ")
        patient = verb[:-1] + "ee" if verb.endswith("e") else verb + "ee"
        if words[-1] == "to" and grammar.noun_only(patient):
            return patient
    if field.type in ("int", "float") and re.search(r"\(%\)\s*$", field.label) and len(words) > 1 \
            and "ADP" in grammar.tags(words[0]):
        return "-".join(words) + " rate"  # "On time (%)": "the on-time rate", never "the number on time"
    if field.type in ("money", "int") and len(words) >= 2 and "ADP" in grammar.tags(words[0]):
        named = field.name.split("_")
        if (len(named) > 1 and grammar.is_noun(named[-1]) and not set(named) & set(words)
                and all(grammar.is_noun(w) or grammar.is_adjective(w) for w in named)):
            return " ".join(named)  # "Per day" of a field named "daily_rate": "the daily rate"
        return f"{'amount' if field.type == 'money' else 'number'} {text}"  # "Per day" → "the amount per day"
    if field.type in ("money", "int") and len(words) == 1 and grammar.tags(words[0]) & {"DET", "ADV"} \
            and not grammar.is_noun(words[0]):
        return f"{'amount' if field.type == 'money' else 'number'} {text}"  # "Each" → "the amount each"
    if field.ref == "user" and len(words) == 2 and words[1] == "by" and grammar.is_participle(words[0]):
        agent = _agent(grammar.participle_of(words[0]) or words[0])  # "Graded by" → "grader"
        if grammar.noun_only(agent):
            return agent
    named = field.name.replace("_", " ").split()
    if len(words) > 1 and words[-1] in grammar.PREPOSITIONS and not field.ref and named \
            and grammar.is_noun(named[-1]) and not set(named) & grammar.PREPOSITIONS:
        return " ".join(named)  # "Bills in" (a currency) is a predicate, not a noun: "the currency"
    if field.type == "money" and len(named) > 1 and grammar.is_noun(named[-1]) and words \
            and named[-1] not in words and not set(words) & grammar.PREPOSITIONS \
            and (grammar.activity(words[-1]) or (len(words) > 1 and grammar.is_verb(words[-1]))):
        # an amount labelled by the act it is for ("Late return", "Cancellation", "Refuelling" of
        # fields named late_fee, cancellation_fee, fuel_charge): its field's head noun says it is money
        return f"{text} {named[-1]}"
    return _SPOKEN_NOUNS.get(text, text)


def nominal(verb: str) -> str:
    """The noun of an act, for a verb that is no noun itself: "depart" → departure, "arrive" →
    arrival, "ship" → shipment; the verb when it is a noun ("start", "end") or the lexicon knows
    none of its regular nominal forms (-ure, -al, -ion, -ment, -y, tried in that order)."""
    if grammar.is_noun(verb):
        return verb
    stem = verb[:-1] if verb.endswith("e") else verb
    for form in (stem + "ure", stem + "al", stem + "ion", verb + "ment", stem + "y"):
        if grammar.known(form) and grammar.is_noun(form):
            return form
    return verb


def _agent(verb: str) -> str:
    """The person who does `verb` ("grade" → grader, "approve" → approver, "ship" → shipper)."""
    if verb.endswith("e"):
        return verb + "r"
    if re.search(r"[^aeiou][aeiou][bdgmnpt]$", verb) and len(verb) <= 4:  # "ship" → shipper
        return verb + verb[-1] + "er"
    return verb + "er"


# One-word labels people complete when they speak ("What is the phone number of my contact?").
_SPOKEN_NOUNS = {"phone": "phone number", "mobile": "mobile number", "cell": "cell number", "fax": "fax number",
                 "zip": "zip code", "postcode": "postcode", "dob": "date of birth"}
# Nouns whose row follows "for", not "of" ("the reason for my blocked dates").
FOR_NOUNS = frozenset(["reason", "explanation", "justification", "excuse", "motive", "grounds", "cause", "rationale"])


def param_noun(label: str) -> str:
    """A parameter's label as a sentence says it ("Phone" → "phone number")."""
    text = noun(label)
    return _SPOKEN_NOUNS.get(text, text)


# Prepositions that make a parameter's label a predicate ("Starts on", "Check in"): said bare
# before its value ("starts on July 20"), never turned into a noun.
_PREDICATE_PREPOSITIONS = frozenset(["between", "to", "from", "for", "on", "in", "into", "at", "of", "with", "by",
                                     "toward", "as"])


def param_said(p: ParamSpec, setting: bool = False) -> str:
    """How a sentence names a parameter before its value: its `say:`, a predicate label as it is
    ("starts on"), else the noun its label makes ("Why" → "reason", "Carried over" → "number
    carried over"), as a field of that label would be said. After "Set the" (`setting`) it is
    always a noun: "Set the return deadline to …", never "set the return by to …"."""
    if p.say:
        return noun(p.say)
    words = noun(p.label).split()
    if not setting and len(words) > 1 and (words[0] in _PREDICATE_PREPOSITIONS or words[-1] in _PREDICATE_PREPOSITIONS):
        return param_noun(p.label)
    return field_noun(p)


def amount_said(p: ParamSpec) -> tuple[str, str]:
    """An amount's noun and what its label says after the noun ("Premium on top" → "premium",
    "on top"; "Fee per day" → "fee", "per day"), so its value goes between them: "a premium of
    £30 on top", never "a premium on top of £30". A phrase "of" starts stays with its noun ("cost
    of repair")."""
    words = param_said(p).split()
    cut = next((i for i, w in enumerate(words) if i and w != "of" and w in grammar.PREPOSITIONS), len(words))
    return " ".join(words[:cut]), " ".join(words[cut:])


def own_field_noun(entity: EntitySpec, field: FieldSpec) -> str:
    """A field's noun said of its own row, without a first word that repeats the row's noun: the
    shift pattern's "pattern start date" is its "start date" ("the start date of the shift pattern
    "Early"", never "the pattern start date of the shift pattern"); kept whole where the shorter
    noun would be another field's."""
    said_noun = field_noun(field)
    words = said_noun.split()
    if len(words) < 3 or words[0] not in noun(said(entity)).split():
        return said_noun
    short = " ".join(words[1:])
    return said_noun if any(field_noun(g) == short for g in entity.fields if g is not field) else short


_WHEN_NOUNS = frozenset(["date", "day", "time", "date and time"])


def recency_field(entity: EntitySpec) -> FieldSpec | None:
    """The field a row is "the most recent" or "the oldest" by: its date field labelled only "Date"
    ("Day", "Time"), a day before a moment (a message's "Day" before its "Date": questions rank by
    the day), else the event stamp the app sorts by ("Requested on"); None when there is none (a
    bill's "Due on" is no age)."""
    plain = [f for f in entity.fields if f.type in ("date", "datetime") and noun(said(f)) in _WHEN_NOUNS]
    if plain:
        return min(plain, key=lambda f: f.type != "date")
    # else the stamp the app lists rows by, newest first, when its label says an event happened
    # ("Requested on", "Logged at"): "my most recent leave request", never "the latest request date"
    stamp = next((f for f in entity.fields if entity.default_sort == f"-{f.name}" and f.type in ("date", "datetime")), None)
    words = stamp.label.lower().split() if stamp is not None else []
    if stamp is not None and len(words) == 2 and grammar.is_participle(words[0]) and words[1] in ("on", "at"):
        return stamp
    return None


# Words that make an amount a level, a bound or a rate rather than a flow: a total of "balance
# after", "daily limit", "typical bill" or "fine per day" over several rows means nothing.
_NOT_ADDITIVE = frozenset({"after", "before", "limit", "limits", "alert", "threshold", "rate", "per", "minimum",
                           "maximum", "min", "max", "typical", "average", "cap", "below", "above"})


def additive(field: FieldSpec) -> bool:
    """Whether a total of the field over several rows is something a person would want to know."""
    return not set(re.findall(r"[a-z]+", field.label.lower())) & _NOT_ADDITIVE


def names_its_row(workflow: WorkflowSpec, words: list[str]) -> bool:
    """Whether a label's words name the row the workflow acts on or makes ("Refill request",
    "Time entries"): then the label is a noun phrase, whatever verb its first word could be."""
    if len(words) < 2:  # one word that names its row is still a verb first ("Refund" a refund request)
        return False
    rows = {workflow.subject_entity} | {e.entity for e in workflow.effects if e.kind == "create"}
    for name in sorted(r for r in rows if r):
        one = name.split("_")
        if words in (one, grammar.plural(" ".join(one)).split()):
            return True
    return False


def verb_words(workflow: WorkflowSpec) -> tuple[list[str], list[str]] | None:
    """The verb of the workflow's label (with its particle: "check out") and the words after it;
    None when the label is a noun phrase ("New expense report", "Notification settings"). A label
    that names the state the workflow puts its row in is said with "mark … as": a participle
    ("Picked up", "Bounced") or the state's own words ("No-show" setting the status "no_show")."""
    words = noun(said(workflow)).split()
    head = grammar.verb_head(words)
    if head is not None and (workflow.say is not None or not names_its_row(workflow, words)):
        return head
    if workflow.say is None and workflow.subject and words and (
            (grammar.is_participle(words[0]) and not grammar.is_noun(words[0])) or _names_state(workflow, words)):
        state = words if grammar.is_participle(words[0]) or not grammar.is_noun(words[-1]) else \
            grammar.with_article(" ".join(words)).split()
        return ["mark"], ["as", *state]
    if workflow.say is None and words and (words[0] == "new" or {e.kind for e in workflow.effects} == {"create"}) \
            and any(e.kind == "create" for e in workflow.effects):
        # a label that names the thing made ("New tier", "Expense report"): "create a new tier …"
        return ["create"], (["a", *words] if words[0] == "new" else a(" ".join(words)).split())
    return None


def _names_state(workflow: WorkflowSpec, words: list[str]) -> bool:
    """Whether the label is the value the workflow sets on its own row ("No-show" → 'no_show')."""
    flat = re.sub(r"[^a-z]", "", "".join(words))
    for e in workflow.effects:
        if e.kind == "set" and e.target == workflow.subject and not e.for_each and e.to and \
                re.fullmatch(r"'[^']*'", e.to.strip()) and re.sub(r"[^a-z]", "", e.to.lower()) == flat:
            return True
    return False


def verb_phrase(workflow: WorkflowSpec) -> str:
    """The workflow as something a person asks for, lower case: "lock card", "create a new expense
    report" (label "New expense report"), "update the notification settings" (label "Notification
    settings"). Never a noun phrase used as a verb: a label's first word is a verb when the grammar
    says it can be one ("prescribe", "deny"), else the verb comes from what the workflow does."""
    text = noun(said(workflow))
    words = text.split()
    head = verb_words(workflow)
    if head is not None:
        return " ".join([*head[0], *head[1]])
    if len(words) > 2 and words[1] in ("a", "an", "the", "my", "all"):
        return text
    kinds = {e.kind for e in workflow.effects}
    if words[:1] == ["new"] or kinds == {"create"}:
        return f"create {a(text)}" if words[:1] != ["new"] else f"create a {text}"
    if kinds == {"delete"}:
        return f"delete the {text}"
    return f"update the {text}"


def a(text: str) -> str:
    """`text` after "a" or "an" ("an amount", "a day", "an hour", "an SLA")."""
    return grammar.with_article(text)


def spoken_date(iso: str, today: dt.date | None = None) -> str:
    """A date in words: "June 18, 2026" (the year is kept: goals are read back without a today)."""
    day = dt.date.fromisoformat(iso[:10])
    return f"{day:%B} {day.day}, {day.year}"


def spoken_label(label: str, year: str | None = None, timeless: bool = False) -> str:
    """A display label as a person writes it: ISO dates in it in words ("Jordan Lee on June 18,
    2026"), without the year when it is `year` (the world's current one: "on June 18"), and with
    `timeless` without the time of day ("logged on May 11", where the day alone tells the row);
    the resolver accepts every form of every label (`resolve.find_rows`)."""

    def untimed(m: re.Match[str]) -> bool:
        # a label that says "at" before its moment ("Spin at Jun 15, 2026, 6:00 PM") needs the time
        return timeless and not m.string[: m.start()].endswith(" at ")

    def words(m: re.Match[str]) -> str:
        text = spoken_date(f"{m[1]}-{m[2]}-{m[3]}")
        if year is not None and m[1] == year:
            text = text[: -len(f", {year}")]
        return f"{text} at {m[4]}:{m[5]}" if m[4] and not untimed(m) else text

    def shown(m: re.Match[str]) -> str:  # the app's "Jun 18, 2026" (`spec.labels.date_label`)
        month = dt.datetime.strptime(m["mon"], "%b").strftime("%B")
        text = f"{month} {m['day']}" + ("" if year is not None and m["year"] == year else f", {m['year']}")
        return f"{text} at {m['time']}" if m["time"] and not untimed(m) else text

    return _SHOWN.sub(shown, _ISO.sub(words, label))


_PARTS = re.compile(r": | · | - |, ")


def said_once(label: str) -> str:
    """A label whose last part repeats words it has said already, without that part: a one-leg
    shipment's leg "PO-22515 · Busan to Hamburg: Busan to Hamburg" is "PO-22515 · Busan to
    Hamburg" (the app's template joins two fields that happen to agree); else the label as it is.
    The resolver reads both (`resolve.find_rows`)."""
    cuts = list(_PARTS.finditer(label))
    if not cuts:
        return label
    last = cuts[-1]
    head, tail = label[: last.start()], label[last.end():]
    return head if tail and len(tail.split()) > 1 and head.endswith(tail) else label


def money_words(cents: int, currency: str | None = None) -> str:
    """An amount as people write it: "$10", "$1,250", "$12.50" (cents only when there are some);
    in another currency with its symbol, "€12.50", "£14"."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(int(cents)), 100)
    symbol = CURRENCIES.get(currency or "USD", "$")
    return f"{sign}{symbol}{whole:,}" + (f".{part:02d}" if part else "")


def entity_noun(entity: EntitySpec) -> str:
    return noun(said(entity))


def verb_of(spec: Spec, text: str) -> WorkflowSpec | None:
    """The user workflow whose verb phrase `text` starts with (longest first), or None."""
    for w in sorted((w for w in spec.workflows if not w.system), key=lambda w: -len(verb_phrase(w))):
        if text.lower().startswith(verb_phrase(w)):
            return w
    return None

