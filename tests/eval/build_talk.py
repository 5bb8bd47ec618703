#!/usr/bin/env python3
"""Build the fourth retrieval evaluation set, "Lakeside": a year of a friends' group chat.

Lakeside is a store saved from a long running chat among four friends (Maya, Jon, Ana and
Priya) about their lives: running and pottery, a dog and a move, plants and a trip to Japan,
Korean lessons and a wedding. Nothing here shares a domain with Harbor (``build_store.py``),
Fieldline (``build_wide.py``) or Pebbleworks (``build_chat.py``).

It is hard to rank in the way chat-derived stores are. A person's name is in every memory. Each
topic holds about 35 memories that share its words: the hand-written facts of ``talk_world.py``;
for each fact, a memory from before it happened that talks it over and up to two later ones that
bring it up again, all sharing its words and none of its details; and everyday memories written
from the topic's places, people, things and activities. Titles are short summaries, and most
session summaries (half the other facts) are saved under a catch-up title ("Catch-up with Maya,
3 Mar"), so the content alone holds the details (dates, places, amounts, names). The questions
are short, about one detail, as a friend asks about a past conversation ("When did Maya sign
up for the half marathon?"); most say one or two of the memory's words the way a friend would
(``SYNONYMS``: "trainers" for "shoes", "the big day" for "the wedding"), kept only when a word
is still shared; some need two memories; a quarter start with a chat opener ("hey, ...").
The unrelated prompts are coding chores and everyday questions, some sharing a word with the
store in another sense (run, book, move, class, plan, deposit, dog, walk), each also inside a
chat frame. Everything comes from the tables and ``random.Random`` seeded with ``SEED`` (one per
topic, fact and prompt): the same output every run, no network, no model.

Usage:
    python3 tests/eval/build_talk.py                 # write tests/eval/talk/ (git-ignored)
    python3 tests/eval/build_talk.py --out DIR       # write DIR/{store,prompts.jsonl,meta.json}
    python3 scripts/memory.py eval tests/eval/talk --split holdout
"""
from __future__ import annotations

import itertools
import random
import re
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from build_wide import run, write_set  # noqa: E402  (the same writer and CLI)
from talk_world import (ASIDES, BEFORE, ECHOES, EVERYDAY, FIXES, MORE, MOODS, PROBLEMS,  # noqa: E402
                        PRONOUNS, PLANS, REASONS,
                        SUBJECTS, SYNONYMS, TIMES, TOPICS, WEEKDAYS, WHYS)

SEED = 20261126
EVERYDAY_ASK = 0.2  # the share of everyday memories a question is asked about
BEFORE_COUNT = 1  # earlier memories per fact that talk it over before it happened (share its words, not its details)
ECHO_MAX = 2  # later memories per fact that bring it up again without its details (0 to this)
GENERIC_TITLE = {"session_summary": 0.8}  # by category, the share of facts saved under a catch-up title
GENERIC_OTHER = 0.5  # (one that names none of their details); the other categories
REWORD = 0.95  # the share of questions asked with a friend's words for the memory's (``SYNONYMS``)
CHATTY = 0.25  # the share of answerable questions typed with a chat opener (stop words only: "hey, ...")
OPENERS = ["hey, {q}", "quick one - {q}", "ok so {q}", "hey quick one, {q}"]
ASKING = {"when", "what", "what's", "where", "who", "who's", "how", "which", "why", "is", "does", "did", "can"}
TITLE_ASK = 0.3  # the share of facts under their own title also asked about in the title's words
TITLE_FRAMES = ["{t}?", "anything more on {t}?", "{t} - remind me?", "context on {t}?"]
GENERIC_TITLES = ["{P}'s {W} news, {month}", "Catch-up with {P}, {day}", "{P}: {W} bits from {month}"]
COMMON = set("""the and did does what who how when where which why for her his him she with from get got long much
many make like use see know want need help just also very too about into out does have has had will would could can
should may might this that these those they them their there here then else not was were are been being now still
new good best next last first keep way thing things any all our its than some only own same other more most over
under after before each both one two say said tell show give look try""".split())
WORD = re.compile(r"[a-z0-9]+")
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
START = datetime(2025, 11, 1, tzinfo=timezone.utc)  # the chat's first day; the last is 2026-10-25
DAYS = 358
EXTRA_TAG = {"bought": "shopping", "broke": "gear", "plan": "plans", "rule": "schedule", "wish": "gift-ideas",
             "lent": "gear", "later": "to-do"}

