
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
