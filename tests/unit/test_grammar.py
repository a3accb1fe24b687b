"""The language's grammar: parts of speech and inflections come from the morphology libraries,
so labels no seed of ours has used are said right, and the lint judges grammar, not past slips."""

from __future__ import annotations

import pytest

from factory.spec.model import EffectSpec, FieldSpec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.lint import grammar_hits
from factory.tasks.language.spoken import field_noun, verb_phrase, verb_words

# The verbs our own seeds' labels used, once a hand-written list in the language: now only a test
# set (the grammar must know each without being told).
VERBS = frozenset([
    "accept", "add", "apply", "approve", "archive", "ask", "assign", "block", "book", "borrow", "buy",
    "cancel", "change", "check", "claim", "close", "compose", "confirm", "copy", "create", "decline",
    "delete", "deposit", "disable", "dispute", "downgrade", "draft", "duplicate", "edit", "enable", "enroll",
    "file", "flag", "follow", "forget", "forward", "freeze", "hide", "hire", "invite", "join", "leave",
    "link", "lock", "log", "mark", "message", "move", "mute", "open", "order", "pause", "pay", "pin", "plan",
    "post", "publish", "put", "rate", "reactivate", "record", "redeem", "refund", "register", "reject",
    "release", "remove", "rename", "renew", "rent", "reopen", "reply", "report", "request", "reschedule",
    "reserve", "respond", "restore", "resume", "return", "review", "save", "schedule", "send", "set", "share",
    "sign", "snooze", "star", "start", "stop", "submit", "subscribe", "suspend", "switch", "tag", "transfer",
    "unarchive", "unblock", "unfreeze", "unlink", "unlock", "unmute", "unpin", "unpublish", "unstar",
    "unsubscribe", "update", "upgrade", "upload", "verify", "void", "waive", "withdraw", "write",
    "place", "finish", "fill", "complete", "lend", "repair", "collect", "deliver", "ship", "grant", "revoke",
    "settle", "hold", "issue", "dispatch", "extend", "shorten", "increase", "decrease", "raise", "lower", "reduce",
    "make", "give", "take", "keep", "sell", "swap", "trade", "clear", "empty", "reset",
])


def test_every_verb_our_seeds_used_is_a_verb_to_the_grammar() -> None:
    """The old word list is now a test set: the grammar knows each without being told."""
    assert [v for v in sorted(VERBS) if not grammar.is_verb(v)] == []


@pytest.mark.parametrize(("word", "verb"), [
    ("prescribe", True), ("deny", True), ("escalate", True), ("reassign", True), ("unstar", True),
    ("reprice", True), ("postpone", True), ("new", False), ("notification", False), ("payment", False),
    ("spent", False), ("to", False), ("from", False), ("comp", False),
])
def test_a_verb_is_a_base_form_the_lexicon_knows_as_a_verb(word: str, verb: bool) -> None:
    assert grammar.is_verb(word) is verb


@pytest.mark.parametrize(("phrase", "plural"), [
    ("time entry", "time entries"), ("no-show", "no-shows"), ("child", "children"), ("bookshelf", "bookshelves"),
    ("customs hold", "customs holds"), ("status", "statuses"), ("SLA", "SLAs"), ("analysis", "analyses"),
])
def test_plurals_come_from_the_morphology(phrase: str, plural: str) -> None:
    assert grammar.plural(phrase) == plural


@pytest.mark.parametrize(("phrase", "article"), [
    ("hour", "an"), ("user", "a"), ("SLA breach", "an"), ("HR request", "an"), ("unit", "a"), ("open shift", "an"),
])
def test_a_or_an_goes_by_sound(phrase: str, article: str) -> None:
    assert grammar.article(phrase) == article


@pytest.mark.parametrize(("label", "head"), [
    ("Check out", (["check", "out"], [])), ("Sign up for class", (["sign", "up"], ["for", "class"])),
    ("Move to inbox", (["move"], ["to", "inbox"])), ("Put on hold", (["put"], ["on", "hold"])),
    ("Deny refill", (["deny"], ["refill"])), ("New expense report", None),
])
def test_a_particle_belongs_to_its_verb(label: str, head: tuple[list[str], list[str]] | None) -> None:
    assert grammar.verb_head(grammar.words_of(label)) == head