SILENT = [
    "how do I run a python script every hour with cron",
    "write a function that moves files older than 30 days to an archive folder",
    "how do I book a meeting room in outlook", "explain what a class is in object oriented programming",
    "how do I train a neural network on a small dataset", "write a sql query to find duplicate rows in a table",
    "git rebase or merge, which should I use", "what's the time complexity of quicksort",
    "how do I move a commit to another branch in git", "recommend a book about the history of rome",
    "plan a road trip itinerary through the scottish highlands", "how do power plants generate electricity",
    "convert a csv file to json in python", "explain how a bank deposit earns interest",
    "fix the failing test in test_parser.py", "how do I set up ssh keys for github",
    "write a python function to reverse a linked list", "what's the difference between tcp and udp",
    "how do you say good morning in french", "how do I get candle wax off a tablecloth",
    "what's the weather usually like in iceland in march", "suggest a name for a fantasy football team",
    "how long should I boil an egg for a runny yolk", "what year did the berlin wall fall",
    "explain recursion with a simple example", "why does my phone battery drain so fast",
    "how do I cancel an amazon prime subscription", "where does the name hot dog come from",
    "write a docker compose file for postgres and redis", "how do I show the git branch in my shell prompt",
    "summarise the causes of the first world war", "how does compound interest work",
    "draft an email asking my landlord to fix the heating", "how do I walk a binary tree in order in python",
    "how do I change the oil in a car", "give me a regex for email addresses",
    "how do I unit test a react component", "what time does the sun set in london in june",
    "translate 'where is the train station' into spanish", "how many players are on a rugby team",
    "tips for a job interview at a bank", "what is the band gap of silicon",
    "how do I lint a python project with ruff", "what should I read after dune",
    "explain how a heat pump works", "write a limerick about a cat",
    "how do I resize an image on the command line", "what is a pull request",
    "how do I kill the process using port 8080 on linux", "what order should I watch the star wars films in",
]
SILENT_FRAMES = ["unrelated, but {t}", "random one for you: {t}", "{t}? cheers", "not about the house stuff - {t}",
                 "ok different topic: {t}"]


def _date_of(text: str):
    """The day a fact happened: the first ``on <day> <Month>`` in it, else its first date, else None."""
    names = "|".join(MONTHS)
    found = re.search(rf"\bon (\d{{1,2}}) ({names})\b", text, re.I) or re.search(rf"\b(\d{{1,2}}) ({names})\b", text)
    if not found:
        return None
    month = MONTHS.index(found.group(2).capitalize()) + 1
    return datetime(2025 if month >= 11 else 2026, month, int(found.group(1)), tzinfo=timezone.utc)


def _said(day: datetime) -> str:
    return f"{day.day} {MONTHS[day.month - 1]}"


def _stamp(rng: random.Random, day: datetime) -> str:
    """When the memory was saved: the day of the conversation or up to two days later."""
    return (day + timedelta(days=rng.randint(0, 2), minutes=rng.randint(420, 1400))).strftime("%Y-%m-%dT%H:%M:%SZ")


def _content(category: str, text: str, who: str, act: str) -> dict:
    """The record body of a chat-saved memory: the text in the category's main field."""
    if category == "decision":
        return {"status": "accepted", "context": f"{who} mentioned it in the group chat.", "decision": text,
                "rationale": []}
    if category == "runbook":
        steps = [s[0].upper() + s[1:].rstrip(".") + "." for s in re.split(r"; |(?<=\.) ", text.strip()) if s]
        return {"trigger": f"Whenever it comes up ({act}).", "steps": steps,
                "verification": f"Check with {who} in the chat."}
    if category == "constraint":
        return {"kind": "limitation", "rule": text, "impact": [f"Plans with {who} work around it."], "severity": "low",
                "active": True}
    if category == "tech_debt":
        return {"status": "open", "priority": "low", "description": text, "reason_deferred": f"{who} said it can wait."}
    if category == "preference":
        return {"topic": act, "value": text, "reason": f"{who} said so in the group chat.", "strength": "default"}
    return {"goal": f"Keep track of {who}'s news from the group chat.", "outcome": "success", "completed": [text],
            "next_actions": []}


def _slug(title: str, taken: set) -> str:
    base = "-".join(re.findall(r"[a-z0-9]+", title.lower()))[:60].strip("-")
    mid, n = base, 2
    while mid in taken:
        mid, n = f"{base}-{n}", n + 1
    taken.add(mid)
    return mid


def _words(text: str) -> set:
    return {w for w in WORD.findall(text.lower()) if len(w) > 2}


def _reword(question: str, said: str, rng: random.Random) -> str:
    """``question`` with one or two of its words said as a friend would (``SYNONYMS``), if it then still
    shares a word with what the memory says (its title, tags and content); else ``question``."""
    found = [k for k in SYNONYMS if re.search(rf"\b{k}\b", question, re.I)]
    if not found:
        return question
    asked = question
    for key in rng.sample(found, min(2, len(found))):
        asked = re.sub(rf"\b{key}\b", SYNONYMS[key], asked, count=1, flags=re.I)
    mine, theirs = _words(asked) - COMMON, _words(said)
    shared = any(q[:5] == t[:5] and min(len(q), len(t)) >= 5 or q == t for q in mine for t in theirs)
    return asked if shared else question


