"""The shape of answer a question asks for (a date, a time, money, a count, a duration), and whether a text holds one:
among memories that meet a question alike, one holding that shape ("on 11 June", "£40") is likelier the answer.
"""
from __future__ import annotations

from .tokens import words

DATE, TIME, MONEY, COUNT, DURATION = "date", "time", "money", "count", "duration"

# What a clause may start with before its question word ("hey, quick one - when ...", "do you remember how much ...").
_LEAD = frozenset({
    "hey", "hi", "hello", "ok", "okay", "so", "but", "and", "also", "then", "quick", "one", "question",
    "um", "oh", "btw", "wait", "sorry", "actually", "just", "again", "remind", "me", "us", "do", "you",
    "know", "remember", "recall", "any", "idea", "can", "could", "tell", "right", "yeah", "random",
})
# The opening words of a clause and the shape they ask for; the longest match wins.
_OPENERS = {
    ("when",): DATE,
    ("what", "date"): DATE, ("what", "day"): DATE, ("which", "day"): DATE, ("what", "year"): DATE,
    ("what", "month"): DATE, ("which", "month"): DATE, ("which", "year"): DATE,
    ("what", "time"): TIME, ("at", "what", "time"): TIME, ("what", "hour"): TIME,
    ("how", "much"): MONEY, ("how", "expensive"): MONEY, ("what", "price"): MONEY, ("what", "cost"): MONEY,
    ("how", "many"): COUNT,
    ("how", "long"): DURATION,
}
_CLAUSE_BREAKS = ",;:?!()\n-"  # a new clause starts after these: "not sure who knows this, but how long ..."

MONTHS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september",
                    "october", "november", "december"})
_MONTH_SHORT = frozenset({"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"})
# A month name that is also an ordinary word ("you may", "march on") counts only beside a number.
_MONTH_ALSO_WORD = frozenset({"may", "march"})
WEEKDAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})
_DAY_WORDS = frozenset({"yesterday", "tomorrow", "tonight", "today", "weekend", "fortnight"})
NUMBER_WORDS = frozenset({
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
    "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty",
    "sixty", "seventy", "eighty", "ninety", "hundred", "thousand", "million", "dozen", "couple",
})
_TIME_UNITS = frozenset({
    "second", "seconds", "sec", "secs", "minute", "minutes", "min", "mins", "hour", "hours", "hr", "hrs",
    "day", "days", "night", "nights", "week", "weeks", "wk", "wks", "month", "months", "year", "years",
    "yr", "yrs", "fortnight", "fortnights", "decade", "decades",
})
_FEW = ("a", "an", "few", "several")
_CLOCK_WORDS = frozenset({"noon", "midday", "midnight"})
_MONEY_WORDS = frozenset({
    "pound", "pounds", "quid", "dollar", "dollars", "bucks", "euro", "euros", "cent", "cents", "pence",
    "percent", "usd", "eur", "gbp", "yen", "grand",
})
_MONEY_SIGNS = "$£€¥₹%"


def asked_shape(prompt: str) -> str | None:
    """The shape the first clause opening with a question word asks for (``when`` mid-clause asks for none)."""
    text = prompt[:2000]
    for ch in _CLAUSE_BREAKS:
        text = text.replace(ch, "\n")
    for clause in (words(part) for part in text.split("\n")):
        k = 0
        while k < len(clause) and clause[k] in _LEAD:
            k += 1
        head = tuple(clause[k:k + 3])
        for size in (3, 2, 1):
            shape = _OPENERS.get(head[:size])
            if shape is not None:
                return shape
    return None


def holds_shape(shape: str, text: str) -> bool:
    """Whether ``text`` holds something of ``shape`` (see the module's docstring)."""
    if shape == MONEY and any(sign in text for sign in _MONEY_SIGNS):
        return True
    if shape == TIME and ":" in text and _has_clock_colon(text):
        return True
    ws = words(text)
    for i, w in enumerate(ws):
        rest = w.lstrip("0123456789")  # "12pm": "12" and "pm"
        digits = w[:len(w) - len(rest)]
        nxt = ws[i + 1] if i + 1 < len(ws) else ""
        prev = ws[i - 1] if i else ""
        if shape == COUNT:
            if w.isdigit() or w in NUMBER_WORDS:
                return True
        elif shape == DURATION:
            if (w in _TIME_UNITS and (prev.isdigit() or prev in NUMBER_WORDS or prev in _FEW)) \
                    or (digits and rest in _TIME_UNITS) or w in ("fortnight", "overnight"):
                return True
        elif shape == TIME:
            if w in _CLOCK_WORDS or (w == "clock" and prev == "o") or (digits and (rest in ("am", "pm") or nxt in ("am", "pm"))):
                return True
        elif shape == MONEY:
            if (digits and (rest in _MONEY_WORDS or rest == "k")) or (digits and not rest and nxt in _MONEY_WORDS):
                return True
        elif shape == DATE:
            if (w in WEEKDAYS or w in _DAY_WORDS or (w in MONTHS and w not in _MONTH_ALSO_WORD)
                    or ((w in _MONTH_ALSO_WORD or w in _MONTH_SHORT) and (prev.isdigit() or nxt.isdigit()))
                    or (digits and not rest and len(w) == 4 and w[:2] in ("19", "20"))  # a year
                    or (digits and rest in ("st", "nd", "rd", "th") and len(digits) <= 2)):  # the 3rd
                return True
    return False


def _has_clock_colon(text: str) -> bool:
    """A ``10:30``-like clock time: one or two digits, a colon, two digits, no digit after."""
    start = text.find(":")
    while start != -1:
        before, after = text[max(0, start - 2):start], text[start + 1:start + 4]
        if before[-1:].isdigit() and after[:2].isdigit() and not after[2:3].isdigit():
            return True
        start = text.find(":", start + 1)
    return False
