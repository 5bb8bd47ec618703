"""JSON settings files (``.claude/settings.json``, other agents' hook and MCP files): read strictly, written back
with a backup of a changed file, every other setting kept. The drop-in's hook entries carry ``HOOK_MARKER``;
``install --plugin`` writes ``extraKnownMarketplaces["team-memory"]`` and ``enabledPlugins["team-memory@team-memory"]``
(docs/install.md). The two would run every hook twice, so each refuses while the other is there."""
from __future__ import annotations

import json
import os
import re

from ..base.fsutil import atomic_write_text
from ..base.safefs import read_text

HOOK_MARKER = "/.claude/team-memory/hooks/"  # every hook command we install contains it


class InstallError(Exception):
    """The install cannot proceed safely; the message says why and what to do."""


def read_settings(path: str, hooks: bool = True) -> tuple[dict, str | None]:
    """The settings object and the file's text (None: no file); ``hooks``: its "hooks" must map events to lists."""
    try:
        text = read_text(path)  # never through a link (safefs), bounded
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path}: {exc}") from None
    if text is None:
        return {}, None
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); fix it (or move it away) and run again. "
                           "Nothing was changed.") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} is not a JSON object; fix it and run again. Nothing was changed.")
    found = data.get("hooks", {})
    if hooks and (not isinstance(found, dict) or any(not isinstance(v, list) for v in found.values())):
        raise InstallError(f"{path}: \"hooks\" must be an object of event -> list of groups; fix it and run again. "
                           "Nothing was changed.")
    return data, text


def with_key(data: dict, key: str, value) -> dict:
    """``data`` with ``key`` set to ``value`` (in its place), or taken out when ``value`` is empty."""
    if value:
        return dict(data, **{key: value})
    return {k: v for k, v in data.items() if k != key}


def is_our_hook(hook) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and HOOK_MARKER in hook["command"]


def without_our_hooks(hooks: dict) -> dict:
    """``hooks`` with every team-memory hook removed; groups left empty by that are dropped."""
    out = {}
    for event, groups in hooks.items():
        kept = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(is_our_hook(h) for h in inner):
                kept.append(group)
                continue
            rest = [h for h in inner if not is_our_hook(h)]
            if rest:
                kept.append(dict(group, hooks=rest))
        if kept:
            out[event] = kept
    return out


def write_hooks(path: str, ours: dict | None) -> dict:
    """Our hook groups in the file at ``path`` instead of earlier ones (None: out; an emptied file goes)."""
    data, original = read_settings(path)
    hooks = without_our_hooks(data.get("hooks", {}))
    if ours is None:
        return write_settings(path, with_key(data, "hooks", hooks), original, delete_if_empty=True)
    for event, groups in ours.items():
        hooks[event] = hooks.get(event, []) + groups
    return write_settings(path, dict(data, hooks=hooks), original)


def write_settings(path: str, data: dict, original: str | None, delete_if_empty: bool = False) -> dict:
    """Write ``data`` if it differs from the file; back the old file up first. Returns what happened."""
    result = {"path": path, "changed": False, "backup": None, "removed": False}
    if original is None and not data and delete_if_empty:  # no file: nothing written
        return result
    if original is not None:
        try:
            if json.loads(original) == data:
                return result
        except ValueError:
            pass
        result["backup"] = path + ".bak"
        atomic_write_text(result["backup"], original)
    result["changed"] = True
    if not data and delete_if_empty:
        os.unlink(path)
        result["removed"] = True
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return result


MARKETPLACE = "team-memory"             # .claude-plugin/marketplace.json's "name" (a test keeps them equal)
PLUGIN_ID = "team-memory@team-memory"   # plugin.json's "name" @ the marketplace
DEFAULT_SOURCE = "team-memory/team-memory"  # the repository plugin.json names (GitHub owner/repo)
# What a git or GitHub marketplace source checks out (sparse, cone mode: top-level files always come): the runtime
# and manifests, not tests/ or docs/, so the plugin cache holds 1.4 MB instead of 5.2 MB (test_team_plugin.py).
SPARSE_PATHS = (".claude-plugin", ".claude", "hooks", "scripts", "templates")
MAX_SOURCE_CHARS = 2000
OWNER_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")


def _scp_like(text: str) -> bool:
    """``user@host:path``, git's short ssh form (plain string work: a pattern over it was quadratic)."""
    user, at, rest = text.partition("@")
    host, colon, path = rest.partition(":")

    def name(part: str) -> bool:
        return bool(part) and all(c.isalnum() or c in "_.-" for c in part)
    return bool(at and colon and name(user) and name(host) and path) and not any(c.isspace() for c in path)


def marketplace_source(text: str) -> dict:
    """A marketplace source object from ``owner/repo`` (GitHub) or a git URL, both sparse, or a folder path."""
    text = text.strip()
    if len(text) > MAX_SOURCE_CHARS:
        raise InstallError(f"a marketplace source of {len(text)} characters is not one (at most {MAX_SOURCE_CHARS})")
    if re.fullmatch(r"(https?|ssh|git|file)://\S+", text) or _scp_like(text):
        return {"source": "git", "url": text, "sparsePaths": list(SPARSE_PATHS)}
    owner, slash, repo = text.partition("/")  # owner/repo as GitHub spells it (plain string checks: linear)
    if slash and owner and repo and owner[0] != "-" and set(owner) <= OWNER_CHARS \
            and set(repo) <= OWNER_CHARS | {".", "_"}:
        return {"source": "github", "repo": text, "sparsePaths": list(SPARSE_PATHS)}
    if text.startswith(("./", "../", "/", "~")) or os.path.isabs(text):
        return {"source": "directory", "path": os.path.abspath(os.path.expanduser(text))}
    raise InstallError(f"cannot read {text!r} as a marketplace source: give owner/repo (GitHub), a git URL "
                       "(https://..., git@host:path, file:///...) or a folder path (./team-memory)")


def plugin_settings(path: str) -> tuple:
    """``(settings, original text, markets, enabled)``: the two objects we write into, copied (``{}`` if missing)."""
    settings, original = read_settings(path)
    out = [settings, original]
    for key in ("extraKnownMarketplaces", "enabledPlugins"):
        value = settings.get(key, {})
        if not isinstance(value, dict):
            raise InstallError(f'.claude/settings.json: "{key}" must be an object; fix it and run again. Nothing was changed.')
        out.append(dict(value))
    return tuple(out)
