"""Seed task phrasings the task proposer will not use, as `factory check` warnings with a way out.

The proposer grounds each phrasing of `tasks:` once (`factory.tasks.language.intents`): slots and
literals bound to parameters, the rest appended as one sentence. What it cannot ground it lists in
stage two's report (`unusable_intent_phrasings`) and never uses; this asks the same function at
check time, so the author learns it before a build, at the phrasing's line. The proposer's reason
is quoted as it is and followed by what to change in the seed, matched from the reason's words (a
reason this does not know is quoted alone).
"""

from __future__ import annotations

import re

from factory.seed.loaded import LoadedSeed
from factory.spec.model import Spec

# (the proposer's reason, what the seed author can do about it); the first that matches speaks
_ADVICE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^slot \{(?P<slot>\w+)\} names no field of a row"),
     "declare the slot under `slots:` as <entity>.<field>, a field of the row it names"),
    (re.compile(r"^(?P<kind>\w+) phrasings are not grounded"),
     "split it into a read task and a write task, or drop it: only write phrasings and one-row lookups are used "
     "(the proposer composes its own find-then-act tasks)"),
    (re.compile(r"is no workflow a user can run"),
     "point `workflow:` at a workflow with a form (not `system: true`)"),
    (re.compile(r"^it names no row and no value"),
     "give it a slot (`{account}`) or a value ($100, 2, 'a quoted text') so tasks differ"),
    (re.compile(r"^no parameter of .* takes an? "),
     "point the slot at a field of a row the workflow takes as a parameter"),
    (re.compile(r"^\{(?P<slot>\w+)\} could fill (?P<labels>.*)$"),
     "name the slot after the parameter it fills (e.g. {from_account}) or put a word of that parameter's label "
     "right before it"),
    (re.compile(r"^two slots name the "),
     "name the second row by another field, or give each slot its own parameter"),
    (re.compile(r"states a change, not a value to set"),
     "write the value to set ('to $120'), not the change ('by $15')"),
    (re.compile(r"^(?P<value>\d+) fits no parameter of "),
     "quote the text that holds the number ('Taxes 2026', '88-1402') or leave it out: a bare number (a year, "
     "part of a phone or account number) is read as a value to fill"),
    (re.compile(r"^.+ fits no parameter of "),
     "drop the value: the workflow has no parameter of its type"),
    (re.compile(r"^.+ could fill (?P<labels>.*)$"),
     "put a word of the intended parameter's label next to the value ('a nightly price of $120')"),
    (re.compile(r"^the words name several values of "),
     "say one value of that choice, not several"),
    (re.compile(r"^it says when in words"),
     "drop the words that say when: the proposer then adds the date itself"),
    (re.compile(r"^it says how many in words"),
     "write the number as digits (2 guests) so it fills the parameter, or drop the words that say how many"),
    (re.compile(r"^it says how much in words"),
     "write the amount ($100) so it fills the parameter, or drop the words that say how much"),
    (re.compile(r"^it says what to write in words"),
     "quote the text to write ('See you on Tuesday') so it fills the parameter, or drop the words about it"),
    (re.compile(r"^it mentions .* without a slot or a value"),
     "give that parameter a slot or a value in the phrasing, or reword it without the label's words"),
    (re.compile(r"^it asks to keep the rest"),
     "drop 'keep everything else': the proposer says every other value itself"),
    (re.compile(r"^a read phrasing is grounded as a lookup"),
     "rewrite it as a lookup of one field of one row named by slots ('What is the balance of {account}?') or "
     "drop it: counts, totals and questions without slots are asked by the proposer itself"),
    (re.compile(r"^its slots do not name one row"),
     "let its slots name one row, each by a different field"),
    (re.compile(r"^it asks for \d+ fields of "),
     "name exactly one field of the row by its label ('balance', 'due date')"),
]


def phrasing_warnings(loaded: LoadedSeed, spec: Spec) -> list[str]:
    """One `file:line: key: message` warning per seed phrasing the proposer will not use."""
    from factory.tasks.language.intents import unusable_phrasings  # the language package loads only here

    tasks = {t.name: ti for ti, t in enumerate(loaded.seed.tasks)}
    warned: set[tuple[int, int]] = set()
    warnings: list[str] = []
    for intent, phrasing, why in unusable_phrasings(spec):
        ti = tasks.get(intent)
        if ti is None:
            continue
        # the same text twice in one task: each occurrence once
        pi = next((i for i, p in enumerate(loaded.seed.tasks[ti].phrasings) if p == phrasing and (ti, i) not in warned),
                  None)
        if pi is None:
            continue
        warned.add((ti, pi))
        advice = next((say for pattern, say in _ADVICE if pattern.search(why)), None)
        fix = f"; fix: {advice}" if advice else ""
        warnings.append(str(loaded.error(("tasks", ti, "phrasings", pi),
                                         f"the task proposer will not use {phrasing!r}: {why}{fix}")))
    return warnings
