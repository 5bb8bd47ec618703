"""``doctor``'s check of ``memory-config.json`` values: each setting the shipped defaults know must have
the default's type (a number where a number is expected, true/false, text, a list, an object),
``match_strategy`` must name a strategy, and every ``triage.extra_cues`` pattern must be one the Stop
hook runs (valid, short, unable to backtrack: ``base.patternrisk``). The hooks fall back to defaults for
a bad value (a line on stderr), so without this check a typo would quietly change nothing."""
from __future__ import annotations

import json

from ..base.config import DEFAULT_CONFIG_PATH
from ..records.exposure import shown_text


def _kind(value) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "null"


def _walk(stored: dict, default: dict, prefix: str, out: list) -> None:
    for key, value in stored.items():
        name = f"{prefix}{key}"
        if key not in default:
            if prefix.startswith("categories.") or prefix.startswith("triage."):
                continue  # open-ended sections (extra cues, a category's own settings)
            out.append((name, "is not a setting team-memory knows (a typo?)", True))
            continue
        want = default[key]
        if want is None:
            continue  # null default: several shapes are allowed (stop_words.replace)
        if isinstance(want, dict) and isinstance(value, dict):
            _walk(value, want, name + ".", out)
        elif _kind(value) != _kind(want):
            out.append((name, f"is {_kind(value)} ({shown_text(json.dumps(value), 40)}), expected {_kind(want)}; "
                              f"the default {json.dumps(want)[:40]} is used instead", False))


def config_problems(stored: dict) -> list:
    """``[(setting, message, warning_only)]`` for the values of a store's config that the defaults reject."""
    with open(DEFAULT_CONFIG_PATH, encoding="utf-8") as f:
        default = json.load(f)
    default.setdefault("retrieval", {}).setdefault("fuzzy", True)  # documented, off only when false
    out: list = []
    _walk(stored, default, "", out)
    out += extra_cue_problems(stored.get("triage"))
    strategy = stored.get("retrieval", {}).get("match_strategy") if isinstance(stored.get("retrieval"), dict) else None
    if isinstance(strategy, str):
        from ..text.features import FEATURES as STRATEGIES
        if strategy not in STRATEGIES:
            retired = " (the prior plugin's title_tags scoring was retired in 0.4.0)" if strategy == "title_tags" else ""
            out.append(("retrieval.match_strategy", f"{shown_text(repr(strategy), 60)} is not one of {', '.join(sorted(STRATEGIES))}"
                                                    f"{retired}; smart is used instead", False))
    return out


def extra_cue_problems(triage) -> list:
    """``triage.extra_cues`` patterns the Stop hook leaves out (``base.patternrisk``), each with its fix."""
    from ..base.patternrisk import backtrack_risk
    from ..capture.triage import MAX_EXTRA_CUES, extra_cue_patterns, surplus_extra_cues
    extra = triage.get("extra_cues") if isinstance(triage, dict) else None
    out = []
    for where, pattern in extra_cue_patterns(extra):
        reason = backtrack_risk(pattern)
        if reason:
            out.append((where, f"cue {pattern[:60]!r} {reason}, so Stop ignores it; rewrite it with one repeat "
                               "per stretch of text and no repeat inside a repeated group (a character class "
                               "instead of alternatives: [ab]+ rather than (a|b|ab)+), or remove it", False))
    surplus = surplus_extra_cues([(w, p) for w, p in extra_cue_patterns(extra) if not backtrack_risk(p)])
    if surplus:
        out.append((surplus[0][0], f"{len(surplus)} cues from {shown_text(repr(surplus[0][1][:60]), 70)} on are past "
                                   f"the {MAX_EXTRA_CUES} triage.extra_cues Stop uses, so it ignores them (each cue "
                                   "runs on every line of a conversation); merge cues into fewer patterns or "
                                   "remove some", False))
    return out

