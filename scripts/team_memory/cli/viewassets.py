"""The ``view`` page's style sheet and script, inlined into every page (no file, font or request).

The script only filters and sorts what the HTML holds; its state is in the URL fragment. Its query words follow
the hook's rules (``text.textnorm``) as far as a page can. The page's CSP allows exactly this script by its hash.
"""
from __future__ import annotations

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
.pairs{margin:0}
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
  var HANGUL = 1, HIRA = 2, KATA = 3, HAN = 4, WORD = 5, JOIN = 6, OTHER = 7, WORDCH = /[\p{L}\p{N}\p{M}]/u;
  function cls(ch) {
    var o = ch.codePointAt(0);
    if ((o >= 0xAC00 && o <= 0xD7A3) || (o >= 0x1100 && o <= 0x11FF) || (o >= 0x3130 && o <= 0x318F)) return HANGUL;
    if (o >= 0x3040 && o <= 0x309F) return HIRA;
    if ((o >= 0x30A0 && o <= 0x30FF) || (o >= 0x31F0 && o <= 0x31FF)) return KATA;
    if ((o >= 0x3400 && o <= 0x4DBF) || (o >= 0x4E00 && o <= 0x9FFF) || (o >= 0xF900 && o <= 0xFAFF) ||
        (o >= 0x20000 && o <= 0x3FFFF)) return HAN;
    if ('_-./'.indexOf(ch) >= 0) return JOIN;
    return WORDCH.test(ch) ? WORD : OTHER;
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
  function sortBy(key) {
    var order = M.map(function (m, i) { return i; });
    key = sortKey(key);
    var by = SORTS[key];
    var desc = key === 'updated' || key === 'created';
    order.sort(function (a, b) {
      var x = by(M[a]), y = by(M[b]);
      return x < y ? (desc ? 1 : -1) : x > y ? (desc ? -1 : 1) : a - b;
    });
    var frag = document.createDocumentFragment();
    order.forEach(function (i) { frag.appendChild(arts[i]); });
    list.appendChild(frag);
    sorted = key;
  }

  var pending = 0;
  q.addEventListener('input', function () {
    state.q = q.value.slice(0, MAX_Q);
    if (!pending) pending = requestAnimationFrame(function () { pending = 0; apply(); writeHash(); });
  });
  document.addEventListener('click', function (e) {
    var b = e.target.closest('button[data-facet]');
    if (!b) return;
    var f = b.dataset.facet, v = b.dataset.value;
    state[f] = state[f] === v ? '' : v;
    apply(); writeHash();
  });
  reviewBtn.addEventListener('click', function () { state.review = !state.review; apply(); writeHash(); });
  allBox.addEventListener('change', function () { state.all = allBox.checked; apply(); writeHash(); });
  sortSel.addEventListener('change', function () { state.sort = sortKey(sortSel.value); apply(); writeHash(); });
  document.getElementById('clear').addEventListener('click', function () {
    state = {q: '', review: false, all: false, sort: state.sort, category: '', tag: '', file: '', status: ''};
    q.value = ''; apply(); writeHash();
  });
  window.addEventListener('hashchange', function () { readHash(); q.value = state.q; apply(); });
  readHash();
  q.value = state.q;
  apply();
  document.documentElement.dataset.ready = '1';
})();
"""
