"""The ``view`` page: ``render(data, generated) -> str``, one self-contained HTML file from ``cmd_view.collect``.

The HTML holds every memory in full (it reads with scripts off); the script (``JS``) only filters and sorts, its
state in the URL fragment. Every value goes through ``esc`` (attributes double-quoted); the script's data is JSON
that cannot close its element (``script_json``). The Content-Security-Policy allows no request and no script but
the page's own (by hash), so even a value that slipped through could neither run nor load.
"""
from __future__ import annotations

import base64
import hashlib
import json
from collections import Counter
from html import escape

TOP_TAGS = 60  # facet entries listed (every tag and file of a memory is also a button on its card)
TOP_FILES = 40
STATUS_ORDER = ("stale", "invalid", "leak", "duplicate", "superseded", "deprecated", "proposed", "active", "retired",
                "archived")
SORTS = (("updated", "Last updated"), ("created", "Created"), ("title", "Title"), ("category", "Category"))


def esc(value) -> str:
    """A value as HTML text or a double-quoted attribute value."""
    return escape(value if isinstance(value, str) else str(value), quote=True)


def script_json(obj) -> str:
    """JSON that cannot end its ``<script>`` element or open another."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def csp() -> str:
    digest = base64.b64encode(hashlib.sha256(JS.encode("utf-8")).digest()).decode("ascii")
    return (f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; "
            "base-uri 'none'; form-action 'none'")


def statuses(m: dict) -> list:
    """The memory's status, its review kinds and its decision status, each once."""
    decision = [m["decision_status"]] if m["decision_status"] else []
    return list(dict.fromkeys([m["status"], *sorted({r["kind"] for r in m["review"]}), *decision]))


def label(name: str) -> str:
    text = name.replace("_", " ")
    return text[:1].upper() + text[1:]


def value_html(value, item: bool = False) -> str:
    """A content value (``cmd_view.shown_value``): text, a list or ``(key, value)`` pairs; ``item``: in a list."""
    if isinstance(value, list) and value and all(isinstance(v, tuple) for v in value):
        rejected = [k for k, _ in value] == ["option", "rejected_reason"] and all(isinstance(v, str) for _, v in value)
        if item and rejected:  # an alternative a decision turned down
            return f'<strong>{esc(value[0][1])}</strong> <span class="pairs"><span class="k">rejected:</span>' \
                   f'{esc(value[1][1])}</span>'
        return "".join(f'<div class="pairs"><span class="k">{esc(label(k))}</span>{value_html(v, True)}</div>'
                       for k, v in value)
    if isinstance(value, list):
        return "<ul>" + "".join(f"<li>{value_html(v, True)}</li>" for v in value) + "</ul>" if value else "<p>-</p>"
    return f'<span class="text">{esc(value)}</span>' if item and isinstance(value, str) else \
        f'<p class="text">{esc(value)}</p>'


def chips(facet: str, values: list, show=lambda v: v) -> str:
    return "".join(f'<li><button type="button" class="chip" data-facet="{facet}" data-value="{esc(v)}">'
                   f'{esc(show(v))}</button></li>' for v in values)


def review_html(m: dict) -> str:
    if not m["review"]:
        return ""
    items = []
    for r in m["review"]:
        extra = ""
        if r["kind"] == "stale" and m.get("stale"):
            extra = "".join(f'<div class="commits"><code>{esc(c["short"])}</code> <time>{esc(c["date"])}</time> '
                            f'{esc(c["subject"])}</div>' for c in m["stale"]["recent"])
        commands = '<div class="cmds">' + "".join(f'<span class="when">{esc(when)}</span><pre><code>{esc(c)}</code></pre>'
                                                  for when, c in r["commands"]) + "</div>"
        items.append(f'<li><strong>{esc(r["kind"])}</strong>: {esc(r["text"])}{extra}{commands}</li>')
    return f'<div class="review"><h4>Needs review</h4><ul>{"".join(items)}</ul></div>'


