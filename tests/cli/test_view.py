"""``view`` without a browser: what the HTML file holds (every memory, escaped, nothing private), where it is
written, who and when from git, the review items and their commands. The browser tests are in test_view_browser.py."""
from __future__ import annotations

import base64
import json
import hashlib
import os
import re

import pytest

from view_stores import BAD_TAG, CJK_TITLE, SECRETS, demo_project, hostile_project, page_data

from helpers import REPO
from team_memory.cli.main import main
from team_memory.cli.viewpage import JS
from team_memory.cli.viewpage import script_json


def build(project, *extra) -> str:
    out = project / "page.html"
    assert main(["view", "--root", str(project), "--out", str(out), *extra]) == 0
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    project = hostile_project(tmp_path_factory.mktemp("view"))
    return project, build(project)


def articles(html: str) -> dict:
    """data-memory-id -> the article's HTML."""
    found = re.findall(r'<article class="memory[^"]*" data-memory-id="([^"]*)"(.*?)</article>', html, re.S)
    return {ident: body for ident, body in found}


def test_every_memory_is_in_the_html_in_full_so_the_page_reads_without_scripts(tmp_path):
    project = demo_project(tmp_path)
    html = build(project)
    store = project / ".claude" / "memory"
    files = sorted(p.stem for p in store.glob("*/*.json") if not p.parent.name.startswith("."))
    assert sorted(articles(html)) == files
    body = articles(html)["use-redis-for-sessions"]
    for text in ("Use Redis for web session storage", "Sticky sessions broke rolling deploys.",
                 "Keep web sessions in Redis with a 14-day TTL.", "any instance can serve any user", "#redis",
                 "added by Ana Example"):
        assert text in body
    assert "<dt>Rationale</dt>" in body and "<dt>Context</dt>" in body
    runbook = articles(html)["fix-pydantic-import"]
    assert "<dt>Steps</dt>" in runbook and "<dt>Verification</dt>" in runbook
    # nothing is loaded from anywhere: no src/href to a resource, a CSP that allows no request
    assert not re.search(r'\b(src|href)="', html)
    assert "default-src &#x27;none&#x27;" in html


def test_a_hostile_title_is_escaped_text_and_the_data_block_cannot_end_its_script(hostile):
    _, html = hostile
    assert "<img" not in html and "onerror=\"document" not in html
    assert html.count("<script") == 2 and html.count("</script>") == 2  # the data block and the page's script
    body = articles(html)["hostile-title"]
    assert "&lt;img src=x onerror=&quot;document.title=&#x27;pwned&#x27;&quot;&gt;&lt;/script&gt;" in body
    data = page_data(html)  # the title travels in the data block too, escaped for a script element
    assert any("/script" in row["ti"] for row in data["m"])
    assert script_json({"t": "</script><!--&"}) == '{"t":"\\u003c/script\\u003e\\u003c!--\\u0026"}'


def test_the_csp_allows_exactly_the_pages_script():
    digest = base64.b64encode(hashlib.sha256(JS.encode()).digest()).decode()
    from team_memory.cli.viewpage import CSP
    assert f"script-src 'sha256-{digest}'" in CSP


def test_no_secret_private_text_or_invalid_value_reaches_the_page(hostile):
    _, html = hostile
    for secret in SECRETS:
        assert secret not in html, secret
    body = articles(html)["rotate-keys"]
    assert "[REDACTED]" in body and "[PRIVATE]" in body
    # the invalid files are named, with the field and what is wrong, never the value
    assert ".claude/memory/tech-debt/broken.json" in html and ".claude/memory/tech-debt/bad-tags.json" in html
    panel = html[html.index('id="invalid-panel"'):html.index("</section>")]
    assert "tags[0]: has a value that is not allowed" in panel and BAD_TAG not in panel


def test_review_items_name_what_is_wrong_and_the_command_that_settles_it(hostile):
    _, html = hostile
    items = articles(html)
    stale = items["use-redis-for-sessions"]
    assert "app/session.py changed since; 1 commit" in stale and "sessions move to postgres" in stale
    assert "update use-redis-for-sessions --reviewed" in stale
    assert "retire decisions/use-memcached" in items["use-memcached"] and "superseded" in items["use-memcached"]
    assert "edit tech-debt/bad-tags" in items["bad-tags"]
    leak = items["rotate-keys"]
    assert "leak</strong>: the file still holds content.trigger: holds 1 private section(s)" in leak
    assert "doctor --fix" in leak and "invalid</strong>" not in leak
    assert "Needs review" not in items[next(i for i in items if "cache-ttl" in i)]
    rows = {row["ti"]: row for row in page_data(html)["m"]}
    assert rows["use redis for user sessions"]["r"] is True and "stale" in rows["use redis for user sessions"]["s"]
    assert rows[CJK_TITLE]["r"] is False


