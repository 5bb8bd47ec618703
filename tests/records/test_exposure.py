"""The exposure rule's helpers (``records/exposure.py``) and the leaks issue 24 found: a private tag
printed as ``privatexprivate``, content keys at any depth, secret-shaped file names, the copies kept
outside the repository."""
from __future__ import annotations

import json
import os

from helpers import record, run_cli, run_prompt_hook, write
from team_memory.records.exposure import (name_is_shown, shown_message, shown_name, shown_tag, shown_text,
                                          shown_value)
from team_memory.records.snapshot import copies_dir, copy_path, blob_id, shown_copy

KEY = "AKIAIOSFODNN7EXAMPLE"
TOKEN = "ghp_" + "a1B2c3D4e5" * 4


def test_shown_text_hides_before_it_cleans_and_cuts():
    assert shown_text(f"rotate {KEY} now") == "rotate [REDACTED] now"
    assert shown_text("a <private>hunter2</private>\nb") == "a [PRIVATE] b"
    assert KEY[:10] not in shown_text(f"{'x' * 30} {KEY}", 36)  # hidden first, then cut: no half key
    assert shown_text(42) == "42"


def test_shown_tag_hides_the_raw_tag_not_its_cleaned_form():
    assert shown_tag("<private>Acme</private>") == ""  # was "privateacmeprivate"
    assert shown_tag(KEY) == "" and shown_tag(f"password={KEY[4:]}") == ""
    assert shown_tag("Redis") == "redis"


def test_shown_value_hides_keys_and_values_at_any_depth():
    value = {"rule": [{KEY: "x", "ok": [[{"deep": f"<private>hunter2</private> {TOKEN}"}]]}],
             TOKEN: 1, "[REDACTED]": 2}
    text = json.dumps(shown_value(value))
    assert KEY not in text and TOKEN not in text and "hunter2" not in text
    assert shown_value(value)["rule"][0]["ok"] == [[{"deep": "[PRIVATE] [REDACTED]"}]]
    assert sorted(shown_value(value)) == ["[REDACTED]", "[REDACTED] (2)", "rule"]  # hidden keys never collide


def test_a_related_entry_is_hidden_before_it_is_normalised():
    from team_memory.records.exposure import shown_related
    shown = shown_related(["https://deploy:pw9x@db.example.com/app.py", "app/session.py", "../out.py"])
    assert shown == {"https:/deploy:pw9x@db.example.com/app.py": "https://deploy:[REDACTED]@db.example.com/app.py",
                     "app/session.py": "app/session.py"}  # stored "https:/" no longer matches the URL pattern


def test_names_and_messages():
    assert shown_name(f"decisions/{TOKEN}.json") == "decisions/[REDACTED].json"
    assert not name_is_shown(f"{TOKEN}.json") and not name_is_shown(f"{KEY}.json")
    assert name_is_shown("use-api-key-rotation.json") and name_is_shown("password-policy.json")
    assert shown_message("content.rule: holds an unclosed tag (fix: close it with </private>)").endswith(
        "close it with </private>)")  # the tool's own message may name a tag
    assert "hunter2" not in shown_message(f"a <private>hunter2</private> and {KEY}")
    assert shown_message("fix: close it with </private>; 'a <private> hunter2'") == \
        "fix: close it with </private>; 'a [PRIVATE]"  # an opening tag never closed hides the rest


def test_a_private_tag_never_reaches_the_block_cleaned(project, memory_root):
    write(memory_root, record("decision", "redis-sessions", "Use redis for sessions",
                              ["redis", "<private>Acme</private>", f"{KEY}"]))
    out = run_prompt_hook(project, "how do we use redis for sessions?").stdout.decode()
    assert "Use redis for sessions" in out
    assert "acme" not in out.lower() and KEY.lower() not in out.lower() and "#tags:redis" in out
    stats = run_cli("stats", "--json", cwd=project).stdout
    assert [t["tag"] for t in json.loads(stats)["top_tags"]] == ["redis"]
    shown = run_cli("show", "redis-sessions", cwd=project).stdout
    assert "acme" not in shown.lower() and "tags: redis" in shown


def test_a_secret_shaped_file_name_is_not_recalled_nor_listed_raw(project, memory_root):
    write(memory_root, record("decision", TOKEN, "Use redis for sessions", ["redis"]))
    assert "Use redis for sessions" not in run_prompt_hook(project, "how do we use redis for sessions?").stdout.decode()
    for args in (("list",), ("list", "--json"), ("validate",), ("doctor",)):
        assert TOKEN not in run_cli(*args, cwd=project).stdout, args


def test_content_keys_are_hidden_by_show_and_the_post_tool_use_note(project, memory_root):
    rec = record("decision", "redis-sessions", "Use redis for sessions", ["redis"])
    rec["content"]["rationale"] = ["r", {KEY: "v", "nested": [{f"<private>hunter2</private>": TOKEN}]}]
    rec["content"][f"password={KEY[4:]}"] = "x"
    path = write(memory_root, rec)
    for args in (("show", "redis-sessions"), ("show", "redis-sessions", "--json")):
        out = run_cli(*args, cwd=project).stdout
        assert "Use redis for sessions" in out
        assert KEY[4:] not in out and TOKEN not in out and "hunter2" not in out, args
    from helpers import run_hook
    note = run_hook("post_tool_use.py", {"cwd": str(project), "hook_event_name": "PostToolUse", "tool_name": "Write",
                                         "tool_input": {"file_path": str(path), "content": "{}"},
                                         "tool_response": {}}, cwd=str(project)).stdout.decode()
    assert "not a valid memory" in note and KEY[4:] not in note and TOKEN not in note and "hunter2" not in note


def test_copies_keep_the_hidden_form_and_doctor_fix_scrubs_older_ones(project, memory_root):
    rec = record("decision", "redis-sessions", "Use redis for sessions", ["redis"])
    rec["content"]["context"] = f"the key is {KEY} <private>hunter2</private>"
    path = write(memory_root, rec)
    data = path.read_bytes()
    assert KEY.encode() not in shown_copy(data) and b"hunter2" not in shown_copy(data)
    assert json.loads(shown_copy(data))["content"]["decision"] == "d"  # still a record save --input takes
    plain = json.dumps(record("decision", "b", "B", ["b"])).encode()
    assert shown_copy(plain) is plain  # nothing hidden: the exact bytes
    # a copy made by an earlier version holds the raw bytes: doctor --fix rewrites it with the file
    os.makedirs(copies_dir(str(memory_root)), exist_ok=True)
    old_copy = copy_path(str(memory_root), blob_id(data))
    with open(old_copy, "wb") as f:
        f.write(data)
    proc = run_cli("doctor", "--fix", cwd=project)
    assert KEY not in path.read_text(), proc.stdout
    with open(old_copy, "rb") as f:
        kept = f.read()
    assert KEY.encode() not in kept and b"hunter2" not in kept and b"redis-sessions" in kept
