"""The page's script against a fragment anyone can put in a link (``#sort=__proto__``, a 45 KB ``#q=``), run in
Node with the few DOM calls it makes stubbed (``NODE_PAGE``), so it runs where no Chromium is installed; the
real browser tests are ``tests/cli/test_view_browser.py``."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from urllib.parse import quote

import pytest

from team_memory.cli.main import main
from team_memory.cli.viewpage import JS
from view_stores import demo_project

NODE_PAGE = r"""
const vm = require('vm');
const [data, hash] = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const M = JSON.parse(data).m;
function el(extra) {
  return Object.assign({value: '', hidden: false, textContent: '', checked: false, dataset: {}, maxLength: -1,
    setAttribute() {}, addEventListener() {}, appendChild() {}}, extra || {});
}
const byId = {'tm-data': el({textContent: data})};
const arts = M.map((m, i) => el({dataset: {i: String(i), memoryId: m.id}}));
const location = {hash: hash, pathname: '/page.html', search: ''};
const document = {
  getElementById: (id) => byId[id] || (byId[id] = el()),
  querySelectorAll: (sel) => sel.startsWith('article') ? arts : [],
  createDocumentFragment: () => el(), activeElement: null, documentElement: el(), addEventListener() {},
};
const context = {document, location, URLSearchParams, Set, Array, Object, JSON, String,
  history: {replaceState: (a, b, h) => { location.hash = h.startsWith('#') ? h : ''; }},
  window: {addEventListener() {}}, requestAnimationFrame: (f) => setTimeout(f, 0)};
let error = null;
const began = process.hrtime.bigint();
try { vm.runInNewContext(process.env.PAGE_JS, context); } catch (e) { error = String(e); }
console.log(JSON.stringify({error, ready: document.documentElement.dataset.ready || null,
  shown: arts.filter((a) => !a.hidden).length, total: M.length, query: byId.q ? byId.q.value.length : 0,
  hash: location.hash.length, ms: Number(process.hrtime.bigint() - began) / 1e6}));
"""


@pytest.fixture(scope="module")
def page_data(tmp_path_factory):
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    project = demo_project(tmp_path_factory.mktemp("view-fragment"))
    out = project / "page.html"
    assert main(["view", "--root", str(project), "--out", str(out)]) == 0
    return re.search(r'<script type="application/json" id="tm-data">(.*?)</script>', out.read_text(), re.S).group(1)


def run_page(page_data: str, fragment: str) -> dict:
    proc = subprocess.run(["node", "-e", NODE_PAGE], input=json.dumps([page_data, fragment]), capture_output=True,
                          text=True, timeout=60, env={"PAGE_JS": JS, "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_stub_runs_the_page_as_a_browser_would(page_data):
    result = run_page(page_data, "")
    assert result["error"] is None and result["ready"] == "1" and 0 < result["shown"] <= result["total"]
    assert run_page(page_data, "#q=zzzz")["shown"] == 0  # the filter really runs


@pytest.mark.parametrize("key", ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"])
def test_a_sort_key_from_the_prototype_does_not_break_the_filters(page_data, key):
    result = run_page(page_data, f"#sort={key}")
    assert result["error"] is None and result["ready"] == "1", result  # on main: TypeError, nothing filters
    assert run_page(page_data, f"#sort={key}&q=zzzz")["shown"] == 0


def test_a_long_query_in_the_fragment_is_cut_short(page_data):
    result = run_page(page_data, "#q=" + quote("redis sessions " * 3000))  # 45 KB
    assert result["error"] is None and result["ready"] == "1"
    assert result["query"] <= 200, result  # on main: all 45,000 characters, searched on every memory
