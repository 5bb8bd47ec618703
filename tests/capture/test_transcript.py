"""The transcript reader: offsets, bounds, corrupt and unknown lines."""
from __future__ import annotations

import json

import pytest

from helpers import transcript_line
from team_memory.capture.transcript import read_transcript


def roles(stretch):
    return [(t.role, t.text, t.tools) for t in stretch.turns]


def test_reads_messages_tool_uses_and_results(tmp_path):
    path = tmp_path / "t.jsonl"
    result = {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t0", "content": [{"type": "text", "text": "ok"}]}]}}
    path.write_text(transcript_line("user", "hello there") + transcript_line("assistant", "reading", tools=["Read"])
                    + json.dumps(result) + "\n" + json.dumps({"type": "user", "message": {"role": "user", "content": "plain"}}) + "\n")
    stretch = read_transcript(str(path))
    assert roles(stretch) == [("user", "hello there", ()), ("assistant", "reading", ("Read",)),
                              ("tool_result", "ok", ()), ("user", "plain", ())]
    assert stretch.end == path.stat().st_size and not stretch.skipped


def test_corrupt_unknown_meta_and_sidechain_lines_are_skipped(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"not json\n\xff\xfe\x00\n[1,2]\nnull\n" + json.dumps({"type": "summary", "summary": "x"}).encode() + b"\n"
                     + json.dumps({"type": "user", "message": "string"}).encode() + b"\n"
                     + json.dumps({"type": "assistant", "message": {"content": [{"type": "thinking", "thinking": "t"}, 5]}}).encode() + b"\n"
                     + transcript_line("user", "meta", isMeta=True).encode()
                     + transcript_line("assistant", "side", isSidechain=True).encode()
                     + b'{"type": "user", "message": {"content": ' + b"[" * 5000 + b"\n"
                     + transcript_line("assistant", "kept").encode())
    assert roles(read_transcript(str(path))) == [("assistant", "kept", ())]


def test_offset_reads_only_what_is_new(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(transcript_line("user", "first"))
    first = read_transcript(str(path))
    with open(path, "a") as f:
        f.write(transcript_line("assistant", "second"))
    second = read_transcript(str(path), first.end)
    assert roles(second) == [("assistant", "second", ())]
    assert read_transcript(str(path), second.end).turns == []


def test_partial_last_line_waits_for_the_next_read(tmp_path):
    path = tmp_path / "t.jsonl"
    whole = transcript_line("assistant", "complete later")
    path.write_text(transcript_line("user", "a") + whole[:20])
    stretch = read_transcript(str(path))
    assert roles(stretch) == [("user", "a", ())]
    with open(path, "a") as f:
        f.write(whole[20:])
    assert roles(read_transcript(str(path), stretch.end)) == [("assistant", "complete later", ())]


def test_whole_last_line_without_newline_counts(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(transcript_line("user", "a").rstrip("\n"))
    stretch = read_transcript(str(path))
    assert roles(stretch) == [("user", "a", ())] and stretch.end == path.stat().st_size


@pytest.mark.parametrize("offset", [-5, 10**9, "12", None, True])
def test_bad_or_stale_offset_reads_from_the_start(tmp_path, offset):
    path = tmp_path / "t.jsonl"
    path.write_text(transcript_line("user", "again"))
    assert roles(read_transcript(str(path), offset)) == [("user", "again", ())]


def test_read_is_bounded_to_the_newest_bytes(tmp_path):
    path = tmp_path / "t.jsonl"
    with open(path, "w") as f:
        for i in range(2000):
            f.write(transcript_line("user", f"message number {i}"))
    stretch = read_transcript(str(path), 0, max_bytes=4096)
    texts = [t.text for t in stretch.turns]
    assert stretch.skipped and texts[-1] == "message number 1999"
    assert 0 < len(texts) < 60 and all(t.startswith("message number") for t in texts)
    assert stretch.end == path.stat().st_size


def test_missing_file_raises_oserror(tmp_path):
    with pytest.raises(OSError):
        read_transcript(str(tmp_path / "nope.jsonl"))