def memory_html(i: int, m: dict) -> str:
    badges = [f'<span class="badge cat">{esc(m["category_name"])}</span>']
    badges += [f'<span class="badge {esc(s)}">{esc(s)}</span>' for s in statuses(m) if s != "active"]
    meta = f'<code>{esc(m["id"])}</code> · created <time>{esc(m["created"][:10])}</time>' \
           f' · updated <time>{esc(m["updated"][:10])}</time>'
    for what, seen in (("added", m.get("git_added")), ("last changed", m.get("git_changed"))):
        if seen and (what == "added" or seen != m.get("git_added")):
            meta += f' · {what} by {esc(seen["author"])} on <time>{esc(seen["date"])}</time>'
    parts = [f'<div class="badges">{"".join(badges)}</div>', f'<h3>{esc(m["title"])}</h3>', f'<p class="meta">{meta}</p>']
    for state in ("retired", "archived"):
        if m.get(state):
            parts.append(f'<p class="meta">{state} <time>{esc(m[state]["at"][:10])}</time>: '
                         f'{esc(m[state]["reason"] or "(no reason given)")}</p>')
    if m["tags"]:
        parts.append(f'<ul class="chips">{chips("tag", m["tags"], lambda t: "#" + t)}</ul>')
    if m["content"]:
        parts.append('<dl class="content">' + "".join(f"<dt>{esc(label(k))}</dt><dd>{value_html(v)}</dd>"
                                                       for k, v in m["content"]) + "</dl>")
    if m["files"]:
        parts.append(f'<div class="files">Related files<ul class="chips">{chips("file", m["files"])}</ul></div>')
    parts.append(review_html(m))
    if m["changes"]:
        rows = "".join(f'<li><time>{esc(c["date"][:10])}</time> <span class="text">{esc(c["summary"])}</span></li>'
                       for c in m["changes"])
        n = len(m["changes"])
        parts.append(f'<details class="history"><summary>History ({n} change{"" if n == 1 else "s"}) · '
                     f'<code>{esc(m["path"])}</code></summary><ol>{rows}</ol></details>')
    else:
        parts.append(f'<p class="meta"><code>{esc(m["path"])}</code></p>')
    inactive = m["status"] != "active"
    return (f'<article class="memory{" inactive" if inactive else ""}" data-memory-id="{esc(m["id"])}" '
            f'data-i="{i}" data-category="{esc(m["category"])}"{" hidden" if inactive else ""}>'
            + "".join(parts) + "</article>\n")


def facet_html(title: str, facet: str, counts: Counter, limit: int | None = None, show=lambda v: v) -> str:
    if not counts:
        return ""
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    rows = "".join(f'<li><button type="button" data-facet="{facet}" data-value="{esc(v)}"><span>{esc(show(v))}</span>'
                   f'<span class="n">{n}</span></button></li>' for v, n in items[:limit or len(items)])
    more = f'<li class="more">and {len(items) - limit} more (click one on a memory)</li>' \
        if limit and len(items) > limit else ""
    return f"<h2>{esc(title)}</h2><ul>{rows}{more}</ul>"