def _talked_over(topic: dict, templates: list, slot: str, phrase: str, days: list, rng: random.Random) -> list:
    """Memories that talk a fact over without its details, one per day in ``days``, each from another
    of ``templates`` with ``phrase`` in ``{slot}``: ``(category, title, text, day)``."""
    who = topic["who"]
    she, her, him = PRONOUNS[who]
    out = []
    for (category, title, text), day in zip(rng.sample(templates, len(days)), days):
        fill = {"P": who, "S": she, "H": her, "O": him, "W": topic["act"], slot: phrase, "date": _said(day),
                "mate": rng.choice(topic["mates"])}
        fill["aside"] = rng.choice(ASIDES).format(**fill)
        body = text.format(**fill)
        out.append((category, title.format(**fill), body[0].upper() + body[1:], day))
    return out


def _everyday(topic: dict, rng: random.Random) -> list:
    """The topic's everyday memories: ``(key, category, title, text, tags, day, [(kind, question)])``."""
    who, act = topic["who"], topic["act"]
    she, her, _ = PRONOUNS[who]
    combos = {"went": list(itertools.product(topic["doings"], topic["places"])),
              "joined": list(itertools.product(topic["mates"], topic["doings"])),
              "plan": list(itertools.product(topic["mates"], topic["doings"]))}
    out = []
    used_things: set = set()
    for key, count, category, title, text, asks in EVERYDAY:
        pool = combos.get(key) or [(None, None)]
        rng.shuffle(pool)
        things = [t for t in topic["things"] if key not in ("lent", "bought", "broke", "later") or t not in used_things]
        for n in range(count):
            day = START + timedelta(days=rng.randrange(DAYS))
            pair = pool[n % len(pool)]
            fill = {"P": who, "S": she, "H": her, "W": act, "date": _said(day),
                    "day": f"{day.day} {MONTHS[day.month - 1][:3]}",
                    "month": MONTHS[day.month - 1], "place": topic["places"][n % len(topic["places"])],
                    "mate": rng.choice(topic["mates"]), "doing": rng.choice(topic["doings"]),
                    "thing": things[n % len(things)], "shop": rng.choice(topic["shops"]),
                    "weekday": rng.choice(WEEKDAYS), "time": rng.choice(TIMES), "amount": rng.randrange(12, 240),
                    "days": rng.randrange(2, 10), "date2": _said(day + timedelta(days=rng.randrange(7, 40))),
                    "why": rng.choice(WHYS)}
            if key == "went":
                fill["doing"], fill["place"] = pair
            elif key in ("joined", "plan"):
                fill["mate"], fill["doing"] = pair
            elif key == "chat":
                fill["mate"] = topic["mates"][n % len(topic["mates"])]
            elif key in ("lent", "bought", "broke", "later"):
                used_things.add(fill["thing"])
            plural = fill["thing"].endswith("s") and not fill["thing"].endswith("ss")
            fill["a"], fill["it"] = ("", "them") if plural else ("a ", "it")
            article = "" if plural else "an " if fill["thing"][0] in "aeiou" else "a "
            fill["a_thing"] = article + fill["thing"]
            fill["problem"], fill["problem_long"] = rng.choice(PROBLEMS)
            fill["fix"] = rng.choice(FIXES).format(**fill)
            fill["reason"] = rng.choice(REASONS).format(**fill)
            fill["mood"] = rng.choice(MOODS).format(**fill)
            body = text.format(**fill)
            body = body[0].upper() + body[1:]
            tags = topic["tags"] + [who.lower()] + ([EXTRA_TAG[key]] if key in EXTRA_TAG else [])
            out.append((f"{key}{n}", category, title.format(**fill), body, tags, day,
                        [(kind, q.format(**fill)) for kind, q in asks]))
    return out


def _in_other_words(kind: str, question: str, said: str, rng: random.Random) -> tuple:
    """``(kind, question)``, asked in a friend's words (kind ``paraphrase``) for a share ``REWORD``."""
    if rng.random() < REWORD:
        asked = _reword(question, said, rng)
        if asked != question:
            return "paraphrase", asked
    return kind, question