def test_git_names_who_added_a_memory_and_who_changed_it_escaped(hostile):
    _, html = hostile
    assert "added by Ana &amp; &quot;Example&quot; [REDACTED] on" in articles(html)["use-redis-for-sessions"]
    assert "last changed" not in articles(html)["use-redis-for-sessions"]  # one commit added it, none since
    ttl = articles(html)["cache-ttl"]
    assert "added by Ana &amp;" in ttl and "last changed by Cy on" in ttl and "five minutes" in ttl


def test_retired_memories_are_hidden_until_shown(hostile):
    _, html = hostile
    assert re.search(r'data-memory-id="prefer-tabs"[^>]*\bhidden>', html)
    assert not re.search(r'data-memory-id="use-redis-for-sessions"[^>]*\bhidden>', html)
    assert "we use just now" in articles(html)["prefer-tabs"]


def test_search_tokens_follow_the_hooks_word_rules(hostile):
    _, html = hostile
    rows = {row["ti"]: row["t"].split() for row in page_data(html)["m"]}
    cjk = rows[CJK_TITLE]
    assert "キャッシュ" in cjk and "キャ" in cjk  # the whole run and its bigrams
    words = rows["rotate the deploy keys"]
    assert "rotat" in words and "rotate" in words  # the folded form and the word as written
    assert not any(s.lower() in " ".join(words) for s in SECRETS)


def test_without_out_it_writes_into_the_ignored_cache_and_prints_the_path(tmp_path, capsys):
    project = demo_project(tmp_path)
    capsys.readouterr()
    assert main(["view", "--root", str(project), "--no-git"]) == 0
    printed = capsys.readouterr().out.strip()
    target = project / ".claude" / "memory" / ".cache" / "view.html"
    assert printed == str(target) and target.is_file() and not target.is_symlink()
    assert "added by" not in target.read_text(encoding="utf-8")  # --no-git: no git run


def test_a_cache_folder_that_is_a_link_is_never_written_through(tmp_path):
    project = demo_project(tmp_path)
    cache = project / ".claude" / "memory" / ".cache"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    import shutil
    shutil.rmtree(cache)
    os.symlink(elsewhere, cache)
    assert main(["view", "--root", str(project), "--no-git"]) == 1
    assert list(elsewhere.iterdir()) == []


def test_out_naming_a_folder_is_refused(tmp_path, capsys):
    project = demo_project(tmp_path)
    assert main(["view", "--root", str(project), "--out", str(tmp_path)]) == 1
    assert "is a folder" in capsys.readouterr().err



@pytest.mark.slow  # a long check: TEAM_MEMORY_SLOW=1 and .ci/run
def test_near_duplicates_are_doctors_pairs_found_without_comparing_every_pair():
    import random
    from difflib import SequenceMatcher
    from team_memory.cli.viewdupes import NEAR_DUPLICATE, near_duplicates
    rng = random.Random(3)
    words = "cache session queue worker redis deploy rollback retry token billing export invoice".split()
    titles = [("decision", " ".join(rng.choice(words) for _ in range(rng.randint(3, 6)))) for _ in range(300)]
    titles += [("decision", "use redis for user sessions"), ("decision", "use redis for user session"),
               ("runbook", "use redis for user sessions"), ("decision", "use rediss for user sessions")]
    def near(a: str, b: str) -> bool:  # ratio() <= quick_ratio() <= real_quick_ratio(): the cheap bounds first
        matcher = SequenceMatcher(None, a, b)
        return all(ratio() >= NEAR_DUPLICATE for ratio in (matcher.real_quick_ratio, matcher.quick_ratio, matcher.ratio))
    brute = {(i, j) for i in range(len(titles)) for j in range(i + 1, len(titles))
             if titles[i][0] == titles[j][0] and near(titles[i][1], titles[j][1])}
    found = set(near_duplicates(titles))
    assert found <= brute
    assert {(300, 301), (300, 303), (301, 303)} <= found and not any(302 in p for p in found)  # same category only
    assert len(found) >= 0.9 * len(brute)


