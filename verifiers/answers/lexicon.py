"""Word lists and precompiled patterns of the answer rules (all over folded, lower-case text).

Every pattern is compiled once at import: `match_answer` runs inside every grade, so no call may
build a regular expression of its own (the names of a `text` check are matched token by token).
The placeholder characters below stand for located values once they are masked out of an answer.
"""

from __future__ import annotations

import re

# Located values are masked out of an answer before its words are read: the i-th value of the
# kind being judged becomes the private-use character MARK_BASE + i, a value of another kind (a
# date inside a number answer) becomes OTHER. No word or digit pattern can match either.
MARK_BASE = 0xE100
MAX_MARKS = 0x700
VALUE = "[\ue100-\ue7ff]"  # a pattern: any masked value of the judged kind
OTHER = "\ue001"


def mark(index: int) -> str:
    """The placeholder of the index-th located value."""
    return chr(MARK_BASE + index)


def mark_index(char: str) -> int:
    """The index of a placeholder character (-1 when it is not one)."""
    code = ord(char) - MARK_BASE
    return code if 0 <= code < MAX_MARKS else -1


MONTHS: dict[str, int] = {
    name: number
    for number, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
         ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
         ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
         ("december", "dec")], start=1)
    for name in names
}
WEEKDAYS: dict[str, int] = {
    name: number
    for number, names in enumerate(
        [("monday", "mon"), ("tuesday", "tue", "tues"), ("wednesday", "wed"),
         ("thursday", "thu", "thur", "thurs"), ("friday", "fri"), ("saturday", "sat"),
         ("sunday", "sun")])
    for name in names
}
ONES: dict[str, int] = {w: i for i, w in enumerate([
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen"])}
TENS: dict[str, int] = {w: 10 * i for i, w in enumerate(
    ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], start=2)}
SCALES: dict[str, int] = {"hundred": 100, "thousand": 1000, "million": 1_000_000}

YES_WORDS = frozenset({"yes", "yeah", "yep", "yup", "true", "correct", "right", "affirmative",
                       "absolutely", "certainly", "definitely", "indeed", "of course"})
NO_WORDS = frozenset({"no", "nope", "nah", "false", "incorrect", "wrong", "negative"})
# One-letter replies count only as the whole answer ("y", "n"), never inside a sentence.
YES_ALONE = frozenset({"y"})
NO_ALONE = frozenset({"n"})


def _words(*phrases: str) -> str:
    """An alternation of words or phrases, longest first, bounded as whole words."""
    ordered = sorted(set(phrases), key=len, reverse=True)
    return r"(?<![\w'])(?:" + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in ordered) + r")(?![\w'])"


# Uncertainty: the answerer does not claim the value (anywhere in an answer).
HEDGE = re.compile(
    _words("maybe", "perhaps", "probably", "probable", "possibly", "possible", "likely",
           "unlikely", "might", "may", "could", "should", "guess", "guessing", "guessed", "think",
           "thinking", "believe", "suppose", "supposedly", "presumably", "assume", "assuming",
           "reckon", "estimate", "estimated", "estimation", "est", "approx", "approximately",
           "approximate", "roughly", "circa", "ca", "nearly", "almost", "unsure",
           "uncertain", "not sure", "no idea", "dunno", "idk", "i'd say", "i would say",
           "seems", "seem", "seemingly", "appears", "apparently", "allegedly", "if", "unless",
           "depending", "depends", "kidding", "jk", "afaik", "iirc", "as far as i know",
           "or so", "give or take", "more or less", "ish", "something like", "somewhere",
           "ballpark", "rounded", "rounding", "hopefully", "plus or minus", "not really",
           "sort of", "kinda", "sorta", "either", "or something", "give and take", "etc",
           "et cetera", "and so on", "and so forth", "and others", "among others",
           "amongst others", "or others", "and more", "and the like", "and such")
    + r"|[?~\u2248\u00b1]|\+/-")

# Denial and exclusion: the answer says what the value is not (anywhere in an answer).
NEGATION = re.compile(
    r"(?<![\w'])no(?![\w'])(?!\.?\s*of\b)|"  # "no", but not the abbreviation "No. of"
    + _words("not", "never", "none", "neither", "nor", "nothing", "nobody", "nowhere",
           "without", "except", "excluding", "exclude", "excludes", "wrong", "incorrect",
           "untrue", "false", "cannot", "other than", "rather than", "instead of",
           "anything but", "nope", "nah", "negative")
    + r"|n't(?![\w])")

# Comparison, bounds, approximation and arithmetic of a quantity, anywhere in the clause that
# holds a number or money value ("more than 137", "137 at most", "half of 274").
QUANTITY_QUALIFIER = re.compile(
    _words("more", "less", "fewer", "greater", "beyond", "exceed", "exceeds", "exceeding",
           "at least", "at most", "max", "maximum", "min", "minimum", "up to", "upto", "between",
           "plus", "minus", "times", "divided", "multiplied", "squared", "cubed", "half",
           "twice", "double", "triple", "higher", "lower", "bigger", "smaller", "upwards",
           "tops", "and counting", "range", "ranging", "shy of", "short of", "in excess of",
           "sum of", "per", "odd", "each", "apiece", "monthly", "weekly", "daily", "yearly",
           "annually", "hourly", "a month", "a week", "a day", "a year", "an hour",
           "percent", "per cent", "pct", "percentage", "fold")
    + r"|[<>\u2264\u2265+*/\u00d7\u00f7^%\u2030]")
# Words that qualify a quantity only next to it ("about 56", "over 56", "56 and over"): elsewhere
# they restate the subject ("3 messages about the budget").
_NEXT_TO = _words("about", "around", "over", "under", "above", "below", "some", "close to",
                  "north of", "south of", "upward of", "upwards of", "nearly", "almost")
QUANTITY_NEXT_TO = re.compile(rf"(?:{_NEXT_TO})\s*(?:a\s+)?{VALUE}|{VALUE}\s*(?:and|or)?\s*(?:{_NEXT_TO})")
# A short explanation that bounds the value it follows ("137 (at least)", "137, or more").
EXPLANATION_QUALIFIER = re.compile(
    _words("at least", "at most", "or more", "or less", "or fewer", "or greater", "or higher",
           "or lower", "or over", "or under", "minimum", "maximum", "max", "min", "tops",
           "and up", "and counting", "upwards", "plus", "minus", "more", "less", "fewer")
    + r"|[<>\u2264\u2265+]")

# Bounds and approximation of a day (date answers), anywhere in the clause that holds the date.
DATE_QUALIFIER = re.compile(
    _words("before", "after", "until", "till", "til", "since", "prior", "earlier", "later",
           "between", "through", "thru", "within", "no later", "no earlier", "on or",
           "sometime", "week", "weekend", "plus", "minus", "or", "either", "latest",
           "earliest")
    + r"|[<>\u2264\u2265+]")
# ... and only right before the date ("by June 5", "from June 5", "early June 5").
_DATE_NEXT_TO = _words("by", "from", "about", "around", "circa", "early", "mid", "late",
                       "end of", "start of", "beginning of", "to")
DATE_NEXT_TO = re.compile(rf"(?:{_DATE_NEXT_TO})\s*(?:the\s+)?{VALUE}")

# Arithmetic or a range glued to a located value ("1+1", "5-6", "3x").
GLUED_OPERATOR = re.compile(
    rf"{VALUE}\s*(?:[-+*/\u00d7\u00f7^=]|x(?![a-z]))|(?:[*/\u00d7\u00f7^=]|(?<![a-z])x)\s*{VALUE}"
    rf"|\d\s*[-+*/\u00d7\u00f7^=]\s*{VALUE}")

# Two values offered together: "5 or 6", "$5 to $6", "5 / 6", "5 vs 6".
ALTERNATIVE = re.compile(
    rf"{VALUE}\s*(?:{_words('or', 'to', 'and', 'nor', 'through', 'thru', 'till', 'until', 'vs', 'versus')}"
    rf"|[-/\u2013\u2014])\s*[$]?(?:\d|{OTHER})|(?:\d|{OTHER})\s*(?:{_words('or', 'to', 'nor', 'vs', 'versus')}|[/])\s*{VALUE}")

# SQL injection and code: no person writes these around an answer.
CODE = re.compile(
    r"--|/\*|\*/|==|!=|<>|&&|\|\||[{}`\\;]\s*$|[{}`\\=]"
    r"|'\s*(?:or|and|union)\b|\bunion\s+(?:all\s+)?select\b|\bselect\b.*\bfrom\b|^\s*select\b"
    r"|\b(?:drop|alter|truncate)\s+table\b|\bdelete\s+from\b|\binsert\s+into\b"
    r"|\bupdate\s+\w+\s+set\b|\b(?:or|and)\s+\S+\s*(?:=|like\b)"
    r"|\b[a-z_][\w.]*\((?!s\))|<\s*/?\s*[a-z]+[^>]*>|\$\{|\bnull\b")

# Words a person puts before a name; the subject restated ends with one of these.
ARTICLES = frozenset({"a", "an", "the", "my", "your", "our", "their", "his", "her"})
COPULAS = frozenset({"is", "are", "was", "were", "be", "been", "it's", "that's", "he's", "she's",
                     "who's", "what's", "there's", "here's", "they're", "we're", "you're",
                     "called", "named", "titled", "entitled", "labelled", "labeled", "reads",
                     "says", "answer", ":", "=", "by", "from", "to", "for"})
FILLERS = frozenset({"ok", "okay", "so", "sure", "well", "alright", "right", "yes", "yeah",
                     "hmm", "um", "uh", "oh", "answer", "the", "my", "final", "short", "in",
                     "summary", "brief", "both",
                     "basically", "simply", "that", "would", "it", "this", "here", "is",
                     "exactly", "just", "only", "precisely", "definitely", "certainly",
                     "clearly", "obviously", "thanks", "sir", "of", "course"})
# An explanation after a comma or a dash that starts with one of these explains the name
# ("David Ortiz is a friend, from college"); any other continuation may be a second name.
# Prepositions ("in", "on", "at", "to", "for", "by", "with") are left out: they begin enum
# values too ("in progress", "on hold", "at risk"), which would pass for explanations.
EXPLAINERS = frozenset({"which", "who", "whose", "that", "as", "since", "because", "from",
                        "sent", "dated", "received", "according", "based", "per", "it", "it's",
                        "he", "she", "they", "this", "i", "ie", "eg", "see", "via", "listed",
                        "shown", "created", "updated", "thanks", "thank", "cheers", "there",
                        "its", "he's", "she's", "they're", "we", "you", "i.e", "e.g", "aka",
                        "also known as", "checked", "seen", "found", "taken"})
# Lead-in clauses before a name that only frame the answer ("Well, ...", "Based on ..., ...").
FRAMERS = frozenset({"based", "according", "looking", "checking", "judging", "per", "as",
                     "from", "after"})
# Trailing phrases after a name that still assert it.
TRAILERS = frozenset({"is the answer", "is my answer", "would be my answer", "would be the answer",
                      "is correct", "is right", "is it", "it is", "that is it", "that's it",
                      "is the one", "in short"})
# An explanation clause that begins with one of these adds an alternative or a second value.
ADDITIVE = re.compile(r"^\s*(?:or|nor|either|also|plus|as well as|&|and/or)\b|^\s*&")
# A value's own clause that opens like an alternative ("or 8", "nor 8") offers it as one.
OPENS_ALTERNATIVE = re.compile(r"^\s*(?:or|nor|and/or)\b")
# An alternative after the value in its own clause ("X or similar", "X or something like it").
TAIL_ALTERNATIVE = re.compile(VALUE + r"[^,;.]*?\b(?:or|nor|and/or|otherwise|else)\b")

# Words before a name that make it name something else ('another "Quick question"', "similar
# to friend", "family and friend").
NOT_THE_NAME = frozenset({"another", "other", "different", "similar", "like", "unlike", "re",
                          "fwd", "fw", "new", "old", "older", "newer", "previous", "next",
                          "near", "close", "related", "opposite", "except", "besides", "than",
                          "instead", "including", "plus", "also", "and", "or", "nor", "either"})
# Words that only join values: a clause of values and these offers alternatives ("57 or 58").
CONNECTORS = frozenset({"or", "and", "nor", "to", "through", "thru", "then", "vs", "versus",
                        "either"})
# A reply or a forward of a message is another message: "Re: <subject>" does not name <subject>.
REPLY_PREFIXES = frozenset({"re", "fwd", "fw"})

WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*|:|=")
DIGITS = re.compile(r"\d")
