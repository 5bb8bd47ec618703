"""The ``view`` page: ``render(data, generated) -> str``, one self-contained HTML file from ``cmd_view.collect``.
Its frame, style and script are the files ``view.html``, ``view.css`` and ``view.js`` beside this module.

The HTML holds every memory in full (it reads with scripts off); the script (``JS``) only filters and sorts, its
state in the URL fragment. Every value goes through ``esc`` (attributes double-quoted); the script's data is JSON
that cannot close its element (``script_json``). The Content-Security-Policy allows no request and no script but
the page's own (by hash), so even a value that slipped through could neither run nor load.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
from collections import Counter
from html import escape
from string import Template

TOP_TAGS = 60  # facet entries listed (every tag and file of a memory is also a button on its card)
TOP_FILES = 40
STATUS_ORDER = ("stale", "invalid", "leak", "duplicate", "superseded", "deprecated", "proposed", "active", "retired",
                "archived")
HERE = os.path.dirname(os.path.abspath(__file__))


def _asset(name: str) -> str:
    with open(os.path.join(HERE, name), encoding="utf-8", newline="") as f:
        return f.read()


CSS, JS = _asset("view.css"), _asset("view.js")  # the script only filters and sorts (its state in the URL fragment)
PAGE = Template(_asset("view.html"))  # the page around them; its <noscript> style shows every memory, no controls
DIGEST = base64.b64encode(hashlib.sha256(JS.encode("utf-8")).digest()).decode("ascii")
CSP = (f"default-src 'none'; script-src 'sha256-{DIGEST}'; style-src 'unsafe-inline'; base-uri 'none'; "
       "form-action 'none'")


def esc(value) -> str:
    """A value as HTML text or a double-quoted attribute value."""
    return escape(value if isinstance(value, str) else str(value), quote=True)


def script_json(obj) -> str:
    """JSON that cannot end its ``<script>`` element or open another."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


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
    invalid = "".join(f'<li><code>{esc(f["path"])}</code>: {esc("; ".join(f["problems"]) or "is not a valid memory")}'
                      f'<pre><code>{esc(f["command"])}</code></pre></li>' for f in data["invalid"])
    if invalid:
        n = len(data["invalid"])
        invalid = (f'<section class="panel" id="invalid-panel"><h2>{n} file{"" if n == 1 else "s"} to fix</h2>'
                   f'<ul>{invalid}</ul></section>')
    return PAGE.substitute(csp=esc(CSP), project=esc(data["project"]), css=CSS, summary=esc(summary), review=review,
                           inactive=inactive, facets=facets, invalid=invalid, payload=payload, js=JS,
                           memories="".join(memory_html(i, m) for i, m in enumerate(memories)))