def render(data: dict, generated: str) -> str:
    # newest change first, as the script sorts by default (and as the page reads without it)
    memories = sorted(data["memories"], key=lambda m: m["updated"], reverse=True)
    active = [m for m in memories if m["status"] == "active"]
    review = sum(1 for m in active if m["review"])
    names = {m["category"]: m["category_name"] for m in memories}
    cats = Counter(m["category"] for m in active)
    status_counts = Counter(s for m in memories for s in statuses(m))
    status_counts = Counter({s: status_counts[s] for s in STATUS_ORDER if status_counts[s]})
    facets = (facet_html("Category", "category", cats, show=lambda c: names.get(c, c))
              + facet_html("Status", "status", status_counts)
              + facet_html("Tag", "tag", Counter(t for m in active for t in set(m["tags"])), TOP_TAGS,
                           show=lambda t: "#" + t)
              + facet_html("Related file", "file", Counter(f for m in active for f in set(m["files"])), TOP_FILES))
    rows = [{"t": " ".join(m["tokens"]), "c": m["category"], "g": m["tags"], "f": m["files"], "s": statuses(m),
             "r": bool(m["review"]), "a": m["status"] == "active", "u": m["updated"], "cr": m["created"],
             "ti": m["title"].lower()} for m in memories]
    payload = script_json({"m": rows, "sw": sorted(data.get("stop_words", [])), "active": len(active)})
    inactive = len(memories) - len(active)
    summary = (f'{len(active)} active memor{"y" if len(active) == 1 else "ies"} · {review} need'
               f'{"s" if review == 1 else ""} review · {inactive} retired or archived · '
               f'{len(data["invalid"])} invalid file{"" if len(data["invalid"]) == 1 else "s"} · generated {generated}')
    sorts = "".join(f'<option value="{k}">{esc(v)}</option>' for k, v in SORTS)
    invalid = "".join(f'<li><code>{esc(f["path"])}</code>: {esc("; ".join(f["problems"]) or "is not a valid memory")}'
                      f'<pre><code>{esc(f["command"])}</code></pre></li>' for f in data["invalid"])
    if invalid:
        n = len(data["invalid"])
        invalid = (f'<section class="panel" id="invalid-panel"><h2>{n} file{"" if n == 1 else "s"} to fix</h2>'
                   f'<ul>{invalid}</ul></section>')
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{esc(csp())}">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>Team memory · {esc(data["project"])}</title>
<style>{CSS}</style>
<noscript><style>{NOSCRIPT_CSS}</style></noscript>
</head>
<body>
<header class="top">
<h1>Team memory <span class="project">· {esc(data["project"])}</span></h1>
<p class="summary">{esc(summary)}</p>
<div class="controls js-only">
<input type="search" id="q" maxlength="200" placeholder="Search memories (word forms, prefixes, CJK)" aria-label="Search memories" autocomplete="off" spellcheck="false">
<button type="button" id="review-toggle" aria-pressed="false">Needs review ({review})</button>
<label><input type="checkbox" id="show-inactive"> retired and archived ({inactive})</label>
<select id="sort" aria-label="Sort by">{sorts}</select>
<button type="button" id="clear">Clear</button>
<span id="count" aria-live="polite"></span>
</div>
</header>
<div class="layout">
<nav class="facets js-only" aria-label="Filters">{facets}</nav>
<main>
{invalid}
<div id="memories">
{"".join(memory_html(i, m) for i, m in enumerate(memories))}</div>
<p id="empty" hidden>No memory matches. Clear the search or a filter.</p>
</main>
</div>
<footer>Made by <code>memory.py view</code>; memories are the JSON files under <code>.claude/memory/</code>.</footer>
<script type="application/json" id="tm-data">{payload}</script>
<script>{JS}</script>
</body>
</html>
"""


CSS = """
:root{--bg:#f7f7f5;--card:#fff;--text:#1d1f23;--muted:#5d636c;--line:#e2e2de;--accent:#2f5fd0;
--chip:#eef1f6;--warn:#9a5b00;--warnbg:#fff4df;--bad:#b3261e;--badbg:#fde8e6;--ok:#1e7a46;--okbg:#e3f4ea;
--code:#f1f1ee;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#15171a;--card:#1d2024;--text:#e6e6e3;--muted:#9aa0a8;--line:#30343a;
--accent:#8fb0ff;--chip:#262b33;--warn:#f0b45a;--warnbg:#33291a;--bad:#ff8a80;--badbg:#3a1f1d;--ok:#7fd6a2;
--okbg:#1b3326;--code:#262a30}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,
"Noto Sans","Helvetica Neue",Arial,sans-serif}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.86em}
.top{position:sticky;top:0;z-index:2;background:var(--bg);border-bottom:1px solid var(--line);padding:14px 24px 12px}
.top h1{margin:0;font-size:1.25rem;font-weight:650}
.top h1 .project{color:var(--muted);font-weight:500}
.summary{margin:2px 0 10px;color:var(--muted);font-size:.9rem}
.controls{display:flex;flex-wrap:wrap;gap:10px;align-items:center}
#q{flex:1 1 320px;max-width:560px;padding:8px 12px;border:1px solid var(--line);border-radius:8px;
background:var(--card);color:var(--text);font:inherit}
#q:focus{outline:2px solid var(--accent);outline-offset:1px}
button,select{font:inherit;color:inherit}
.controls button,.controls select,.controls label{border:1px solid var(--line);background:var(--card);
border-radius:8px;padding:6px 10px;font-size:.9rem;cursor:pointer}
.controls button[aria-pressed=true]{background:var(--warnbg);border-color:var(--warn);color:var(--warn)}
#count{color:var(--muted);font-size:.9rem}
.layout{display:grid;grid-template-columns:240px minmax(0,1fr);gap:24px;padding:18px 24px;max-width:1280px}
@media (max-width:800px){.layout{grid-template-columns:1fr}}
.facets h2{font-size:.75rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:16px 0 6px}
.facets h2:first-child{margin-top:0}
.facets ul{list-style:none;margin:0;padding:0}
.facets li button{display:flex;justify-content:space-between;gap:8px;width:100%;text-align:left;border:0;
background:none;padding:3px 8px;border-radius:6px;cursor:pointer;font-size:.9rem;overflow-wrap:anywhere}
.facets li button:hover{background:var(--chip)}
.facets li button[aria-pressed=true]{background:var(--accent);color:var(--card)}
.facets .n{color:var(--muted);font-variant-numeric:tabular-nums}
.facets li button[aria-pressed=true] .n{color:inherit}
.facets .more{color:var(--muted);font-size:.8rem;padding:2px 8px}
.panel{background:var(--badbg);border:1px solid var(--bad);border-radius:10px;padding:10px 16px;margin-bottom:16px}
.panel h2{font-size:1rem;margin:4px 0}
.panel li{margin:4px 0}
.memory{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px 18px;margin:0 0 14px;
content-visibility:auto;contain-intrinsic-size:auto 260px}
.memory.inactive{opacity:.72}
.memory h3{margin:2px 0 2px;font-size:1.06rem;line-height:1.35;overflow-wrap:anywhere}
.memory .meta{margin:0;color:var(--muted);font-size:.84rem;overflow-wrap:anywhere}
.badges{display:flex;flex-wrap:wrap;gap:6px;align-items:center}
.badge{font-size:.72rem;font-weight:600;letter-spacing:.02em;text-transform:uppercase;border-radius:999px;
padding:1px 8px;background:var(--chip);color:var(--muted)}
.badge.cat{color:var(--accent)}
.badge.stale,.badge.superseded,.badge.deprecated,.badge.duplicate{background:var(--warnbg);color:var(--warn)}
.badge.invalid,.badge.leak{background:var(--badbg);color:var(--bad)}
.badge.retired,.badge.archived{background:var(--chip);color:var(--muted)}
.badge.proposed{background:var(--okbg);color:var(--ok)}
.chips{display:flex;flex-wrap:wrap;gap:6px;list-style:none;margin:8px 0 0;padding:0}
.chip{border:0;background:var(--chip);border-radius:6px;padding:1px 8px;font-size:.82rem;cursor:pointer;
overflow-wrap:anywhere;text-align:left}
.chip:hover{outline:1px solid var(--accent)}
.files{margin:8px 0 0;font-size:.86rem;color:var(--muted)}
dl.content{margin:10px 0 0;display:grid;grid-template-columns:max-content minmax(0,1fr);gap:4px 14px}
dl.content>dt{color:var(--muted);font-size:.86rem;padding-top:1px}
dl.content>dd{margin:0;overflow-wrap:anywhere}
dl.content ul,dl.content ol{margin:0;padding-left:1.2em}
@media (max-width:600px){dl.content{grid-template-columns:1fr}}
.text{white-space:pre-wrap;margin:0}
.pairs .k{color:var(--muted);font-size:.84rem;margin-right:6px}
.review{margin-top:12px;background:var(--warnbg);border-radius:8px;padding:8px 12px;font-size:.9rem}
.review h4{margin:0 0 4px;font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:var(--warn)}
.review ul{margin:0;padding-left:1.1em}
.review .cmds{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:4px 10px;align-items:baseline;
margin:4px 0 6px}
.review .when{color:var(--muted);font-size:.82rem;text-align:right}
.review pre{margin:0;padding:3px 8px;background:var(--code);border-radius:6px;white-space:pre-wrap;
overflow-wrap:anywhere}
@media (max-width:600px){.review .cmds{grid-template-columns:1fr}.review .when{text-align:left}}
.review .commits{color:var(--muted);font-size:.84rem;margin:2px 0}
details.history{margin-top:10px;font-size:.88rem}
details.history summary{cursor:pointer;color:var(--muted)}
details.history ol{margin:6px 0 0;padding-left:1.2em}
time{font-variant-numeric:tabular-nums}
#empty{color:var(--muted);padding:24px 0}
footer{color:var(--muted);font-size:.8rem;padding:0 24px 24px}
"""

# Shown only when scripts are off: every memory (retired ones too), no controls that need a script.
NOSCRIPT_CSS = ".js-only{display:none!important}.memory[hidden]{display:block!important}"

JS = r"""
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('tm-data').textContent);
  var M = data.m, SW = new Set(data.sw);
  var arts = [], hay = [], hid = [];  // hid: each card's hidden state, kept here so a key reads no DOM
  document.querySelectorAll('article[data-memory-id]').forEach(function (a) { arts[+a.dataset.i] = a; });
  for (var i = 0; i < M.length; i++) { hay.push(' ' + M[i].t + ' '); hid.push(arts[i].hidden); }
  var q = document.getElementById('q'), count = document.getElementById('count');
  var reviewBtn = document.getElementById('review-toggle'), allBox = document.getElementById('show-inactive');
  var sortSel = document.getElementById('sort'), list = document.getElementById('memories');
  var empty = document.getElementById('empty'), panel = document.getElementById('invalid-panel');
  var FACETS = ['category', 'tag', 'file', 'status'];
  var state = {}, sorted = 'updated', pressed = null;
  // A fragment is anyone's link: sort keys looked up as own properties only (not __proto__), the query cut short.
  var SORTS = {updated: function (m) { return m.u; }, created: function (m) { return m.cr; },
               title: function (m) { return m.ti; }, category: function (m) { return m.c + ' ' + m.ti; }};
  var MAX_Q = 200, MAX_GROUPS = 24;
  function sortKey(k) { return k && Object.prototype.hasOwnProperty.call(SORTS, k) ? k : 'updated'; }

  // --- the hook's word rules, as far as a page can (text/textnorm.py) ---
  var HAN = 4, WORD = 5, JOIN = 6, OTHER = 7, WORDCH = /[\p{L}\p{N}\p{M}]/u;
  var SCRIPTS = [/[\uAC00-\uD7A3\u1100-\u11FF\u3130-\u318F]/u, /[\u3040-\u309F]/u, /[\u30A0-\u30FF\u31F0-\u31FF]/u,
                 /[\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\u{20000}-\u{3FFFF}]/u];  // Hangul, kana, kana, Han: 1 to 4
  function cls(ch) {
    for (var k = 0; k < SCRIPTS.length; k++) if (SCRIPTS[k].test(ch)) return k + 1;
    return '_-./'.indexOf(ch) >= 0 ? JOIN : WORDCH.test(ch) ? WORD : OTHER;
  }
  function runs(text) {
    var chars = Array.from(text), out = [], i = 0, n = chars.length;
    while (i < n) {
      var c = cls(chars[i]), j = i + 1;
      if (c <= HAN) {
        while (j < n && cls(chars[j]) === c) j++;
        out.push([c, chars.slice(i, j).join('')]);
      } else if (c === WORD || chars[i] === '_') {
        while (j < n) {
          var d = cls(chars[j]);
          if (d === WORD || chars[j] === '_' || (d === JOIN && j + 1 < n && cls(chars[j + 1]) === WORD)) j++;
          else break;
        }
        out.push([WORD, chars.slice(i, j).join('')]);
      } else { i++; continue; }
      i = j;
    }
    return out;
  }
  function splitCase(w) {
    var out = [], start = 0;
    for (var i = 1; i < w.length; i++) {
      var p = w[i - 1], c = w[i], nx = w[i + 1] || '';
      var up = c !== c.toLowerCase(), pl = p !== p.toUpperCase(), pu = p !== p.toLowerCase();
      if (up && (pl || /[0-9]/.test(p) || (pu && nx && nx !== nx.toUpperCase()))) { out.push(w.slice(start, i)); start = i; }
    }
    out.push(w.slice(start));
    return out.filter(Boolean);
  }
  function fold(w) {
    if (w.length < 4 || !/^[a-z]+$/.test(w)) return w;
    var end = function (s) { return w.slice(-s.length) === s; }, stripped = false;
    if (end('ies') && w.length > 4) w = w.slice(0, -3) + 'y';
    else if (end('sses')) w = w.slice(0, -2);
    else if (end('s') && !end('ss') && !end('us') && !end('is') && w.length > 3) w = w.slice(0, -1);
    if (end('ied') && w.length > 4) w = w.slice(0, -3) + 'y';
    else if (end('ing') && w.length - 3 >= 3) { w = w.slice(0, -3); stripped = true; }
    else if (end('ed') && !end('eed') && w.length - 2 >= 3) { w = w.slice(0, -2); stripped = true; }
    else if (end('tion') && w.length - 3 >= 4) w = w.slice(0, -3);
    else if (end('ment') && w.length - 4 >= 4) w = w.slice(0, -4);
    if (stripped && w.length >= 4 && w[w.length - 1] === w[w.length - 2] && 'aeioulsz'.indexOf(w[w.length - 1]) < 0)
      w = w.slice(0, -1);
    if (end('e') && w.length >= 4) w = w.slice(0, -1);
    return w;
  }
  // Python's casefold() where it differs from toLowerCase() in common text (German, Greek)
  function low(w) { return w.toLowerCase().replace(/\u00df/g, 'ss').replace(/\u03c2/g, '\u03c3'); }
  function keep(f) { return f && !SW.has(f) && (f.length >= 2 || cls(f) === HAN); }
  // Each group: [whole, parts...]; a memory meets a group when a word of it begins with the whole
  // (or its folded form), or with every part.
  function groups(text) {
    var out = [];
    runs(text.normalize('NFKC')).forEach(function (r) {
      var forms;
      if (r[0] === WORD) {
        var raw = r[1].replace(/^[_\-.\/]+|[_\-.\/]+$/g, '');
        if (!raw) return;
        var pieces = [];
        raw.split(/[_\-.\/]/).forEach(function (p) { if (p) pieces = pieces.concat(splitCase(p)); });
        forms = [low(raw)].concat(pieces.length > 1 ? pieces.map(low) : []);
      } else {
        var s = Array.from(r[1]);
        forms = [r[1]];
        if (s.length > 1) for (var k = 0; k + 1 < s.length; k++) forms.push(s[k] + s[k + 1]);
        else if (r[0] !== HAN) return;
      }
      if (SW.has(forms[0])) return;
      var whole = forms[0], parts = forms.slice(1).filter(keep);
      if (keep(whole) || parts.length) out.push([whole, parts]);
    });
    return out;
  }
  // A word as the needles it is looked for by: ' word' and ' fold(word)' (a word of the memory begins with it).
  function needles(w) { var f = fold(w); return f === w ? [' ' + w] : [' ' + w, ' ' + f]; }
  function prepare(gs) { return gs.map(function (g) { return [needles(g[0]), g[1].map(needles)]; }); }
  function has(h, n) { return h.indexOf(n[0]) >= 0 || (n.length > 1 && h.indexOf(n[1]) >= 0); }
  function meets(h, g) {
    if (has(h, g[0])) return true;
    if (!g[1].length) return false;
    for (var k = 0; k < g[1].length; k++) if (!has(h, g[1][k])) return false;
    return true;
  }

  // --- state <-> URL fragment ---
  function readHash() {
    var p = new URLSearchParams(location.hash.replace(/^#/, ''));
    state = {q: (p.get('q') || '').slice(0, MAX_Q), review: p.get('review') === '1', all: p.get('all') === '1',
             sort: sortKey(p.get('sort'))};
    FACETS.forEach(function (f) { state[f] = p.get(f) || ''; });
  }
  function writeHash() {
    var p = new URLSearchParams();
    if (state.q) p.set('q', state.q);
    FACETS.forEach(function (f) { if (state[f]) p.set(f, state[f]); });
    if (state.review) p.set('review', '1');
    if (state.all) p.set('all', '1');
    if (state.sort !== 'updated') p.set('sort', state.sort);
    var h = p.toString().replace(/\+/g, '%20');
    try { history.replaceState(null, '', h ? '#' + h : location.pathname + location.search); }
    catch (e) { location.replace('#' + h); }
  }

  function apply() {
    var gs = prepare(groups(state.q.slice(0, MAX_Q)).slice(0, MAX_GROUPS)), shown = 0;
    var inactiveOk = state.all || state.status === 'retired' || state.status === 'archived';
    for (var i = 0; i < M.length; i++) {
      var m = M[i], ok = (m.a || inactiveOk) && (!state.review || m.r);
      if (ok && state.category) ok = m.c === state.category;
      if (ok && state.tag) ok = m.g.indexOf(state.tag) >= 0;
      if (ok && state.file) ok = m.f.indexOf(state.file) >= 0;
      if (ok && state.status) ok = m.s.indexOf(state.status) >= 0;
      for (var k = 0; ok && k < gs.length; k++) ok = meets(hay[i], gs[k]);
      if (hid[i] === ok) { hid[i] = !ok; arts[i].hidden = !ok; }
      if (ok) shown++;
    }
    count.textContent = shown === data.active && !state.all ? data.active + ' memories' :
      'showing ' + shown + ' of ' + (state.all ? M.length : data.active);
    empty.hidden = shown > 0;
    if (panel) panel.hidden = !state.review && !!(state.q || state.category || state.tag || state.file || state.status);
    if (q.value !== state.q && document.activeElement !== q) q.value = state.q;
    reviewBtn.setAttribute('aria-pressed', String(state.review));
    allBox.checked = state.all;
    var facets = FACETS.map(function (f) { return state[f]; }).join('\n');
    if (facets !== pressed) {  // (only when a facet changed: typing touches no button)
      pressed = facets;
      document.querySelectorAll('.facets button[data-facet]').forEach(function (b) {
        b.setAttribute('aria-pressed', String(state[b.dataset.facet] === b.dataset.value));
      });
    }
    if (state.sort !== sorted) sortBy(state.sort);
    sortSel.value = state.sort;
  }
  function sortBy(key) {  // (key: checked by sortKey where it came in)
    var by = SORTS[key], desc = key === 'updated' || key === 'created', frag = document.createDocumentFragment();
    M.map(function (m, i) { return i; }).sort(function (a, b) {
      var x = by(M[a]), y = by(M[b]);
      return (x < y ? -1 : x > y ? 1 : 0) * (desc ? -1 : 1) || a - b;
    }).forEach(function (i) { frag.appendChild(arts[i]); });
    list.appendChild(frag);
    sorted = key;
  }

  function changed() { apply(); writeHash(); }
  var pending = 0;
  q.addEventListener('input', function () {
    state.q = q.value.slice(0, MAX_Q);
    if (!pending) pending = requestAnimationFrame(function () { pending = 0; changed(); });
  });
  document.addEventListener('click', function (e) {
    var b = e.target.closest('button[data-facet]');
    if (!b) return;
    state[b.dataset.facet] = state[b.dataset.facet] === b.dataset.value ? '' : b.dataset.value;
    changed();
  });
  reviewBtn.addEventListener('click', function () { state.review = !state.review; changed(); });
  allBox.addEventListener('change', function () { state.all = allBox.checked; changed(); });
  sortSel.addEventListener('change', function () { state.sort = sortKey(sortSel.value); changed(); });
  document.getElementById('clear').addEventListener('click', function () {
    state = {q: '', review: false, all: false, sort: state.sort, category: '', tag: '', file: '', status: ''};
    q.value = '';
    changed();
  });
  window.addEventListener('hashchange', function () { readHash(); q.value = state.q; apply(); });
  readHash();
  q.value = state.q;
  apply();
  document.documentElement.dataset.ready = '1';
})();
"""
