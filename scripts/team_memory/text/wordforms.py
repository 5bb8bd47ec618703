"""Irregular English verb forms: "what did Ana lose?" meets a memory that says she *lost* it.

``textnorm.fold`` handles regular endings; the prompt side also tries each listed form of a prompt word
(``alternates``) at ``weights.IRREGULAR`` x its points (folding them in the index was measured and lost).
Left out: forms as often another word (``left``, ``ground``) and verbs whose forms are stop words.
"""
from __future__ import annotations

from .textnorm import STOP_WORDS, fold

# One verb between commas: the base form, then its irregular past and past participle forms.
VERBS = """
arise arose arisen, awake awoke awoken, bear bore borne, become became, begin began begun, bend bent, bet,
bleed bled, blow blew blown, break broke broken, breed bred, bring brought, build built, burn burnt,
buy bought, catch caught, choose chose chosen, cling clung, come came, creep crept, deal dealt, dig dug,
dream dreamt, drink drank drunk, drive drove driven, eat ate eaten, fall fell fallen, feel felt,
fight fought, find found, flee fled, fling flung, fly flew flown, forbid forbade forbidden,
forget forgot forgotten, forgive forgave forgiven, freeze froze frozen, give gave given, grind ground,
grow grew grown, hang hung, hear heard, hide hid hidden, hold held, keep kept, kneel knelt, lay laid,
lead led, lean leant, leap leapt, learn learnt, leave left, lend lent, lose lost, mean meant, meet met,
overcome overcame, pay paid, prove proven, ride rode ridden, ring rang rung, rise rose risen, run ran,
say said, seek sought, sell sold, send sent, shake shook shaken, shine shone, shoot shot,
shrink shrank shrunk, sing sang sung, sink sank sunk, sit sat, sleep slept, slide slid, speak spoke spoken,
speed sped, spell spelt, spend spent, spill spilt, spin spun, spit spat, stand stood, steal stole stolen,
stick stuck, sting stung, stink stank stunk, strike struck stricken, swear swore sworn, sweep swept,
swim swam swum, swing swung, take took taken, teach taught, tear tore torn, tell told, think thought,
throw threw thrown, understand understood, wake woke woken, wear wore worn, weep wept, win won, wind wound,
write wrote written
"""
_LEFT_OUT = frozenset({"ground", "left", "led", "rose", "shot", "wound", "bore", "saw"})
_table = None  # folded form -> the other folded forms of the same verb, built on first use


def _build() -> dict:
    table: dict = {}
    for verb in VERBS.replace("\n", ",").split(","):
        forms = {fold(w) for w in verb.split() if w not in _LEFT_OUT and w not in STOP_WORDS}
        for form in forms:
            table.setdefault(form, set()).update(forms - {form})
    return {form: tuple(sorted(others)) for form, others in table.items() if others}


def alternates(token: str) -> tuple:
    """The other forms of the verb ``token`` (a folded prompt token) is a form of, sorted; () if none."""
    global _table
    if _table is None:
        _table = _build()
    return _table.get(token, ())