class _Writer:
    """The memories and prompts of the set, with the ids taken so far."""

    def __init__(self):
        self.memories, self.prompts, self.taken = [], [], set()

    def add(self, rng: random.Random, category: str, title: str, tags: list, text: str, day, who: str, act: str) -> str:
        mid = _slug(title, self.taken)
        when = _stamp(rng, day)
        self.memories.append({"schema_version": "1.0", "category": category, "id": mid, "title": title,
                              "created_at": when, "updated_at": when, "tags": sorted(set(tags))[:4],
                              "record_status": "active", "content": _content(category, text, who, act)})
        return mid

    def ask(self, pid: str, kind: str, text: str, expected: list) -> None:
        """File a prompt; some answerable ones typed with a chat opener (their own ``Random``: no other
        draw moves)."""
        rng = random.Random(f"{SEED}:{pid}")
        if expected and rng.random() < CHATTY:
            first = text.split(" ", 1)[0]
            text = rng.choice(OPENERS).format(q=first.lower() + text[len(first):] if first.lower() in ASKING else text)
        self.prompts.append({"id": pid, "kind": kind, "expected": expected, "prompt": text})


def _fact(out: _Writer, name: str, topic: dict, n: int, rng: random.Random) -> tuple:
    """Write fact ``n`` of a topic, its questions and the memories that talk it over; ``(id, what it says)``."""
    who, act = topic["who"], topic["act"]
    category, title, tags, text, questions = topic["facts"][n]
    questions = questions + ([MORE[name][n]] if n in MORE.get(name, {}) else [])
    day = _date_of(text) or START + timedelta(days=rng.randrange(DAYS))
    if rng.random() < GENERIC_TITLE.get(category, GENERIC_OTHER) and not any(q.startswith("t|") for q in questions):
        title = rng.choice(GENERIC_TITLES).format(P=who, W=act, month=MONTHS[day.month - 1],
                                                  day=f"{day.day} {MONTHS[day.month - 1][:3]}")
    elif rng.random() < TITLE_ASK:
        questions = questions + ["t|" + rng.choice(TITLE_FRAMES).format(t=title)]
    mid = out.add(rng, category, title, tags, text, day, who, act)
    said = f"{title} {' '.join(tags)} {text}"
    kinds = {"d": "detail", "p": "paraphrase", "t": "title"}
    for q, line in enumerate(questions):
        code, question = line.split("|", 1)
        kind, question = (kinds[code], question) if code == "t" else _in_other_words(kinds[code], question, said, rng)
        out.ask(f"t-{name}-f{n}-{q}", kind, question, [mid])
    before = [max(day - timedelta(days=rng.randrange(5, 60)), START) for _ in range(BEFORE_COUNT)]
    later = [min(day + timedelta(days=rng.randrange(3, 90)), START + timedelta(days=DAYS))
             for _ in range(rng.randint(0, ECHO_MAX))]
    for category, title, text, when in (_talked_over(topic, BEFORE, "plan", PLANS[name][n], before, rng)
                                        + _talked_over(topic, ECHOES, "subject", SUBJECTS[name][n], later, rng)):
        out.add(rng, category, title, tags[:2] + [who.lower()], text, when, who, act)
    return mid, said


def build(out_dir: Path) -> dict:
    """Write the set. Each topic, fact and the unrelated prompts draw from their own ``Random``
    (seeded with ``SEED`` and their name), so a change to one leaves the others as they were."""
    out = _Writer()
    for name, topic in TOPICS.items():
        facts = [_fact(out, name, topic, n, random.Random(f"{SEED}:{name}:{n}")) for n in range(len(topic["facts"]))]
        rng = random.Random(f"{SEED}:{name}")
        for n, (first, second, question) in enumerate(topic["two"]):
            _, question = _in_other_words("two", question, f"{facts[first][1]} {facts[second][1]}", rng)
            out.ask(f"t-{name}-two{n}", "two", question, [facts[first][0], facts[second][0]])
        for key, category, title, text, tags, day, questions in _everyday(topic, rng):
            mid = out.add(rng, category, title, tags, text, day, topic["who"], topic["act"])
            if questions and rng.random() < EVERYDAY_ASK:
                kind, question = questions[rng.randrange(len(questions))]
                kind, question = _in_other_words(kind, question, f"{title} {' '.join(tags)} {text}", rng)
                out.ask(f"t-{name}-e-{key}", kind, question, [mid])
    rng = random.Random(f"{SEED}:unrelated")
    for n, text in enumerate(SILENT):
        out.ask(f"t-silent-{n:03d}", "silent", text, [])
        out.ask(f"t-silent-chat-{n:03d}", "silent_chat", rng.choice(SILENT_FRAMES).format(t=text), [])
    return write_set(out_dir, out.memories, out.prompts, "Lakeside, generated by build_talk.py")


def main(argv=None) -> int:
    return run(argv, __doc__, "talk", build)


if __name__ == "__main__":
    raise SystemExit(main())
