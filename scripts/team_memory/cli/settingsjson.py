"""``.claude/settings.json`` for the drop-in install: read strictly, our hook entries (each carries
``HOOK_MARKER``) merged in or taken out, written back with a backup of a changed file."""
from __future__ import annotations

import json
import os

from ..base.fsutil import atomic_write_text
from ..base.safefs import read_text

HOOK_MARKER = "/.claude/team-memory/hooks/"  # every hook command we install contains it


class InstallError(Exception):
    """The install cannot proceed safely; the message says why and what to do."""


def read_settings(path: str) -> tuple[dict, str | None]:
    """The settings object and the file's original text (None when there is no file)."""
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
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict) or any(not isinstance(v, list) for v in hooks.values()):
        raise InstallError(f"{path}: \"hooks\" must be an object of event -> list of groups; fix it and run again. "
                           "Nothing was changed.")
    return data, text


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


def merge_settings(settings: dict, ours: dict) -> dict:
    """Settings with our hook groups replacing any earlier team-memory ones; everything else kept."""
    hooks = without_our_hooks(settings.get("hooks", {}))
    for event, groups in ours.items():
        hooks[event] = hooks.get(event, []) + groups
    merged = dict(settings)
    merged["hooks"] = hooks
    return merged


def write_settings(path: str, data: dict, original: str | None, delete_if_empty: bool = False) -> dict:
    """Write ``data`` if it differs from the file; back the old file up first. Returns what happened."""
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    result = {"path": path, "changed": False, "backup": None, "removed": False}
    if original is not None:
        try:
            if json.loads(original) == data:
                return result
        except ValueError:
            pass
    elif not data and delete_if_empty:
        return result
    if original is not None:
        backup = path + ".bak"
        atomic_write_text(backup, original)
        result["backup"] = backup
    result["changed"] = True
    if not data and delete_if_empty:
        os.unlink(path)
        result["removed"] = True
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        atomic_write_text(path, text)
    return result
