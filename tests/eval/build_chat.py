#!/usr/bin/env python3
"""Build the third retrieval evaluation set, "Pebbleworks": memories saved from chat, chat questions.

Pebbleworks is an imaginary mobile game studio shipping "Skyreach", a co-op game (a Unity
client, a Node matchmaking service, PostgreSQL, app-store releases, live events). Nothing
here shares a domain with Harbor (``build_store.py``) or Fieldline (``build_wide.py``).

The store looks like what a team keeps from its conversations: decisions, constraints,
preferences, runbooks and session summaries with short casual titles, content full of
names, numbers and versions, several memories per topic (a later update to some facts,
sessions that touched a topic without settling it, chatter that shares a topic's words).
Every answerable question is asked the way a person asks in chat: one word or a
partial word, a short question in other words, a long message with a pronoun closer,
a question about a detail (a number, a version, a name), a few with a typo. The
unrelated prompts are coding chores and everyday questions, many sharing a common
word with the store (build, release, event, crash, price, player). Everything comes
from the tables below and ``random.Random(SEED)``: the same output every run.

Usage:
    python3 tests/eval/build_chat.py                 # write tests/eval/chat/ (git-ignored)
    python3 tests/eval/build_chat.py --out DIR       # write DIR/{store,prompts.jsonl,meta.json}
    python3 scripts/memory.py eval tests/eval/chat --split holdout
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from build_wide import _content, _stamp, run, write_set  # noqa: E402  (the same record shapes, writer, CLI)

SEED = 20261125
CHATTER_PER_TOPIC = 38
PEOPLE = ["Priya", "Tomas", "Keiko", "Dmitri", "Ana", "Ben", "Lucia", "Omar"]

# topic: (label, topic tags, [facet]); facet: (key, category, title, tags, fact, what a person
# calls it, a detail question, an update fact or "")
TOPICS = {
    "matchmaking": ("matchmaking", ["matchmaking", "lobby"], [
        ("mm-region", "decision", "matchmaking stays per region", ["region", "latency"],
         "Players only match inside their region (eu-west, us-east, ap-south); cross-region pings above 120 ms ruined co-op.",
         "pairing players from different continents", "what ping limit did we pick for the region thing", ""),
        ("mm-skill", "decision", "skill rating uses glicko-2 now", ["glicko", "rating"],
         "Switched from Elo to Glicko-2 in v1.8; new accounts start at 1500 with deviation 350.",
         "the rating for how good a player is", "what do new accounts start at for rating", "Deviation floor raised to 60 in v1.9 after smurf reports."),
        ("mm-timeout", "constraint", "lobby waits max 45s before bots fill", ["bots", "backfill"],
         "The lobby waits at most 45 seconds, then bots fill the empty seats; Tomas set it after the churn review.",
         "filling empty slots with AI players", "how long does a lobby wait before the bots come in", ""),
        ("mm-party", "preference", "parties never split across teams", ["party", "teams"],
         "A party of up to 4 always lands on one team; Keiko wants this kept even if queues get longer.",
         "friends who queue together getting separated", "can a party of friends end up on different sides", ""),
        ("mm-restart", "runbook", "matchmaker stuck: restart order", ["matchmaker", "redis"],
         "Drain the queue, restart redis-mm first, then the matchmaker pods (node 20.11); never the other way round.",
         "the queue service hanging with nobody getting games", "what do I restart first when queues freeze", ""),
        ("mm-crossplay", "decision", "crossplay on, with an opt-out", ["crossplay", "console"],
         "iOS, Android and Switch players share queues; a settings toggle opts out since v2.0.",
         "mixing phone and console players in one game", "can switch players turn off playing with phones", ""),
    ]),
    "purchases": ("store purchases", ["iap", "store"], [
        ("iap-receipts", "decision", "validate receipts server side only", ["receipts", "validation"],
         "Receipts go to the purchase service for validation with Apple and Google; the client never grants items itself.",
         "checking that a payment receipt was real", "where do we verify the apple receipts", ""),
        ("iap-refunds", "runbook", "handling refund chargebacks", ["refund", "chargeback"],
         "When Google sends a voided purchase, revoke the gems within 24h and flag the account; Ana owns the script.",
         "people getting their money back after buying gems", "who owns the voided purchase script", ""),
        ("iap-prices", "constraint", "price tiers locked until the winter sale", ["price-tier", "pricing"],
         "Gem packs stay at tiers 5, 10, 20 and 50 until the winter sale on Dec 12; finance signed off.",
         "changing how much the gem bundles cost", "when can we change the gem pack costs", "Winter sale moved to Dec 19 because of the Switch cert."),
        ("iap-starter", "decision", "starter pack is a one-time 1.99 offer", ["starter-pack", "offer"],
         "The starter pack costs 1.99 USD, shows once after level 5, and expires after 72 hours.",
         "the cheap offer for new players", "after what level does the beginner bundle show up", ""),
        ("iap-sandbox", "runbook", "testing purchases in sandbox", ["sandbox", "testflight"],
         "Use the sandbox tester accounts in the shared vault; TestFlight builds hit the sandbox, store builds never do.",
         "trying out purchases without real money", "which accounts do I use to test buying gems", ""),
        ("iap-loot", "constraint", "no paid loot boxes in belgium", ["loot-box", "belgium", "legal"],
         "Paid random boxes are disabled for Belgian and Dutch accounts; legal asked for it in March.",
         "random reward crates and gambling rules in some countries", "which countries have the paid crates switched off", ""),
    ]),
    "release": ("release", ["release", "build"], [
        ("rel-train", "decision", "release train every second tuesday", ["release-train", "cadence"],
         "A store build ships every second Tuesday; the branch is cut the Thursday before by whoever is release captain.",
         "how often a new build goes out", "when do we cut the branch before shipping", ""),
        ("rel-unity", "constraint", "stay on unity 2022.3 lts", ["unity", "lts"],
         "We stay on Unity 2022.3.21f1 LTS until the shader compile bug in 6000.0 is fixed; Dmitri tracks it.",
         "moving to a newer engine, the shader bug thing", "which unity version are we pinned to", "Bumped to 2022.3.40f1 for the Android 14 target API."),
        ("rel-phased", "preference", "phased rollout starts at 5 percent", ["phased-rollout", "staged"],
         "Android staged rollout starts at 5%, then 20% after a day without crash spikes, then 100%.",
         "not giving the android update to everyone at once", "what percent do we start the google rollout at", ""),
        ("rel-hotfix", "runbook", "shipping a hotfix outside the train", ["hotfix", "expedited-review"],
         "Cherry-pick onto the release branch, bump the patch number, request expedited review on iOS with the crash link.",
         "pushing an urgent fix without waiting for the train", "how do I get apple to review an urgent fix faster", ""),
        ("rel-versioning", "decision", "version numbers are year.month.patch", ["versioning", "semver"],
         "Versions are YY.M.patch (like 26.11.2); the build number is the CI run id.",
         "how the app version string is made", "what's the build number based on", ""),
        ("rel-switch", "constraint", "switch cert takes ten working days", ["switch", "certification", "lotcheck"],
         "Nintendo lotcheck takes about 10 working days; submit Switch builds two trains early.",
         "getting approval for the nintendo version", "how early do we submit console builds", ""),
    ]),
    "crashes": ("crash", ["crash", "stability"], [
        ("cr-sentry", "decision", "crash reports go to sentry", ["sentry", "symbols"],
         "Both platforms report to Sentry; dSYMs and IL2CPP symbols upload from the CI step upload-symbols.",
         "where error reports get collected", "which ci step uploads the debug symbols", ""),
        ("cr-oom", "runbook", "out of memory on old androids", ["oom", "memory", "texture"],
         "Devices with 3 GB RAM die in the forest map; drop texture quality to medium when SystemInfo reports under 4000 MB.",
         "the game running out of ram on cheap phones", "what ram cutoff switches textures to medium", ""),
        ("cr-anr", "constraint", "anr rate must stay under 0.47", ["anr", "vitals"],
         "Google Play vitals flags us above 0.47% user-perceived ANR rate; Omar checks it every Monday.",
         "the app freezing and the play store complaining", "who checks the play vitals numbers", ""),
        ("cr-ios17", "runbook", "metal crash on ios 17.1 ipads", ["metal", "ipad"],
         "iPad Air 4 on iOS 17.1 crashes in the bloom pass; disable bloom for that GPU family until 17.2.",
         "the graphics crash on some apple tablets", "which effect do we turn off on the ipad air", ""),
        ("cr-triage", "preference", "crash triage order", ["triage", "crash-free"],
         "Fix by affected users, not event count; the crash-free sessions goal is 99.7% per release.",
         "deciding which bugs that close the app to fix first", "what's the crash free target", "Crash-free goal raised to 99.8% from the 26.11 train."),
    ]),
    "localization": ("localization", ["localization", "l10n"], [
        ("l10n-vendor", "decision", "translations through lingohub with gengo", ["lingohub", "gengo", "vendor"],
         "Strings sync to Lingohub; Gengo translators do 9 languages, Lucia reviews Spanish and Portuguese herself.",
         "who translates our text into other languages", "who reviews the spanish strings", ""),
        ("l10n-freeze", "constraint", "string freeze five days before branch cut", ["string-freeze", "strings"],
         "No new player-facing strings 5 days before the branch cut, or they ship untranslated.",
         "adding new strings late in the cycle", "how many days before the cut do strings lock", ""),
        ("l10n-fonts", "runbook", "missing glyphs in japanese and korean", ["fonts", "glyphs", "cjk"],
         "Rebuild the TextMesh Pro atlas with the Noto Sans CJK fallback; tofu boxes mean the atlas is stale.",
         "little empty boxes instead of asian characters", "which fallback font fixes the tofu", ""),
        ("l10n-arabic", "decision", "no right-to-left languages this year", ["rtl", "arabic"],
         "Arabic and Hebrew wait until the UI toolkit supports mirroring; maybe 2027.",
         "supporting languages written from the other side", "are we doing hebrew", ""),
        ("l10n-keys", "preference", "string keys are screen.element.state", ["string-keys", "naming"],
         "Keys look like shop.buy_button.disabled; no sentences as keys.",
         "how we name the text ids", "how should I name a new string id", ""),
        ("l10n-plural", "runbook", "plurals broken in polish and russian", ["plurals", "icu"],
         "Use ICU plural syntax in the source string; the old {0} items form breaks few/many forms.",
         "the item count text reading wrong in slavic languages", "what syntax fixes the item count text", ""),
    ]),
    "backend": ("backend", ["backend", "postgres"], [
        ("be-pg", "constraint", "postgres 15 on rds, no extensions beyond pg_partman", ["rds", "extensions"],
         "Production runs PostgreSQL 15.4 on RDS; only pg_partman and pg_stat_statements are allowed.",
         "which postgres add-ons we can install", "which postgres version is prod on", "Upgraded to PostgreSQL 16.2 in the October maintenance window."),
        ("be-saves", "decision", "cloud saves are last-write-wins with a merge for inventory", ["cloud-save", "sync"],
         "Cloud saves use last-write-wins per slot, except inventory which merges item counts; Ben designed it.",
         "progress syncing between two phones", "who designed the save merging", ""),
        ("be-migrations", "runbook", "running schema migrations", ["migrations", "knex"],
         "Run knex migrate:latest from the ops box during the Tuesday window; never from a laptop.",
         "running schema changes in production", "where do I run migrate latest from", ""),
        ("be-ratelimit", "constraint", "api rate limit 20 requests per second per player", ["rate-limit", "api"],
         "The gateway allows 20 requests per second per player token, burst 40; the shop endpoint has its own 2/s.",
         "how many requests a client can make", "what's the shop endpoint limit", ""),
        ("be-oncall", "preference", "backend on-call hands over on monday 10:00", ["on-call", "handover"],
         "On-call rotates Monday 10:00 CET in PagerDuty; handover notes go in the ops channel thread.",
         "when the pager duty switches people", "what time does the pager change hands", ""),
        ("be-leaderboard", "decision", "leaderboards in redis sorted sets", ["leaderboard", "sorted-set"],
         "Weekly leaderboards live in Redis sorted sets and are archived to Postgres every Sunday 23:59 UTC.",
         "the weekly top player rankings", "when do the weekly rankings get archived", ""),
    ]),
    "liveops": ("live events", ["liveops", "events"], [
        ("lo-calendar", "decision", "events scheduled from the remote config calendar", ["remote-config", "calendar"],
         "Events start and end from the remote config calendar in UTC; no client build needed for a new event.",
         "turning seasonal stuff on without a new client build", "what timezone do event start times use", ""),
        ("lo-halloween", "session_summary", "halloween event retro", ["halloween", "retro"],
         "Halloween 2026 lifted day-7 retention by 3.1 points; the pumpkin currency inflated, cap it at 500 next time.",
         "how the spooky october event went", "what should we cap the pumpkin currency at", ""),
        ("lo-battlepass", "decision", "battle pass seasons are six weeks", ["battle-pass", "season"],
         "Seasons run 6 weeks with 50 tiers; the premium track costs 9.99 USD.",
         "the paid progression track with tiers", "how many tiers does a season have", "Season 4 goes to 60 tiers as a test."),
        ("lo-rewards", "constraint", "no event reward can be pay-only", ["rewards", "fairness"],
         "Every event reward must be earnable without paying; Keiko vetoes anything else.",
         "prizes you can only get by paying", "who vetoes paid-only prizes", ""),
        ("lo-push", "preference", "at most one push notification a day", ["push", "notifications"],
         "Max one push per player per day, none between 22:00 and 08:00 local time.",
         "sending phone alerts to players", "what are the quiet hours for notifications", ""),
    ]),
    "analytics": ("analytics", ["analytics", "telemetry"], [
        ("an-pipeline", "decision", "events go to bigquery through firebase", ["bigquery", "firebase"],
         "Client events flow through Firebase Analytics into BigQuery, exported daily; raw tables keep 13 months.",
         "where gameplay events end up", "how long do we keep the raw tables", ""),
        ("an-naming", "preference", "event names are verb_object", ["event-naming", "schema"],
         "Analytics events are named like complete_level and buy_item; params snake_case, at most 25 per event.",
         "how to call a new tracking event", "how many params can an event have", ""),
        ("an-consent", "constraint", "no tracking before consent in the eu", ["consent", "gdpr", "att"],
         "EU players see the consent dialog first; iOS asks ATT after the tutorial, never at launch.",
         "privacy popups and when we can start tracking", "when does the ios tracking prompt show", ""),
        ("an-dashboard", "runbook", "retention dashboard shows zeros", ["looker", "retention"],
         "When the Looker retention tiles show zeros, the daily export failed; rerun the export job bq-daily for that date.",
         "the player return numbers on the dashboard looking empty", "which job do I rerun when retention is blank", ""),
        ("an-ab", "decision", "a/b tests need 14 days and 5k players per arm", ["ab-test", "experiments"],
         "Experiments run at least 14 days with 5,000 players per arm before anyone reads the result.",
         "trying two versions of a feature on players", "how many players per arm do experiments need", ""),
    ]),
    "cheating": ("anti-cheat", ["anticheat", "security"], [
        ("ac-speedhack", "runbook", "speed hack reports", ["speedhack", "ban"],
         "Check server-side movement deltas over 12 m/s in the replay tool; two confirmed runs mean a 30-day ban.",
         "players moving impossibly fast", "how long is the ban for moving too fast", ""),
        ("ac-root", "decision", "rooted phones can play but not ranked", ["root", "jailbreak", "ranked"],
         "Rooted and jailbroken devices play casual modes only; Play Integrity verdict decides.",
         "modded android devices in competitive mode", "what decides if a phone counts as rooted", ""),
        ("ac-authority", "constraint", "server is authoritative for damage", ["authoritative", "damage"],
         "Damage and loot rolls are computed on the server; the client only predicts.",
         "the client deciding how much a hit hurts", "does the client calculate loot rolls", ""),
        ("ac-appeals", "preference", "ban appeals answered within 3 days", ["appeals", "support"],
         "Support answers ban appeals within 3 working days; Omar reviews anything involving purchases.",
         "people writing to support to get unbanned", "how fast do we answer an unban request", ""),
    ]),
    "art": ("art pipeline", ["art", "assets"], [
        ("art-bundles", "decision", "addressables for downloadable content", ["addressables", "bundles", "cdn"],
         "New maps ship as Addressables from the CDN; the install stays under 150 MB for the Play Store.",
         "downloading levels after install instead of shipping them in the app", "what's our install size cap", ""),
        ("art-textures", "constraint", "astc 6x6 on mobile", ["astc", "compression"],
         "Textures use ASTC 6x6 on iOS and Android; 4x4 only for UI atlases.",
         "how we squash textures for phones", "which block size for ui atlases", ""),
        ("art-naming", "preference", "asset names start with type prefix", ["asset-naming", "prefix"],
         "Prefabs start with PF_, materials with M_, textures with T_; Lucia's linter rejects the rest.",
         "what to call prefabs and files the artists make", "what prefix do materials get", ""),
        ("art-spine", "runbook", "spine animations import broken", ["spine", "animation"],
         "Spine 4.1 exports need the runtime 4.1.x package; after a version mismatch delete the Library/SpineCache folder.",
         "character animations not loading after the tool update", "which folder do I delete when animations break", ""),
        ("art-audio", "decision", "audio middleware is fmod", ["fmod", "audio"],
         "Sound runs through FMOD 2.02 with banks loaded per map; music streams, effects are preloaded.",
         "the tool we use for game sound", "which fmod version", ""),
    ]),
}

# per topic, chatter that shares the topic's words and none of a facet's (many per topic)
CHATTER = [("session_summary", "{label} chat with {who}", "Went over open {label} questions; nothing decided yet."),
           ("session_summary", "{label} sync notes {day}", "Status round on {label}; follow-ups assigned to {who}."),
           ("decision", "{label} owner for the {day} train", "{who} owns {label} for the {day} train."),
           ("runbook", "{label} checklist from {who}", "{who}'s checklist for {label} work before a train."),
           ("preference", "{who} on {label} reviews", "{who} prefers small pull requests for {label} changes."),
           ("tech_debt", "{label} cleanup ideas from {day}", "Ideas to tidy {label} code; none scheduled.")]
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "march", "april", "may", "june", "july",
        "august", "september", "october", "november", "december", "january", "february", "sprint 41",
        "sprint 42", "sprint 43", "sprint 44", "sprint 45", "the offsite", "the planning week"]

SHORT = ["{w}?", "{w} - what did we land on", "remind me about {w}", "anything on {w}", "what's the {w} thing again"]
CHAT = ["what did we decide about {s}?", "do we have a rule for {s}", "how do we handle {s} again",
        "what's our take on {s}", "{s} - is that written down somewhere?"]
LONG_OPEN = ["ok so {who} asked me about {s} earlier and I blanked,", "quick one before standup: {s},",
             "I'm writing the onboarding doc and got to {s},", "{who} and I were arguing about {s} yesterday -",
             "sorry if this was covered already but {s},"]
LONG_CLOSE = ["what did we agree on that?", "can you remind me what we said about it?", "is there anything saved on it?",
              "what's the current answer there?", "did we ever settle it?"]

TITLE = ["is this still true:", "wait, did we say", "context on", "who decided", "why"]

SILENT = [
    "write a regex that validates a uk postcode", "how do I rebase my feature branch onto main without losing work",
    "what's a good recipe for a quick weeknight curry", "fix the flaky unit test in utils/date_test.py",
    "explain python decorators with a small example", "convert this json to yaml for me",
    "what time is it in tokyo when it's 9am in london", "suggest a name for my new puppy",
    "how do I center a div in css", "how do I price my old bike for sale online",
    "my laptop fan makes a loud sound when I open chrome", "which olympic event has the longest history",
    "draft release notes for a small open source library", "what does a build system like bazel do",
    "recommend a board game for six players", "how do I delete a local git branch",
    "summarise the plot of the great gatsby", "best way to store passwords in a web app",
    "write a bash loop that renames all .txt files to .md", "how do crash diets affect metabolism",
    "plan a birthday event for my mum's 60th", "what's the difference between a list and a tuple in python",
    "how do I make a sourdough starter", "explain what kubernetes pods are to a beginner",
    "translate thank you very much into japanese", "is it worth buying a used electric car",
    "what's the capital of canada", "help me write a cover letter for a teaching job",
    "my sql query with three joins is slow, how do I read an explain plan", "how many steps a day is healthy",
    "what is the store of value argument for gold", "how to train for a first 10k run",
    "write a haiku about the sea", "how do I set up a python virtual environment",
    "explain big-o notation simply", "how to remove a red wine stain from a carpet",
    "what are good questions to ask at the end of a job interview", "how do I pick a good password manager",
    "convert 72 fahrenheit to celsius", "why do cats purr",
    "write a unit test for a function that adds two numbers", "what should I pack for a weekend in rome",
    "how does a mortgage offset account work", "rename a column in a pandas dataframe",
    "who won the world cup in 2010", "suggest a team name for our pub quiz",
    "what does http status 418 mean", "how do I update node on a mac",
    "explain how vaccines train the immune system", "make this sentence sound more polite: send me the file now",
]
SILENT_FRAMES = ["hey, unrelated to the game: {t}", "random question - {t}", "{t}, thanks!", "can you help me with something: {t}"]


def _typo(word: str, rng: random.Random) -> str:
    """Swap two neighbouring letters inside a word of 6+ letters (keeps the first three)."""
    i = rng.randrange(3, len(word) - 1)
    return word[:i] + word[i + 1] + word[i] + word[i + 2:]


def _typo_prompt(text: str, rng: random.Random) -> str:
    words = text.split()
    long_ones = [n for n, w in enumerate(words) if len(w) >= 6 and w.isalpha()]
    if long_ones:
        n = long_ones[rng.randrange(len(long_ones))]
        words[n] = _typo(words[n], rng)
    return " ".join(words)


def _word(tags: list, rng: random.Random) -> str:
    """A facet word as typed in chat: a tag, spaced, sometimes cut short (``matchmak``)."""
    word = tags[rng.randrange(len(tags))].replace("-", " ")
    if rng.random() < 0.25 and " " not in word and len(word) >= 8:
        word = word[:max(5, len(word) - 3)]
    return word


def build(out: Path) -> dict:
    rng = random.Random(SEED)
    memories, prompts = [], []

    def add(mid: str, category: str, title: str, tags: list, fact: str, extra: list, who: str) -> None:
        created = _stamp(rng, 500)
        memories.append({"schema_version": "1.0", "category": category, "id": mid, "title": title,
                         "created_at": created, "updated_at": created, "tags": sorted(set(tags)),
                         "record_status": "active", "content": _content(category, fact, extra, who)})

    for topic, (label, topic_tags, facets) in TOPICS.items():
        context = [f"Came up in the {label} thread.", f"Saved from a chat about {label}."]
        for key, category, title, tags, fact, said, ask, update in facets:
            who = rng.choice(PEOPLE)
            add(key, category, title, topic_tags + tags, fact, context, who)
            expected = [key]
            if update:
                add(f"{key}-update", "decision", f"update: {title}", topic_tags + tags[:1], update, context[:1], who)
                expected.append(f"{key}-update")
            # a session that touched the facet's topic without settling it (a hard negative)
            add(f"{key}-talk", "session_summary", f"{label} call with {who}", topic_tags + [who.lower()],
                f"Talked through {label} with {who}; the open items went to the tracker.", context, who)
            asks = [("short", rng.choice(SHORT).format(w=_word(tags, rng))),
                    ("chat", rng.choice(CHAT).format(s=said)),
                    ("long", f"{rng.choice(LONG_OPEN).format(who=rng.choice(PEOPLE), s=said)} {rng.choice(LONG_CLOSE)}"),
                    ("detail", ask)]
            if rng.random() < 0.5:
                asks.append(("title", f"{rng.choice(TITLE)} {title}?"))
            if rng.random() < 0.2:
                asks.append(("typo", _typo_prompt(ask, rng)))
            for kind, text in asks:
                prompts.append({"id": f"c-{key}-{kind}", "kind": kind, "expected": expected, "prompt": text})
        for n in range(CHATTER_PER_TOPIC):
            category, title, fact = CHATTER[n % len(CHATTER)]
            fill = {"label": label, "who": rng.choice(PEOPLE), "day": rng.choice(DAYS)}
            add(f"{topic}-chatter-{n:02d}", category, title.format(**fill), topic_tags + [fill["who"].lower()],
                fact.format(**fill), context[1:], fill["who"])
    for n, text in enumerate(SILENT):
        prompts.append({"id": f"c-silent-{n:03d}", "kind": "silent", "expected": [], "prompt": text})
        prompts.append({"id": f"c-silent-chat-{n:03d}", "kind": "silent_chat", "expected": [],
                        "prompt": rng.choice(SILENT_FRAMES).format(t=text)})
    return write_set(out, memories, prompts, "Pebbleworks, generated by build_chat.py")


def main(argv=None) -> int:
    return run(argv, __doc__, "chat", build)


if __name__ == "__main__":
    raise SystemExit(main())
