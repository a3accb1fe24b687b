"""The answer-case table: systematic READ answers that must score 1 or 0, built from the rules.

Every kind is generated the same way (docs/answers.md):

- must score 1: each of several expected values × each accepted written form of it × each
  wrapper phrase a person puts around an answer;
- must score 0: each expected value × each voiding wrapper (comparatives, hedges, ranges,
  arithmetic, negation, a second candidate, code), and each wrong value written in an accepted
  form inside an accepting wrapper.

Nothing here is copied from a built world; the values only look like the worlds' values.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    """One answer to grade: the check it is graded by, and whether it must score 1."""

    kind: str
    expected: object
    answer: str
    scores: bool
    rule: str  # the rule (or wrapper) that decides it, for the test id
    options: dict[str, object] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.expected}:{int(self.scores)}:{self.rule}:{self.answer}"[:160]


def _wrap(wrappers: list[str], forms: list[str]) -> Iterator[tuple[str, str]]:
    for wrapper in wrappers:
        for form in forms:
            yield wrapper, wrapper.format(v=form)


# ---------------------------------------------------------------- numbers ----------------------
_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def number_words(n: int) -> list[str]:
    """The ways a person spells a whole number below a thousand."""
    if n < 20:
        return [_ONES[n]]
    if n < 100:
        tens, ones = divmod(n, 10)
        return [_TENS[tens] + (f"-{_ONES[ones]}" if ones else "")]
    hundreds, rest = divmod(n, 100)
    head = [f"{_ONES[hundreds]} hundred"] + (["a hundred"] if hundreds == 1 else [])
    if not rest:
        return head
    return [f"{h} {r}" for h in head[:1] for r in number_words(rest)] + [
        f"{head[-1]} and {r}" for r in number_words(rest)]


def number_forms(n: int) -> list[str]:
    forms = [str(n)]
    if n >= 1000:
        forms.append(f"{n:,}")
    if n < 1000:
        forms += number_words(n)[:2]
    return forms


NUMBER_VALUES = [1, 3, 12, 56, 100, 137, 1234]
NUMBER_ACCEPT = [
    "{v}", "{v}.", "It's {v}.", "The answer is {v}.", "There are {v} of them.", "Total: {v}",
    "{v} in total (2 in inbox, 1 archived)", "You have {v} bills due.", "exactly {v}",
    "In total, {v}.", "{v} messages", "Answer: {v}", "{v} (as of June 5, 2026)", "I count {v}.",
]
NUMBER_VOID = [
    "more than {v}", "fewer than {v}", "less than {v}", "at least {v}", "at most {v}",
    "over {v}", "under {v}", "about {v}", "approximately {v}", "around {v}", "roughly {v}",
    "nearly {v}", "almost {v}", "no more than {v}", "not {v}", "It isn't {v}.", "{v}?",
    "maybe {v}", "probably {v}", "I think {v}", "~{v}", "\u2248{v}", "<{v}", "> {v}", "{v}+",
    "{v} or more", "{v} or so", "{v}-ish", "{v} at most", "between {v} and {w}", "{v} or {w}",
    "{v}, {w}", "{v} to {w}", "{v}-{w}", "{v} (or {w})", "{v}+1", "{v}*2", "{v} minus 1",
    "' OR {v}={v}; --", "{v}; DROP TABLE bill", "{v} (I guess)", "{v}, give or take",
    "{v} or {v}0", "some {v}", "{v} and counting", "up to {v}", "{v} (at least)",
]


def number_cases() -> Iterator[Case]:
    for n in NUMBER_VALUES:
        for wrapper, answer in _wrap(NUMBER_ACCEPT, number_forms(n)):
            yield Case("number", n, answer, True, wrapper)
        for wrapper in NUMBER_VOID:
            yield Case("number", n, wrapper.format(v=n, w=n + 1), False, wrapper)
        for wrapper, answer in _wrap(NUMBER_ACCEPT[:6], number_forms(n + 1)[:2]):
            yield Case("number", n, answer, False, f"wrong value in {wrapper}")
    for n in (1, 6):  # arithmetic that happens to equal the value is no answer
        for expression in ("1+1", "2*3", "7-1", "12/2", "3 x 2", "half of 12"):
            yield Case("number", n, expression, False, "arithmetic")


# ---------------------------------------------------------------- money ------------------------
def money_forms(amount: float) -> list[str]:
    whole = amount.is_integer()
    forms = [f"${amount:,.2f}", f"{amount:,.2f}", f"USD {amount:,.2f}", f"{amount:.2f} dollars",
             f"{amount:,.2f} USD", f"US$ {amount:,.2f}"]
    if whole:
        forms += [f"${int(amount):,}", f"{int(amount)} dollars"]
        if amount < 100:
            forms.append(f"{number_words(int(amount))[0]} dollars")
    elif f"{amount:.2f}".endswith("0"):
        forms.append(f"${amount:,.1f}")
    return forms


MONEY_VALUES = [0.99, 5.0, 20.0, 169.77, 1234.5, 1_000_000.0]
MONEY_ACCEPT = ["{v}", "The total is {v}.", "It's {v}.", "{v} in total",
                "You paid {v} on June 5, 2026.", "Balance: {v}", "{v} (as of today)"]
MONEY_VOID = [
    "more than {v}", "less than {v}", "at least {v}", "at most {v}", "over {v}", "under {v}",
    "about {v}", "approximately {v}", "around {v}", "roughly {v}", "nearly {v}", "not {v}",
    "{v}?", "maybe {v}", "probably {v}", "I think it's {v}", "~{v}", "<{v}", "{v}+",
    "{v} or more", "{v} or so", "between {v} and {w}", "{v} or {w}", "{v}, {w}", "{v} to {w}",
    "{v} (or {w})", "{v} plus tax", "{v} per month", "' OR 1=1; -- {v}", "{v} minus fees",
    "{v}, give or take", "up to {v}", "no more than {v}",
]


def money_cases() -> Iterator[Case]:
    for amount in MONEY_VALUES:
        forms = money_forms(amount)
        for wrapper, answer in _wrap(MONEY_ACCEPT, forms):
            yield Case("money", amount, answer, True, wrapper)
        other = f"${amount + 1.37:,.2f}"
        for wrapper in MONEY_VOID:
            yield Case("money", amount, wrapper.format(v=forms[0], w=other), False, wrapper)
        for wrapper, answer in _wrap(MONEY_ACCEPT[:3], money_forms(round(amount + 0.01, 2))[:3]):
            yield Case("money", amount, answer, False, f"one cent off in {wrapper}")
        for foreign in (f"\u20ac{amount:,.2f}", f"{amount:,.2f} euros", f"\u00a3{amount:,.2f}",
                        f"-{forms[0]}"):
            yield Case("money", amount, foreign, False, "another currency or sign")


# An amount in another currency (`currency` on the check): its own marks score, a dollar sign
# (or a third currency's mark) voids it; the symbol, the code, the unit words and the minor unit.
FOREIGN = {
    "EUR": (lambda v: [f"\u20ac{v:,.2f}", f"{v:,.2f} EUR", f"EUR {v:,.2f}", f"{v:.2f} euros",
                       f"{v:,.2f}"], ["$", "\u00a3"]),
    "GBP": (lambda v: [f"\u00a3{v:,.2f}", f"{v:,.2f} GBP", f"{v:.2f} pounds", f"{v:,.2f}"],
            ["$", "\u20ac"]),
    "CAD": (lambda v: [f"CA${v:,.2f}", f"${v:,.2f}", f"{v:,.2f} CAD", f"{v:.2f} dollars"],
            ["US$", "\u20ac"]),
}


def foreign_money_cases() -> Iterator[Case]:
    for code, (forms_of, foreign_marks) in FOREIGN.items():
        options: dict[str, object] = {"currency": code}
        for amount in (0.5, 14.0, 1234.5):
            forms = forms_of(amount)
            for wrapper, answer in _wrap(MONEY_ACCEPT, forms):
                yield Case("money", amount, answer, True, f"{code} {wrapper}", options)
            for wrapper in MONEY_VOID[:12]:
                yield Case("money", amount, wrapper.format(v=forms[0], w=""), False, f"{code} {wrapper}", options)
            for mark in foreign_marks:
                yield Case("money", amount, f"{mark}{amount:,.2f}", False, f"{code} in {mark}", options)
            yield Case("money", amount, forms_of(round(amount + 0.01, 2))[0], False, f"{code} a cent off", options)
    yield Case("money", 0.5, "50p", True, "GBP pence", {"currency": "GBP"})
    yield Case("money", 3.2, "3 pounds 20p", True, "GBP pounds and pence", {"currency": "GBP"})
    yield Case("money", 12.5, "12 euros and 50 cents", True, "EUR euros and cents", {"currency": "EUR"})
    yield Case("money", 12.5, "12.50 dollars", False, "EUR in dollars", {"currency": "EUR"})
    for said, value in (("12,50 €", 12.5), ("€12,50", 12.5), ("1.234,50 EUR", 1234.5), ("It costs 3,20 euros.", 3.2)):
        yield Case("money", value, said, True, "EUR decimal comma", {"currency": "EUR"})
    yield Case("money", 12.5, "12,50", False, "a decimal comma only in euros", {})
    yield Case("money", 1250.0, "1,250", True, "a thousands comma in euros too", {"currency": "EUR"})


# ---------------------------------------------------------------- dates ------------------------
def date_forms(iso: str) -> list[str]:
    day = dt.date.fromisoformat(iso)
    month, short = f"{day:%B}", f"{day:%b}"
    suffix = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}.get(day.day, "th")
    return [iso, f"{month} {day.day}, {day.year}", f"{short} {day.day} {day.year}",
            f"{short}. {day.day}{suffix}, {day.year}", f"{day.day} {month} {day.year}",
            f"the {day.day}{suffix} of {month}, {day.year}", f"{day:%m/%d/%Y}",
            f"{day.month}/{day.day}/{day:%y}", f"{day:%A}, {month} {day.day}, {day.year}",
            f"{month} {day.day}", f"{short} {day.day}{suffix}", f"{day.year}/{day:%m}/{day:%d}"]


DATE_VALUES = ["2026-06-05", "2026-01-31", "2025-12-25", "2026-03-01", "2026-11-09"]
DATE_ACCEPT = ["{v}", "It was due on {v}.", "The date is {v}.", "On {v}.", "Due: {v}",
               "{v} at 10:30", "{v} (the day of the meeting)"]
DATE_VOID = [
    "before {v}", "after {v}", "by {v}", "around {v}", "on or before {v}", "no later than {v}",
    "sometime after {v}", "not {v}", "{v}?", "maybe {v}", "probably {v}", "I think {v}",
    "{v} or {w}", "{v} or later", "between {v} and {w}", "{v} to {w}", "{v}, {w}",
    "{v} (or {w})", "{v}, give or take a day", "until {v}", "since {v}", "{v} at the latest",
    "' OR 1=1 -- {v}", "either {v} or {w}",
]


def date_cases() -> Iterator[Case]:
    for iso in DATE_VALUES:
        day = dt.date.fromisoformat(iso)
        forms = date_forms(iso)
        for wrapper, answer in _wrap(DATE_ACCEPT, forms):
            yield Case("date", iso, answer, True, wrapper)
        other = date_forms((day + dt.timedelta(days=1)).isoformat())[1]
        for wrapper in DATE_VOID:
            yield Case("date", iso, wrapper.format(v=forms[1], w=other), False, wrapper)
        for delta in (1, -1, 365):
            wrong = (day + dt.timedelta(days=delta)).isoformat()
            for form in date_forms(wrong)[:4]:
                yield Case("date", iso, f"It was due on {form}.", False, f"{delta:+} day(s)")
        wrong_weekday = (day + dt.timedelta(days=1)).strftime("%A")
        yield Case("date", iso, f"{wrong_weekday}, {forms[1]}", False, "wrong weekday")
        if day.day <= 12 and day.day != day.month:
            yield Case("date", iso, f"{day:%d/%m/%Y}", False, "day-first is read month-first")


# ---------------------------------------------------------------- yes / no ---------------------
YES_FORMS = ["yes", "Yes", "YES", "Yep", "Yeah", "True", "Correct", "That's right",
             "Yes, it is", "Yes, it's locked", "Definitely yes", "Absolutely", "Of course",
             "It is true"]
NO_FORMS = ["no", "No", "NO", "Nope", "False", "Incorrect", "No, it isn't",
            "No, it is not locked", "No, never", "That's wrong", "It's false", "Nah"]
# One-letter replies are read only as the whole answer: inside a sentence "y" is any letter.
ALONE = {True: ["y", "Y"], False: ["n", "N"]}
BOOL_ACCEPT = ["{v}", "{v}.", "{v}!", "Answer: {v}", "{v} (checked today)", "Well, {v}"]
BOOL_VOID = ["not {v}", "{v}?", "maybe {v}", "probably {v}", "I think {v}", "{v}, I guess",
             "{v} and {o}", "{v} or {o}", "{o} or {v}", "{v}/{o}", "' OR 1=1 -- {v}",
             "{v}, not sure", "I would not say {v}", "{v}... just kidding", "{v}, {o}"]
BOOL_NEGATED_YES = ["Not true", "That is not correct", "I would not say yes", "It isn't true",
                    "Not yes", "That's not right", "Absolutely not", "Certainly not",
                    "not correct", "Yes, that's wrong", "yes and no", "It depends",
                    "maybe", "Yes? No?", "I don't know"]


def bool_cases() -> Iterator[Case]:
    for value, forms, opposite in ((True, YES_FORMS, NO_FORMS), (False, NO_FORMS, YES_FORMS)):
        for wrapper, answer in _wrap(BOOL_ACCEPT, forms):
            yield Case("bool", value, answer, True, wrapper)
        flip = "no" if value else "yes"
        for wrapper in BOOL_VOID:
            for form in forms[:6]:
                yield Case("bool", value, wrapper.format(v=form, o=flip), False, wrapper)
        for wrapper, answer in _wrap(BOOL_ACCEPT[:3], opposite):
            yield Case("bool", value, answer, False, f"opposite in {wrapper}")
        for answer in BOOL_NEGATED_YES:
            yield Case("bool", value, answer, False, "negated or both")
        for letter in ALONE[value]:
            yield Case("bool", value, letter, True, "one letter")
            yield Case("bool", value, f"Answer: {letter}", False, "one letter in a sentence")
            yield Case("bool", not value, letter, False, "one letter, opposite")


# ---------------------------------------------------------------- text -------------------------
# (expected, aliases, the ways it is written that must match, another value of its kind)
TEXT_VALUES: list[tuple[str, list[str], list[str], str]] = [
    ("friend", [], ["friend", "Friend", "FRIEND"], "colleague"),
    ("suspicious activity", ["suspicious_activity"],
     ["suspicious activity", "Suspicious Activity", "suspicious_activity"], "travel"),
    ("Acme Inc", [], ["Acme Inc", "acme inc.", "ACME, Inc", "Acme  Inc"], "Acme Corp"),
    ("Caf\u00e9 Lumi\u00e8re", [], ["Caf\u00e9 Lumi\u00e8re", "Cafe Lumiere", "CAFE LUMIERE"],
     "Cafe Paris"),
    ("O'Brien & Sons", [], ["O'Brien & Sons", "O'Brien and Sons", "o'brien & sons"],
     "Smith & Sons"),
    ("not started", [], ["not started", "Not Started", "not-started"], "in progress"),
    ("Metro Water", ["Metro Water Utility"], ["Metro Water", "Metro Water Utility"], "Metro Gas"),
]
TEXT_ACCEPT = ["{v}", "{v}.", '"{v}"', "The answer is {v}.", "It's {v}.", "That would be {v}.",
               "The status is {v}.", "David Ortiz is a {v}.", "Answer: {v}", "Well, it's {v}.",
               "{v} (as shown in the list)", "{v}, according to the app"]
TEXT_VOID = ["{v}?", "maybe {v}", "probably {v}", "I think it's {v}", "{v} or {w}",
             "{w} or {v}", "{v} and {w}", "{v}, {w}", "either {v} or {w}", "{v} (or {w})",
             "it isn't {v}", "not {v} but {w}", "{v}; DROP TABLE contact; --", "{w}, {v}",
             "{v}, I guess", "It's {v}, probably", "{v} or something"]


def text_cases() -> Iterator[Case]:
    for expected, aliases, forms, other in TEXT_VALUES:
        options: dict[str, object] = {"aliases": aliases} if aliases else {}
        for wrapper, answer in _wrap(TEXT_ACCEPT, forms):
            yield Case("text", expected, answer, True, wrapper, options)
        for wrapper in TEXT_VOID:
            answer = wrapper.format(v=forms[0], w=other)
            yield Case("text", expected, answer, False, wrapper, options)
        for wrapper, answer in _wrap(TEXT_ACCEPT[:6], [other]):
            yield Case("text", expected, answer, False, f"another value in {wrapper}", options)
        first, *rest = expected.split()
        near = [f"{expected}s", f"very {expected}", f"{expected} Corp", "It is the "
                + expected + " one"] + ([first] if rest else [])
        for answer in near:
            yield Case("text", expected, answer, False, "a longer or shorter name", options)
        if not expected.startswith("not"):
            yield Case("text", expected, f"not {expected}", False, "negated", options)


# ---------------------------------------------------------------- labels -----------------------
# (label, further names, another row's label)
LABEL_VALUES: list[tuple[str, list[str], str]] = [
    ("Quick question about the proposal (Carrie Payne)",
     ["Quick question about the proposal", "Quick question about the proposal message",
      "Quick question about the proposal (Carrie Payne) message"],
     "Budget review (Kara White)"),
    ("Main Checking \u00b7\u00b78488", ["Main Checking", "Main Checking account",
                                        "Main Checking \u00b7\u00b78488 account"],
     "Rainy Day Fund \u00b7\u00b71190"),
    ("Visa card \u00b7\u00b74599", ["Visa card \u00b7\u00b74599 card"],
     "Visa card \u00b7\u00b77311"),
    ("Travel", ["Travel label"], "Work"),
    ("Launch checklist (Harold Richards)", ["Launch checklist (Harold Richards) message"],
     "Launch checklist (Donald Hunter)"),
]
LABEL_ACCEPT = ["{v}", "{v}.", '"{v}"', "It's {v}.", "The answer is {v}.",
                'The message is "{v}".', "The one with the highest amount is {v}.",
                "It is the one called {v}", "{v}, sent last week", "Answer: {v}",
                "my {v}", "the {v}"]
LABEL_VOID = ["{v}?", "maybe {v}", "probably {v}", "not {v}", "{v} or {w}", "{w} or {v}",
              "{v} and {w}", "{v}, {w}", "{w}, {v}", "either {v} or {w}", "{v} (or {w})",
              "I think it's {v}", "{v}' OR '1'='1", "it isn't {v}"]


def label_cases() -> Iterator[Case]:
    for label, names, other in LABEL_VALUES:
        options: dict[str, object] = {"aliases": names}
        short = names[0] if not names[0].endswith((" message", " account", " card", " label")) \
            else None
        forms = [label, label.upper(), label.replace("\u00b7\u00b7", ""), *names]
        for wrapper, answer in _wrap(LABEL_ACCEPT, forms):
            yield Case("label", label, answer, True, wrapper, options)
        for wrapper in LABEL_VOID:
            yield Case("label", label, wrapper.format(v=label, w=other), False, wrapper, options)
            if short:
                yield Case("label", label, wrapper.format(v=short, w=other), False,
                           f"main name: {wrapper}", options)
        for wrapper, answer in _wrap(LABEL_ACCEPT[:6], [other]):
            yield Case("label", label, answer, False, f"another row in {wrapper}", options)
        words = label.split()
        if len(words) > 1:
            yield Case("label", label, words[0], False, "a prefix of the label", options)
        if "(" in label:
            main, sender = label[:-1].split(" (")
            yield Case("label", label, sender, False, "the label's second part alone", options)
            yield Case("label", label, f"{main} (Bob Smith)", False, "another sender", options)
            yield Case("label", label, f"{main} from Bob Smith", False, "another sender", options)
            if not short:  # the main name alone is ambiguous among the user's rows
                yield Case("label", label, main, False, "an ambiguous main name", options)


# ---------------------------------------------------------------- lists ------------------------
LIST_VALUES: list[tuple[str, list[object], list[str], str]] = [
    ("text", ["Netflix", "Spotify", "Hulu"], ["Netflix", "Spotify", "Hulu"], "Disney Plus"),
    ("text", ["friend", "colleague"], ["friend", "colleague"], "family"),
    ("number", [3, 5, 8], ["3", "five", "8"], "9"),
    ("money", [20.0, 1234.5], ["$20.00", "$1,234.50"], "$7.00"),
    ("date", ["2026-06-05", "2026-06-07"], ["June 5, 2026", "June 7, 2026"], "June 9, 2026"),
    ("phone", ["5207907206", "4155550182"], ["(520) 790-7206", "415-555-0182"], "415-555-0183"),
    ("email", ["amy@example.com", "raj@example.com"], ["Amy@example.com", "raj@example.com"],
     "lena@example.com"),
]


def _joined(items: list[str]) -> dict[str, str]:
    head, last = items[:-1], items[-1]
    return {
        "commas": ", ".join(items), "and": f"{', '.join(head)} and {last}",
        "oxford": f"{', '.join(head)}, and {last}" if len(items) > 2 else f"{head[0]} and {last}",
        "semicolons": "; ".join(items), "lines": "\n".join(items),
        "bullets": "\n".join(f"- {i}" for i in items),
        "numbered": "\n".join(f"{n}. {i}" for n, i in enumerate(items, 1)),
        "json": "[" + ", ".join(f'"{i}"' for i in items) + "]",
        "reversed": ", ".join(reversed(items)), "repeated": ", ".join(items + items[:1]),
        "they are": f"They are {', '.join(head)} and {last}.",
        "the answer is": f"The answer is: {'; '.join(items)}",
    }


def list_cases() -> Iterator[Case]:
    for item_kind, expected, items, other in LIST_VALUES:
        options: dict[str, object] = {"item_kind": item_kind}
        joined = _joined(items)
        for how, answer in joined.items():
            yield Case("list", expected, answer, True, how, options)
        head, last = items[:-1], items[-1]
        void = {
            "a missing item": ", ".join(items[:-1]),
            "an extra item": ", ".join([*items, other]),
            "a wrong item": ", ".join([*head, other]),
            "or": f"{', '.join(head)}, or {last}",
            "maybe": f"{', '.join(head)} and maybe {last}",
            "hedged item": f"{', '.join(head)}, {last}?",
            "etc": f"{', '.join(items)}, etc.",
            "negated item": f"{', '.join(head)}, not {last}",
            "bracketed doubt": f"{', '.join(items)} (I think)",
            "code": f"{', '.join(items)}; DROP TABLE x; --",
            "only one": items[0],
            "others too": f"{', '.join(items)} and others",
        }
        for how, answer in void.items():
            yield Case("list", expected, answer, False, how, options)
        for how, answer in joined.items():
            swapped = answer.replace(items[0], other)
            yield Case("list", expected, swapped, False, f"wrong item, {how}", options)


# ---------------------------------------------------------------- phone / email ----------------
def nanp_forms(digits: str) -> list[str]:
    a, b, c = digits[:3], digits[3:6], digits[6:]
    return [f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"+1 {a} {b} {c}", f"{a}.{b}.{c}", digits,
            f"1-{a}-{b}-{c}", f"+1 ({a}) {b}-{c}", f"001-{a}-{b}-{c}", f"{a} {b} {c}"]


# (expected as stored, its national digits, its extension)
PHONE_VALUES = [("5207907206", "5207907206", ""), ("520-790-7206 x229", "5207907206", "229"),
                ("001-697-793-6745x11982", "6977936745", "11982"),
                ("(415) 555-0182", "4155550182", ""), ("+1-364-207-9812x229", "3642079812", "229")]
EXTENSIONS = ["ext. {e}", "extension {e}", "x{e}", "#{e}", "ext {e}"]
CONTACT_ACCEPT = ["{v}", "{v}.", "Call {v}.", "Her phone is {v}.", "{v} (mobile)",
                  "Phone: {v}", "It's {v}", "You can reach them at {v}"]
CONTACT_VOID = ["not {v}", "{v}?", "maybe {v}", "probably {v}", "{v} or {w}", "{v}, {w}",
                "{w} or {v}", "either {v} or {w}", "{v} (or {w})", "I think it's {v}",
                "{v}' OR 1=1 --", "it isn't {v}", "{v}, I guess"]


def phone_cases() -> Iterator[Case]:
    for stored, digits, ext in PHONE_VALUES:
        forms = nanp_forms(digits)
        if ext:
            written = [f"{f} {e.format(e=ext)}" for f in forms for e in EXTENSIONS[:2]]
            written += [f"{forms[1]} {e.format(e=ext)}" for e in EXTENSIONS[2:]]
        else:
            written = forms
        for wrapper, answer in _wrap(CONTACT_ACCEPT, written[:9]):
            yield Case("phone", stored, answer, True, wrapper)
        other_digits = digits[:-1] + str((int(digits[-1]) + 1) % 10)
        other = nanp_forms(other_digits)[0] + (f" ext. {ext}" if ext else "")
        for wrapper in CONTACT_VOID:
            yield Case("phone", stored, wrapper.format(v=written[0], w=other), False, wrapper)
        for form in nanp_forms(other_digits)[:4]:
            yield Case("phone", stored, form + (f" x{ext}" if ext else ""), False, "another number")
        yield Case("phone", stored, written[0].replace(ext, "230") if ext else f"{forms[0]} x12",
                   False, "another extension")
        if ext:
            yield Case("phone", stored, forms[0], False, "the extension left out")
        yield Case("phone", stored, f"{digits[3:6]}-{digits[6:]}", False, "no area code")
        yield Case("phone", stored, f"+44 {digits}", False, "another country")


EMAIL_VALUES = ["carrie.payne@example.com", "kara_white@echomail.example",
                "Newsletter@Digest.example", "o'brien+bills@mail.co.uk"]


def email_cases() -> Iterator[Case]:
    for stored in EMAIL_VALUES:
        local, domain = stored.split("@")
        forms = [stored, stored.lower(), stored.upper(), f"{local.title()}@{domain}",
                 f"mailto:{stored}", f"<{stored}>", f"Carrie Payne <{stored}>"]
        for wrapper, answer in _wrap(CONTACT_ACCEPT, forms):
            yield Case("email", stored, answer, True, wrapper)
        other = f"{local}1@{domain}"
        for wrapper in CONTACT_VOID:
            yield Case("email", stored, wrapper.format(v=stored, w=other), False, wrapper)
        tld = domain.rsplit(".", 1)[0]
        squeezed = f"{local.replace('.', '')}@{domain}" if "." in local else f"{local}.x@{domain}"
        for wrong in (other, f"{local}@{tld}", f"{local}@{domain}.au", f"x{local}@{domain}",
                      squeezed, f"{local} at {domain}", local):
            yield Case("email", stored, f"Her email is {wrong}.", False, "another address")


# ---------------------------------------------------------------- hand-written adversaries -----
# Answers invented to break the rules, in both directions (kind, expected, must score, answers,
# options). Kept apart from the generated table: each one is a probe someone might try.
QUICK_NAMES = ["Quick question about the proposal", "Quick question about the proposal message"]
ADVERSARIAL: list[tuple[str, object, bool, list[str], dict[str, object]]] = [
    ('number', 56, True, [
        '56', 'Fifty-six.', 'The count is 56', '56 total', '56 of them are unread', 'I found 56.',
        '56 (fifty-six)', "It's 56 - I checked", '56 bills, all due in June', 'So, 56.',
        '56 messages; 3 are starred', 'Result: 56', '56\n', "'56'", 'The number of bills is 56.',
        'You have fifty-six', 'There are exactly 56.', '56!', '56 messages match.',
     ], {}),
    ('number', 56, False, [
        '56.5', '5 6', '056?', '56%?', '≥56', '56 or fewer', 'maybe 56, maybe 57',
        '56 if you count drafts', '56 (approx.)', '~ 56', '56ish', 'about fifty-six',
        '56 give or take', 'not 56', '56 is wrong', '55 + 1', '112 / 2', '56 or 57', '56–57',
        '56 to 60', '56, 57 or 58', 'either 56 or 57', 'sum(56)', 'SELECT 56', '56 -- comment',
        '56/*x*/', '{56}', '56 == 56', 'between fifty and sixty', '5,6', '56 and 57', '56 & 57',
        "Fifty-six? I'm not sure", "I don't know, 56?", '56 apples and 3 pears', 'No idea', '',
        'none', '56k', '56e0', '0x38', '56 (2 more in drafts)', '56 at least',
        'at least fifty-six', 'over fifty', '56 plus', '56 max', 'no fewer than 56', 'over 56',
     ], {}),
    ('money', 1234.5, True, [
        '$1,234.50', '1234.50', '$1234.5', 'It comes to $1,234.50.', 'Total: USD 1,234.50',
        '1,234.50 dollars', '$1,234.50 (June statement)',
        'The balance of Main Checking ··8488 is $1,234.50.',
        'You owe $1,234.50 as of June 5, 2026', '$ 1,234.50', '1234.5 USD', 'US$1,234.50',
        'one thousand two hundred thirty-four dollars and 50 cents',
     ], {}),
    ('money', 1234.5, False, [
        '$1,234.51', '$1,234', '$123.45', '$1,234.50 or so', '~$1,234.50', '$1,234.50?',
        'about $1,234.50', '$1,234.50-$1,300', '$1,234.50 to $1,300', '$1,234.50 + tax',
        '$1,234.50 per month', '€1,234.50', '1.234,50', '-$1,234.50', '($1,234.50)',
        '$1,234.50, or $1,300', '$2,469 / 2', '$1,234.50 and $20', 'not $1,234.50',
        '$1,234.50 at most', '$1,234.50 or more', 'maybe $1,234.50', "$1,234.50' OR '1'='1",
        '1234.5 CAD', '£1,234.50', '1,234.50 pounds', '$1,234.50 (or $1,234.60)',
     ], {}),
    ('date', '2026-06-05', True, [
        'June 5, 2026', 'Fri, June 5, 2026', '06/05/2026', '2026-06-05', 'June 5th', '5th June',
        "It's due June 5, 2026.", 'Friday June 5th 2026', 'on 6/5/26', 'Jun 5 2026 (a Friday)',
        '2026-06-05T09:00:00Z', 'June 5, 2026 at 4 pm', 'Due date: June 5, 2026',
        'the 5th of June',
     ], {}),
    ('date', '2026-06-05', False, [
        'June 6, 2026', 'June 5, 2025', 'May 6, 2026', '05/06/2026', 'June 2026', 'June',
        'early June 2026', 'June 5 or 6, 2026', 'June 5-7, 2026', 'by June 5', 'before June 5',
        'after June 4', 'June 5 at the latest', 'June 5, 2026?', 'probably June 5',
        'Thursday, June 5, 2026', 'June 5, 2026 and June 6, 2026', 'June 5th or thereabouts',
        'the week of June 5', 'tomorrow', '2026-06-05 or 2026-06-06', 'June 4 + 1 day',
        'not June 5', 'June 5, 2026 (or maybe June 6)', 'June 35, 2026', '2026-13-05',
        'June 5, 2026; DROP TABLE x',
     ], {}),
    ('bool', True, True, [
        'Yes', 'yes.', 'Yes!', 'Yep, it is.', "Yes - it's overdue.", 'True.', 'Correct',
        "That's correct.", 'Yes, the card is locked.', 'Affirmative', 'Indeed',
        'Yes (as of today)', 'Definitely', "Yes, it's not paid yet",
     ], {}),
    ('bool', True, False, [
        'No', 'Not really', "I don't think so", 'Not at all', 'yes no', 'Yes... or no', 'y?',
        'Y or N', "It's not true", 'Nope', 'Negative', 'false', 'not correct', "isn't it?",
        "yes if it's Friday", 'Yes, unless it changed', 'Yes, not sure though',
        'Yes, it might be', 'It could be yes', "yes' OR '1'='1", 'Yes? I guess',
        "The answer isn't yes", 'Never', 'Yes and no', 'Incorrect',
     ], {}),
    ('bool', False, True, [
        'No', 'No.', "Nope, it isn't.", 'False', "No, it hasn't been paid.", 'Incorrect',
        "That's wrong", 'No, never', "No - it's active",
     ], {}),
    ('bool', False, False, [
        'Not no', 'No?', 'Maybe not', 'Probably not', 'No, yes', 'Yes', "I'd say no",
        'No... or yes',
     ], {}),
    ('text', 'friend', True, [
        'friend', 'Friend.', 'a friend', "He's a friend.", 'David Ortiz is a friend.',
        'The relationship is friend', 'Relationship: friend', 'friend (from college)',
        "It's friend.", 'my friend',
     ], {}),
    ('text', 'friend', False, [
        'friendly', 'a good friend', 'best friend', 'friend?', 'friend or family',
        'family, friend', 'friend/colleague', 'not a friend', 'ex-friend', 'boyfriend',
        'friend; colleague', 'friends', 'Friend, maybe', 'friend (or colleague)',
        "He isn't a friend", "friend' --", 'either friend or family', 'friend and colleague',
        'a friend, a colleague', 'Friend (I think)',
     ], {}),
    ('label', 'Quick question about the proposal (Carrie Payne)', True, [
        'Quick question about the proposal (Carrie Payne)', 'quick question about the proposal',
        'The message "Quick question about the proposal" from Carrie Payne',
        'It\'s "Quick question about the proposal".',
        'Quick question about the proposal - Carrie Payne',
        'Subject: Quick question about the proposal',
     ], {'aliases': ['Quick question about the proposal']}),
    ('label', 'Quick question about the proposal (Carrie Payne)', False, [
        'Quick question', 'Carrie Payne', 'Quick question about the proposal (Bob)',
        'Quick question about the proposal from Bob', 'Quick question about the proposals',
        'Another quick question about the proposal',
        'Quick question about the proposal or Budget review',
        'Re: Quick question about the proposal', 'Quick question about the proposal?',
        'not Quick question about the proposal', 'Budget review (Kara White)',
     ], {'aliases': ['Quick question about the proposal']}),
    ('phone', '520-790-7206 x229', True, [
        '(520) 790-7206 ext. 229', '520.790.7206 x229', '+1 520 790 7206 extension 229',
        '5207907206 #229', 'Call (520) 790-7206, ext 229.', '520-790-7206x229',
     ], {}),
    ('phone', '520-790-7206 x229', False, [
        '(520) 790-7206', '(520) 790-7206 ext. 228', '790-7206 x229', '(520) 790-7207 x229',
        '(520) 790-7206 ext. 229 or ext. 230', '(520) 790-7206 x229?',
        'maybe (520) 790-7206 x229', '+44 520 790 7206 x229',
        '(520) 790-7206 ext. 229 / (520) 790-7207', '5207907206229',
     ], {}),
    ('email', 'carrie.payne@example.com', True, [
        'carrie.payne@example.com', 'CARRIE.PAYNE@EXAMPLE.COM', '<carrie.payne@example.com>',
        'Carrie Payne <carrie.payne@example.com>', 'Email: carrie.payne@example.com.',
        'mailto:Carrie.Payne@example.com',
     ], {}),
    ('email', 'carrie.payne@example.com', False, [
        'carrie.payne@example.org', 'carrie@example.com', 'carrie.payne@example.com.au',
        'carrie.payne@example', 'carrie.payne at example.com',
        'carrie.payne@example.com or carrie@example.com', 'carriepayne@example.com',
        'carrie.payne@example.com?', 'not carrie.payne@example.com', 'xcarrie.payne@example.com',
     ], {}),
    ('list', ['Netflix', 'Spotify'], True, [
        'Netflix and Spotify', 'Spotify, Netflix', 'Netflix & Spotify', 'netflix; spotify',
        'Both Netflix and Spotify',
     ], {'item_kind': 'text'}),
    ('list', ['Netflix', 'Spotify'], False, [
        'Netflix or Spotify', 'Netflix, Spotify, and maybe Hulu', 'Netflix',
        'Netflix, Spotify, Hulu', 'not Netflix, Spotify', 'Netflix and Spotify?',
        'Netflix and Spotify (among others)', 'Netflix/Spotify',
     ], {'item_kind': 'text'}),
    ('text', 'friend', False, [
        'friend or colleague or friend', 'friend question friend', 'friend, friend or family',
     ], {}),
    ('text', 'Carrie Payne', False, [
        'Carrie Payne (Bob Smith)', 'Carrie Payne (family)', 'Carrie Payne, Bob Smith',
        'Carrie Payne / Bob Smith', 'Carrie Payne & Bob Smith', 'Carrie Payne or Bob', 'Carrie',
        'Payne', 'Carrie Paynes', 'Mrs Carrie Payne Smith',
     ], {}),
    ('text', 'Carrie Payne', True, [
        'Carrie Payne', 'It was sent by Carrie Payne.', 'The sender is Carrie Payne (from Acme).',
        'carrie payne', 'CARRIE PAYNE', 'Carrie Payne, as listed', 'Sender: Carrie Payne',
     ], {}),
    ('number', 56, True, [
        '#56', '56 (and 3 drafts)', 'fifty-six (56)', '56 total, 57 with drafts',
     ], {}),
    ('number', 56, False, [
        '56\n57', '56 56', '55 → 56', 'It went from 55 to 56', '56th', '5.6e1',
     ], {}),
    ('bool', True, False, [
        'Yes (no)', "Yes, it's false", 'True, not false', 'yes.no', 'Yes it is not',
     ], {}),
    ('list', ['Netflix', 'Spotify'], False, [
        'Netflix, Spotify (and Hulu)', 'Netflix, Spotify (or Hulu)',
     ], {'item_kind': 'text'}),
    ('label', 'Quick question about the proposal (Carrie Payne)', True, [
        'QUICK QUESTION ABOUT THE PROPOSAL (CARRIE PAYNE)',
        'quick question about the proposal (carrie payne).',
        '“Quick question about the proposal”',
        'The answer is: Quick question about the proposal',
        "It's the message called Quick question about the proposal",
        'That would be Quick question about the proposal.',
        'Quick question about the proposal, sent by Carrie Payne',
        'Quick question about the proposal (Carrie Payne), from last week',
        'The quick question about the proposal message',
        'Message: Quick question about the proposal',
        "Well, it's Quick question about the proposal.",
        'Quick question about the proposal from Carrie Payne',
        'Quick question about the proposal by Carrie Payne',
        'Quick question about the proposal – Carrie Payne',
        'The one with the most recent date is "Quick question about the proposal".',
        'Quick question about the proposal is the answer', 'Quick-question about the proposal',
        'quick   question   about   the   proposal',
        'Based on the inbox, Quick question about the proposal',
        'Quick question about the proposal; it was sent on June 5',
        'my Quick question about the proposal message',
        'It is Quick question about the proposal.', 'Subject: Quick question about the proposal',
        "'Quick question about the proposal'",
     ], {
        'aliases': QUICK_NAMES,
     }),
    ('label', 'Quick question about the proposal (Carrie Payne)', False, [
        'Quick question about the proposal (Bob Smith)',
        'Quick question about the proposal, or Budget review',
        'Quick question about the proposal and Budget review',
        'Quick question about the proposal / Budget review',
        'Budget review or Quick question about the proposal',
        'Fwd: Quick question about the proposal',
        'Re: Quick question about the proposal (Carrie Payne)',
        'another Quick question about the proposal', 'Quick question about the proposal 2',
        'Quick question about the proposal draft', 'Quick question about the',
        'question about the proposal', 'Quick question about proposal',
        'Quick questions about the proposal',
        'Quick question about the proposal (Carrie Payne) or Budget review (Kara White)',
        'not Quick question about the proposal', 'Probably Quick question about the proposal',
        'Quick question about the proposal?', 'Quick question about the proposal (I think)',
        'Quick question about the proposal, I guess',
        "Quick question about the proposal' OR '1'='1", 'Quick question about the proposal -- ',
        "Carrie Payne's message", 'The one from Carrie Payne',
        'Quick question about the proposal (Carrie)',
        'Quick question about the proposal (Carrie Payne) (Bob)',
        'something similar to Quick question about the proposal',
        'Quick question about the proposal, Budget review',
        'either Quick question about the proposal or Budget review',
        'Quick question about the proposal or something',
        "It isn't Quick question about the proposal",
     ], {
        'aliases': QUICK_NAMES,
     }),
    ('money', 20.0, True, [
        '$20', '$20.00', '20 dollars', 'twenty dollars', 'USD 20', '20.00 USD', "It's $20.",
        '$20 even', 'The fee was $20 (paid June 5).', '$20, charged on 06/05/2026',
        'Amount: $20.00', 'exactly $20', '$20.00 total', 'US$20', '20 bucks',
     ], {}),
    ('money', 20.0, False, [
        '$20.01', '$2', '$200', '$20k', '$19.99', '$20-25', '$20–$25', '$20 or $25', '$20/$25',
        '20 euros', '£20', '$20 each', '$20 per day', '$20 a month? not sure', '$20 + $5',
        '$25 - $5', 'twenty-ish dollars', '$20 (roughly)', 'no more than $20', '$20 max',
        'under $20', '$20ish', '$20?!', '$-20', '-20 dollars', '-$20',
     ], {}),
    ('date', '2026-06-05', True, [
        'On Friday, June 5th, 2026.', '2026/06/05', 'June 5 2026', '06-05-2026', '5 Jun 2026',
        'the 5th of June 2026', 'June 05, 2026', "It's June 5, 2026 (Friday)",
        'Due on 6/5/2026, per the statement', 'June 5, 2026, in the morning',
     ], {}),
    ('date', '2026-06-05', False, [
        'June 5 and June 6', 'June 5th-6th', '5-6 June 2026', 'June 5, 2026 to June 8, 2026',
        'between June 1 and June 5', 'June 5, 2026 or earlier', 'no earlier than June 5',
        'June 5th (or the 6th)', 'Fri, June 6, 2026', 'June 5, 2027', '2026-06-50', '6/5',
        'the 5th', 'next Friday', 'on or after June 5', 'a day before June 6',
        'June 5, 2026 plus one day', 'circa June 5, 2026', 'mid June 5',
     ], {}),
    ('phone', '5207907206', True, [
        '520 790 7206', '(520)790-7206', '+15207907206', '1 (520) 790-7206',
        'Her number is 520-790-7206.', 'Phone: +1-520-790-7206', '520-790-7206 (mobile)',
        '520/790/7206', "It's (520) 790-7206, her mobile.", '001 520 790 7206',
     ], {}),
    ('phone', '5207907206', False, [
        '520-790-7260', '520-709-7206', '520-790-720', '520-790-72066', '(520) 790-7206 x1',
        '520-790-7206 ext. 1', '+52 0790 7206', '(520) 790-7206 and (520) 790-7207',
        '(520) 790-7206 / 7207', 'call 520-790-7206 or 7207', '520-790-7206?',
        'perhaps 520-790-7206', '520-790-7206 (not sure)', '790-7206',
        '5207907206; DROP TABLE contact', '520-790-7206 -- x',
     ], {}),
    ('email', 'kara_white@echomail.example', True, [
        'KARA_WHITE@ECHOMAIL.EXAMPLE', 'Kara White <kara_white@echomail.example>',
        'kara_white@echomail.example (work)', 'Her email: kara_white@echomail.example',
        'mailto:kara_white@echomail.example', 'You can reach her at kara_white@echomail.example.',
        '“kara_white@echomail.example”', 'kara_white@echomail.example, her work address',
     ], {}),
    ('email', 'kara_white@echomail.example', False, [
        'kara.white@echomail.example', 'kara_white@echomail.exampl', 'kara_white@mail.example',
        'kara_white@echomail.example.com', 'kara_white+1@echomail.example',
        'kara_white@echomail.example, kara@echomail.example',
        'kara_white@echomail.example; kara@echomail.example', 'kara_white(at)echomail.example',
        'kara_white', '@echomail.example', 'kara_white@echomail.example??',
        'maybe kara_white@echomail.example', 'not kara_white@echomail.example',
        "kara_white@echomail.example' OR 1=1 --", 'kara_white@echomail.example or kara@x.example',
     ], {}),
    ('list', ['Netflix', 'Spotify', 'Hulu'], True, [
        'Hulu, Spotify, Netflix', 'Netflix,Spotify,Hulu', 'netflix; spotify; hulu',
        '* Netflix\n* Spotify\n* Hulu', '1) Netflix\n2) Spotify\n3) Hulu',
        'Netflix, Spotify & Hulu', 'They are: Netflix, Spotify, Hulu', 'Netflix; Spotify; Hulu.',
        'NETFLIX, SPOTIFY, HULU', 'Netflix, Hulu, Spotify, Netflix',
     ], {'item_kind': 'text'}),
    ('list', ['Netflix', 'Spotify', 'Hulu'], False, [
        'Netflix, Spotify', 'Netflix, Spotify, Hulu, Disney Plus', 'Netflix, Spotify or Hulu',
        'Netflix, Spotify, maybe Hulu', 'Netflix, Spotify, Hulu?', 'Netflix, Spotify, Hulu, etc',
        'Netflix, Spotify, Hulu and more', 'Netflix, Spotify, Hulu (probably)',
        'Netflix Spotify Hulu', 'all of them', 'Netflix, Spotify, not Hulu',
        'Netflix, Spotify, Hulu; DROP TABLE x', 'Netflix, Spotify, Hulus',
        'Netflix, Spotify, Hulu Plus', 'Netflix and/or Spotify and/or Hulu',
        'Netflix, Spotify, Hulu or Disney',
     ], {'item_kind': 'text'}),
    ('list', [3, 5, 8], True, [
        '3, 5, 8', '8, 5 and 3', 'three, five, eight', '3; 5; 8',
     ], {'item_kind': 'number'}),
    ('list', [3, 5, 8], False, [
        '3, 5, 8, 9', '3, 5', '3, 5 or 8', '3, 5, about 8', '3, 5, 8+', '3-5, 8', '3, 5, 8?',
     ], {'item_kind': 'number'}),
    ('phone', '520-790-7206 x229', True, [
        '520-790-7206 X229', '520-790-7206 Ext. 229', '(520) 790-7206 ext:229',
        '+1 520 790 7206 #229', '520.790.7206 extension 229 (office)',
        'Office line: 520-790-7206 x229', 'It is 520-790-7206, ext. 229.',
     ], {}),
    ('phone', '520-790-7206 x229', False, [
        '520-790-7206 x 229 or x 230', '520-790-7206 x2290', '520-790-7206 x22',
        '520 790 7206 229 230',
     ], {}),
    ('email', 'kara_white@echomail.example', True, [
        '<KARA_WHITE@echomail.example>', 'Kara_White@Echomail.Example',
        'kara_white@echomail.example!', 'E-mail: kara_white@echomail.example',
        'kara_white@echomail.example (as listed)', 'mailto: kara_white@echomail.example',
     ], {}),
    ('email', 'kara_white@echomail.example', False, [
        'kara_white@@echomail.example', 'kara_white@echomail..example',
        'kara white@echomail.example', 'kara_white@echomail.example/kara@echomail.example',
        'kara_white@echomail.example & kara@echomail.example',
     ], {}),
]


def adversarial_cases() -> Iterator[Case]:
    for kind, expected, scores, answers, options in ADVERSARIAL:
        for answer in answers:
            yield Case(kind, expected, answer, scores, "adversarial", options)


# ---------------------------------------------------------------- a built world's checks -------
def person_forms(check: dict[str, object]) -> tuple[list[str], list[str]]:
    """For an `answer` check of a reward program: answers a person writes that must score 1,
    and qualified, negated, hedged or doubled ones that must score 0."""
    kind, value = str(check["kind"]), check.get("expected")
    if kind == "number" and isinstance(value, int | float):
        n = str(int(value)) if float(value).is_integer() else str(value)
        w = str(int(value) + 1) if float(value).is_integer() else str(value + 1)
        ok = [n, f"It's {n}.", f"There are {n} of them.", f"{n} in total (as of today)"]
        if float(value).is_integer() and 0 <= value < 1000:
            ok.append(number_words(int(value))[0])
        return ok, [f"more than {n}", f"about {n}", f"not {n}", f"{n}?", f"{n} or {w}",
                    f"between {n} and {w}", f"~{n}", f"{n}+1", f"' OR {n}={n}; --", w]
    if kind == "money" and isinstance(value, int | float):
        m, w = f"${value:,.2f}", f"${value + 1:,.2f}"
        return ([m, f"{value:.2f} dollars", f"USD {value:,.2f}", f"The total is {m}."],
                [f"about {m}", f"more than {m}", f"not {m}", f"{m}?", f"{m} or {w}", f"~{m}", w])
    if kind == "date" and isinstance(value, str):
        day = dt.date.fromisoformat(value)
        text, after = date_forms(value), date_forms((day + dt.timedelta(days=1)).isoformat())
        return ([value, text[1], text[10], text[6], text[8], f"It was on {text[1]}."],
                [f"before {text[1]}", f"around {text[9]}", f"not {text[1]}",
                 f"{text[9]} or {after[9]}", f"{text[1]}?", f"by {text[9]}", after[1]])
    if kind == "bool" and isinstance(value, bool):
        word = "Yes" if value else "No"
        return ([word, f"{word.lower()}.", "Yes, it is." if value else "No, it isn't.",
                 str(value)],
                [f"not {word.lower()}", f"{word}?", f"maybe {word.lower()}", "yes and no",
                 f"Not {str(value).lower()}", "No" if value else "Yes"])
    if kind in ("text", "label") and isinstance(value, str):
        aliases = [str(a) for a in check.get("aliases", []) or []]  # type: ignore[attr-defined]
        ok = [value, value.upper(), f"The answer is {value}.", f"It's {value}.", f'"{value}"']
        return (ok + (aliases if kind == "label" else []),
                [f"not {value}", f"{value}?", f"maybe {value}", f"{value} or something else",
                 f"I think it's {value}", f"{value}; DROP TABLE x; --", "something else"])
    if kind in ("phone", "email") and isinstance(value, str):
        return ([value, value.upper(), f"It's {value}."],
                [f"not {value}", f"{value}?", f"maybe {value}", f"{value} or {value}9"])
    return [], []


GENERATORS: dict[str, Callable[[], Iterator[Case]]] = {
    "number": number_cases, "money": money_cases, "date": date_cases, "bool": bool_cases,
    "text": text_cases, "label": label_cases, "list": list_cases, "phone": phone_cases,
    "email": email_cases,
}


def all_cases() -> list[Case]:
    """Every case of every kind, in a fixed order, the hand-written adversaries last."""
    return [case for generate in GENERATORS.values() for case in generate()] + list(
        foreign_money_cases()) + list(adversarial_cases())