def test_hand_edited_files_of_any_shape_never_break_the_page(tmp_path):
    store = tmp_path / "weird" / ".claude" / "memory"
    (store / "decisions").mkdir(parents=True)
    (store / "runbooks").mkdir()
    (store / "decisions" / "w1.json").write_text(json.dumps({
        "schema_version": "1.0", "category": "decision", "id": "w1", "title": 42, "tags": "notalist",
        "content": ["a", {"b": [1, {"c": {"d": {"e": {"f": {"g": {"h": "deep"}}}}}}]}], "changes": ["x"]}))
    (store / "runbooks" / "w2.json").write_text(json.dumps({
        "schema_version": "1.0", "category": "runbook", "id": "w2", "title": "ok \u202e evil \u0007 bell",
        "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z", "tags": ["a", 7],
        "content": {"trigger": "t", "steps": ["s", None, True], "verification": "v", "<b>key</b>": {"x": [1]}},
        "changes": [{"summary": "<i>x</i>"}, "not an object"], "record_status": "weird"}))
    (store / "runbooks" / "w3.json").write_text("[]")
    html = build(tmp_path / "weird")
    assert list(articles(html)) == ["w2"]
    body = articles(html)["w2"]
    assert "ok evil bell" in body and "\u202e" not in html and "\u0007" not in html
    assert "&lt;b&gt;key&lt;/b&gt;" in body and "<b>" not in html and "&lt;i&gt;x&lt;/i&gt;" in body
    panel = html[html.index('id="invalid-panel"'):html.index("</section>")]
    assert "decisions/w1.json" in panel and "runbooks/w3.json" in panel and "runbooks/w2.json" in panel


def test_without_chromium_the_browser_tests_skip_with_a_reason_or_fail_in_ci(monkeypatch):
    import browser_support
    monkeypatch.setattr(browser_support, "chromium", lambda: None)
    monkeypatch.delenv("TEAM_MEMORY_REQUIRE_E2E", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y chromium"):
        browser_support.require_chromium()
    monkeypatch.setenv("TEAM_MEMORY_REQUIRE_E2E", "1")
    with pytest.raises(pytest.fail.Exception, match="TEAM_MEMORY_REQUIRE_E2E=1"):
        browser_support.require_chromium()


def test_open_hands_the_file_to_the_users_browser(tmp_path, monkeypatch):
    import webbrowser
    project = demo_project(tmp_path)
    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or True)
    out = project / "p.html"
    assert main(["view", "--root", str(project), "--out", str(out), "--open", "--no-git"]) == 0
    assert opened == [out.as_uri()]


def test_memories_similar_would_name_for_each_other_are_flagged_but_not_a_shared_tag(tmp_path):
    from helpers import record, write
    html = build(demo_project(tmp_path))
    assert "similar to api-rate-limit (shares the words api, limit, rate)" in articles(html)["api-auth-rate-limit"]
    assert "similar to api-auth-rate-limit" in articles(html)["api-rate-limit"]
    project = tmp_path / "tags"
    store = project / ".claude" / "memory"
    write(store, record("decision", "use-redis-for-sessions", "Use Redis for user sessions", tags=["redis"]))
    write(store, record("decision", "cache-pages-in-redis", "Cache rendered pages for an hour", tags=["redis"]))
    write(store, record("decision", "use-redis-for-session", "Keep the user sessions in Redis", tags=["redis", "web"]))
    items = articles(build(project))
    assert "similar to" not in items["cache-pages-in-redis"]
    assert "similar to use-redis-for-session " in items["use-redis-for-sessions"]


def test_the_docs_recipe_makes_the_missing_site_folder_in_the_repository(tmp_path, monkeypatch, capsys):
    recipe = re.search(r"memory\.py (view --out \S+)", (REPO / "docs" / "guide.md").read_text()).group(1)
    project = demo_project(tmp_path)
    monkeypatch.chdir(project)
    assert main([*recipe.split(), "--no-git"]) == 0, capsys.readouterr().err
    page = project / recipe.split()[-1]
    assert page.is_file() and "memory" in page.read_text(encoding="utf-8")
    assert " active memor" in capsys.readouterr().err


def test_the_missing_folder_is_made_neither_outside_the_repository_nor_through_a_link(tmp_path, capsys):
    project = demo_project(tmp_path)
    outside = tmp_path / "outside"
    assert main(["view", "--root", str(project), "--out", str(outside / "site" / "i.html")]) == 1
    assert not outside.exists()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, project / "site")
    assert main(["view", "--root", str(project), "--out", str(project / "site" / "deep" / "i.html")]) == 1
    assert list(elsewhere.iterdir()) == []
