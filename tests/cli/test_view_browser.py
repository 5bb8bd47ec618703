"""``view``'s page in a real browser (headless Chromium): opened offline from ``file://``, every active memory
shown, ``#q=`` and typing filter, a facet filters, a hostile title stays text, the stale filter shows the stale
memory. On ``demo --keep``'s store and on a hostile store in a real git repository. Skips with a reason without
Chromium; fails instead under ``TEAM_MEMORY_REQUIRE_E2E=1`` (CI)."""
from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest

from browser_support import Browser, dump_dom, require_chromium
from view_stores import CJK_TITLE, SECRETS, demo_project, hostile_project

from team_memory.cli.main import main

VISIBLE = "Array.from(document.querySelectorAll('article[data-memory-id]')).filter(a => !a.hidden)" \
          ".map(a => a.dataset.memoryId).sort()"


def page(project) -> str:
    out = project / "page.html"
    assert main(["view", "--root", str(project), "--out", str(out)]) == 0
    return out.as_uri()


@pytest.fixture(scope="module")
def browser():
    require_chromium()
    with Browser() as b:
        yield b


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    require_chromium()
    project = demo_project(tmp_path_factory.mktemp("view-demo"))
    return project, page(project)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    require_chromium()
    project = hostile_project(tmp_path_factory.mktemp("view-hostile"))
    return project, page(project)


def visible(browser, url: str) -> list:
    browser.open(url)
    return browser.eval(VISIBLE)


def active_ids(project) -> list:
    ids = []
    for path in (project / ".claude" / "memory").glob("*/*.json"):
        if not path.parent.name.startswith("."):
            try:
                rec = json.loads(path.read_text())
            except ValueError:
                continue
            if rec.get("record_status", "active") == "active":
                ids.append(path.stem)
    return sorted(ids)


def test_the_page_opens_offline_with_every_active_memory_shown(browser, demo):
    project, url = demo
    assert visible(browser, url) == active_ids(project) and len(active_ids(project)) == 10
    assert browser.eval("performance.getEntriesByType('resource').length") == 0  # nothing requested
    assert browser.eval("document.querySelector('[data-memory-id=\"use-celery-beat-for-cron\"]').hidden") is True


def test_dump_dom_with_a_search_in_the_fragment(demo):
    _, url = demo
    dom = dump_dom(url + "#q=redis")
    shown = re.findall(r'<article [^>]*data-memory-id="([^"]+)"(?![^>]*\bhidden)[^>]*>', dom)
    assert shown == ["use-redis-for-sessions"]


def test_the_fragment_search_uses_the_hooks_word_forms_and_prefixes(browser, demo):
    _, url = demo
    assert visible(browser, url + "#q=redis") == ["use-redis-for-sessions"]
    assert visible(browser, url + "#q=" + quote("rolling back deploys")) == ["roll-back-a-failed-deploy"]
    assert visible(browser, url + "#q=pydant") == ["fix-pydantic-import", "use-pydantic-v2"]
    assert visible(browser, url + "#q=ImportError") == ["fix-pydantic-import"]
    assert visible(browser, url + "#q=zzzz") == []
    assert browser.eval("document.getElementById('empty').hidden") is False


def test_typing_filters_as_you_type_and_keeps_the_search_in_the_url(browser, demo):
    _, url = demo
    browser.open(url)
    browser.eval("document.getElementById('q').focus()")
    browser.type("sessio")
    assert browser.eval(VISIBLE) == ["session-2026-02", "use-redis-for-sessions"]
    assert browser.eval("location.hash") == "#q=sessio"