def _workflow(label: str, subject: str | None = "refill_request", creates: str | None = None,
              say: str | None = None) -> WorkflowSpec:
    effects = [EffectSpec(kind="create", source="", entity=creates, python=[])] if creates else [
        EffectSpec(kind="set", source="", entity=subject or "row", target="row", field="status", to="'x'", python=[])]
    return WorkflowSpec(name="w", label=label, description=label, subject="row" if subject else None,
                        subject_entity=subject, params=[], preconditions=[], effects=effects, confirm=None,
                        success="Done", system=False, path="/api/workflows/w", operation_id="run_w", form_path=None,
                        say=say)


@pytest.mark.parametrize(("label", "creates", "said"), [
    ("Prescribe", None, "prescribe"), ("Deny refill", None, "deny refill"), ("Check out", None, "check out"),
    ("Refill request", "refill_request", "create a refill request"), ("No-show", None, "update the no-show"),
    ("Refund", None, "refund"),
])
def test_a_workflow_label_reads_as_a_verb_phrase_by_grammar(label: str, creates: str | None, said: str) -> None:
    assert verb_phrase(_workflow(label, creates=creates)) == said


def test_a_say_hint_is_how_the_workflow_is_asked_for() -> None:
    wf = _workflow("No-show", say="Mark as a no-show")
    assert verb_phrase(wf) == "mark as a no-show"
    assert verb_words(wf) == (["mark"], ["as", "a", "no-show"])


def _field(label: str, type_: str = "money", ref: str | None = None, say: str | None = None) -> FieldSpec:
    return FieldSpec(name="f", column="f", label=label, type=type_, py_type="int", required=True, unique=False,
                     ref=ref, widget="text", editable=True, in_list=True, say=say)


@pytest.mark.parametrize(("label", "type_", "ref", "said"), [
    ("Spent this year", "money", None, "amount spent this year"), ("Paid to date", "money", None, "amount paid to date"),
    ("Paid hours", "int", None, "paid hours"), ("Agreed day rate", "money", None, "agreed day rate"),
    ("To", "date", None, "end date"), ("From", "datetime", None, "start date"), ("To", "reference", "user", "recipient"),
    ("From", "string", None, "from"), ("Picked up at", "datetime", None, "time picked up"),
    ("Graded by", "reference", "user", "grader"), ("Requested on", "date", None, "request date"),
    ("Each", "money", None, "amount each"), ("Move in on", "date", None, "move-in date"),
    ("Doors at", "datetime", None, "doors time"), ("New start", "datetime", None, "new start time"),
    ("Statement start", "date", None, "statement start date"), ("Check in on", "datetime", None, "check-in time"),
])
def test_field_labels_become_noun_phrases(label: str, type_: str, ref: str | None, said: str) -> None:
    assert field_noun(_field(label, type_, ref)) == said


def test_a_say_hint_names_the_field() -> None:
    assert field_noun(_field("Fix", "string", say="Correction needed")) == "correction needed"


@pytest.mark.parametrize("goal", [
    'Check the out for my order "Cart at Hearth and Home".',
    'Please create a prescribe for my appointment "June 1".',
    'Look up the spent this year of the department "Sales".',
    "Which of my expense reports has the latest to?",
    'Could you update the deny refill for my refill request "Lisinopril refill"?',
    'Buy a tickets to the tier "VIP".',
    'Add an payee "Bo".',
])
def test_the_lint_finds_broken_grammar_it_was_never_told_about(goal: str) -> None:
    assert grammar_hits(goal), goal


@pytest.mark.parametrize("goal", [
    "Which of my bills is the oldest?",
    "Transfer $200 from my Main Checking account (··3808) to my Emergency Fund account (··5290).",
    'Lock my card "Visa card ··2286", reason "travel".',
    'What is the opening date of my account "Main Checking ··3808"?',
    'How many times has the book "X" been lent?',
    'Find my most recent message in the folder "archive", then star it.',
    'Place a customs hold on my shipment "SH-1001".',
    'Check out my rental "Jun 4, 2026 - Toyota Corolla".',
    "I need to deny my leave request \"Family wedding\" with the reason \"Peak week\".",
    "Find the high ticket that has the most reopens, then escalate it.",  # a verb counted is a noun
])
def test_the_lint_passes_a_persons_sentence(goal: str) -> None:
    assert grammar_hits(goal) == []
