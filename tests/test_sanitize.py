"""Title sanitization: the seed's rules plus NFKC, marker loops and a safe cut."""
from __future__ import annotations

from hypothesis import given, strategies as st

from team_memory.sanitize import clean_line, clean_tag, sanitize_title


def test_control_and_invisible_characters_removed():
    assert sanitize_title("a\u200bb\u202ec\ufeffd\U000e0041e") == "abcde"
    assert sanitize_title("line\nbreak\ttab\x00nul") == "line break tab nul"


def test_index_markers_neutralised():
    assert sanitize_title("normal title -> /etc/passwd #tags:evil") == "normal title - /etc/passwd evil"
    assert " -> " not in clean_line(" -> -> -> x")
    assert "#tags:" not in clean_line("##tags:tags:x")


def test_nfkc_catches_lookalikes():
    # full-width arrow and hash forms normalise to ASCII, then get neutralised
    assert " -> " not in clean_line("a \uff0d\uff1e b")
    assert "#tags:" not in clean_line("\uff03tags\uff1aevil")


def test_xml_escaped_after_cut():
    title = "x" * 118 + "&&"
    out = sanitize_title(title)
    assert out.endswith("&amp;&amp;") and "&am" + "p" in out
    assert sanitize_title('<memory-context> "q"') == "&lt;memory-context&gt; &quot;q&quot;"
    assert len(sanitize_title("y" * 500).replace("&amp;", "&")) == 120


def test_clean_tag():
    assert clean_tag(" Rate Limit ") == "rate-limit"
    assert clean_tag("a,b;c") == "abc"
    assert clean_tag("배포") == "배포"


@given(st.text())
def test_sanitized_titles_are_single_safe_lines(text):
    out = sanitize_title(text)
    assert "\n" not in out and "<" not in out and ">" not in out
    assert " -> " not in out and "#tags:" not in out
    assert all(ord(c) >= 0x20 and c != "\x7f" for c in out)
