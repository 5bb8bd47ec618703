"""A fake model that does what team-memory's Stop reminder tells it, and nothing the test knows.

``StopFollower`` answers the prompt with ``reply``. When Claude Code hands it the Stop hook's
reminder, it reads the commands out of the reminder's own text, as a model would: the ``similar``
line (filling in the title), then, if that prints nothing, the ``save ... --record '...'`` line with
the template replaced by a whole record of the category the reminder names, encoded as the reminder
says (one line of JSON in single quotes, an apostrophe as ``'\\''``). Each is one Bash call; the test
supplies no command, path or permission of its own. ``calls`` lists the tool calls it made.
"""
from __future__ import annotations

import json
import re

from e2e_model import last_user_texts, text, tool_use

REMINDER = "team-memory: this part of the conversation may hold something"

# What a model would write for each category (valid content per the skill's field list).
RECORDS = {
    "decision": {
        "title": "Use Valkey instead of Redis for the session store",
        "tags": ["valkey", "redis", "sessions"],
        "content": {"status": "accepted",
                    "context": "Redis changed its license; the session store's `$REDIS_URL` points at Redis 7.2.",
                    "decision": "Switch the session store from Redis to Valkey 8.",
                    "rationale": ["the license change", "it's wire-compatible: the client doesn't change"],
                    "alternatives": [{"option": "stay on Redis 7.2", "rejected_reason": "no security fixes after 2026"}]},
    },
    "constraint": {
        "title": "Partner API: at most 10 calls a minute",
        "tags": ["partner-api", "rate-limit"],
        "content": {"kind": "limitation", "rule": "Never call the partner API more than 10 times a minute; it's a hard limit.",
                    "impact": ["bulk syncs must queue"], "severity": "high", "active": True},
    },
}


def reminder_in(body: dict) -> str | None:
    for value in last_user_texts(body):
        if REMINDER in value:
            return value[value.index(REMINDER):]
    return None


def commands_of(reminder: str) -> dict:
    """``{"similar": line, "save": line, "category": name}`` read from the reminder's text."""
    similar = re.search(r"^\d\. look for an existing one: (python3 .+ similar .+)$", reminder, re.M)
    save = re.search(r"^(python3 .+ save .*--record )'(.+)'$", reminder, re.M)
    if not similar or not save:
        raise AssertionError(f"the reminder has no similar/save command lines:\n{reminder}")
    template = json.loads(save.group(2).replace("{...}", "{}"))
    return {"similar": similar.group(1), "save": save.group(1), "category": template["category"]}


def encode_record(record: dict) -> str:
    """The record as the reminder asks: one line of JSON in single quotes, an apostrophe as '\\''."""
    return "'" + json.dumps(record, ensure_ascii=False).replace("'", "'\\''") + "'"


class StopFollower:
    def __init__(self, reply: str):
        self.reply = reply
        self.queue: list = []
        self.calls: list = []
        self.followed = 0
        self.record: dict | None = None
        self.pending_save: str | None = None

    def _bash(self, command: str) -> list:
        self.calls.append(command)
        return [text("Running the team-memory CLI."), tool_use("Bash", {"command": command, "description": "team-memory"})]

    def next_blocks(self, body: dict) -> list:
        reminder = reminder_in(body)
        if reminder is not None and body.get("tools"):
            self.followed += 1
            found = commands_of(reminder)
            self.record = dict(RECORDS[found["category"]], category=found["category"])
            title = json.dumps(self.record["title"])
            similar = found["similar"].replace('"<short title>"', title)
            self.pending_save = found["save"] + encode_record(self.record)
            return self._bash(similar)
        if self.pending_save is not None:
            results = [v for v in last_user_texts(body)]
            save, self.pending_save = self.pending_save, None
            if any("no similar memory" in v for v in results):  # as the reminder says: save a new one
                return self._bash(save)
            return [text("A similar memory exists; leaving it.")]
        if self.calls:
            return [text("Saved it to the team's memory.")]
        return [text(self.reply)]