def test_a_facet_filters_and_is_kept_in_the_url(browser, demo):
    _, url = demo
    browser.open(url)
    browser.eval("document.querySelector('.facets button[data-facet=\"category\"][data-value=\"decision\"]').click()")
    assert browser.eval(VISIBLE) == ["use-pydantic-v2", "use-redis-for-sessions"]
    assert browser.eval("location.hash") == "#category=decision"
    browser.eval("document.querySelector('article[data-memory-id=\"use-pydantic-v2\"] .chip[data-facet=\"tag\"]')"
                 ".click()")  # a tag on a card narrows further
    assert browser.eval(VISIBLE) == ["use-pydantic-v2"]
    assert visible(browser, url + "#tag=redis") == ["use-redis-for-sessions"]


def test_a_hostile_title_shows_as_text_and_runs_nothing(browser, hostile):
    _, url = hostile
    browser.open(url)
    title = browser.eval("document.querySelector('article[data-memory-id=\"hostile-title\"] h3').textContent")
    assert title.startswith("<img src=x onerror=") and "</script><script>" in title
    assert browser.eval("document.querySelectorAll('img, svg, iframe, object').length") == 0
    assert browser.eval("document.scripts.length") == 2
    assert "pwned" not in browser.eval("document.title")
    text = browser.eval("document.documentElement.outerHTML")
    assert not any(secret in text for secret in SECRETS)


def test_the_stale_filter_shows_the_stale_memory(browser, hostile):
    project, url = hostile
    assert visible(browser, url + "#status=stale") == ["use-redis-for-sessions"]
    review = visible(browser, url + "#review=1")
    assert "use-redis-for-sessions" in review and "use-memcached" in review and "bad-tags" in review
    assert "cache-ttl" not in review  # nothing to review about it
    browser.open(url)
    browser.eval("document.getElementById('review-toggle').click()")
    assert browser.eval(VISIBLE) == review and browser.eval("location.hash") == "#review=1"
    assert browser.eval("document.getElementById('invalid-panel').hidden") is False


def test_retired_memories_show_only_with_the_toggle(browser, hostile):
    project, url = hostile
    assert "prefer-tabs" not in visible(browser, url)
    assert visible(browser, url) == active_ids(project)
    browser.eval("document.getElementById('show-inactive').click()")
    assert "prefer-tabs" in browser.eval(VISIBLE) and browser.eval("location.hash") == "#all=1"


def test_a_cjk_search_meets_its_bigrams(browser, hostile):
    _, url = hostile
    assert visible(browser, url + "#q=" + quote("キャッシュ")) == ["cache-ttl"]
    assert visible(browser, url + "#q=" + quote("有効期限")) == ["cache-ttl"]
    assert CJK_TITLE in browser.eval("document.body.textContent")


def test_with_scripts_off_the_page_still_reads_every_memory(demo):
    import time
    project, url = demo
    with Browser() as b:
        b.send("Emulation.setScriptExecutionDisabled", {"value": True})
        b.send("Page.navigate", {"url": url + "#q=zzzz"})
        deadline = time.monotonic() + 60
        while b.eval("document.readyState") != "complete" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert b.eval("document.documentElement.dataset.ready") is None  # the page's script did not run
        shown = b.eval("Array.from(document.querySelectorAll('article[data-memory-id]'))"
                       ".filter(a => getComputedStyle(a).display !== 'none').length")
        assert shown == len(active_ids(project)) + 1  # the retired one too: nothing can toggle it
        assert b.eval("getComputedStyle(document.querySelector('.controls')).display") == "none"
        assert "Sticky sessions broke rolling deploys." in b.eval("document.body.textContent")


def test_a_query_is_case_folded_as_python_folds_it(browser, tmp_path):
    from helpers import record, write
    project = tmp_path / "de"
    store = project / ".claude" / "memory"
    write(store, record("runbook", "strasse", "Die Straße der Deploys", tags=["deploy"]))
    write(store, record("runbook", "other", "Something else entirely", tags=["misc"]))
    url = page(project)
    assert visible(browser, url + "#q=" + quote("STRASSE")) == ["strasse"]
    assert visible(browser, url + "#q=" + quote("straße")) == ["strasse"]
