"""Configuration, loose by design: defaults merged with ``memory-config.json``, each bad value warned and defaulted."""
from __future__ import annotations

import os
import sys

from . import fastjson
from .model import CATEGORIES, CONFIG_NAME, DEFAULT_FOLDERS

TEMPLATES_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "templates"))
DEFAULT_CONFIG_PATH = os.path.join(TEMPLATES_DIR, "memory-config.default.json")

MAX_CONFIG_BYTES = 1024 * 1024


def warn(message: str) -> None:
    """One clean line on stderr, prefixed so people know where it came from."""
    from .sanitize import clean_line
    print(f"[team-memory] {clean_line(message)}", file=sys.stderr)


PLAIN_SETTING_CHARS = 12  # no secret shape fits in this many letters, digits and "_-."


def quoted(raw) -> str:
    """A config value as a warning quotes it: a number, boolean, null or short plain word, else type and size only."""
    plain = isinstance(raw, str) and len(raw) <= PLAIN_SETTING_CHARS and raw.isascii() \
        and raw.replace("_", "a").replace("-", "a").replace(".", "a").isalnum()
    if plain or raw is None or isinstance(raw, (bool, int, float)):
        return repr(raw)
    size = f" of {len(raw)}" + (" characters" if isinstance(raw, str) else " items") \
        if isinstance(raw, (str, list, dict)) else ""
    return f"(a {type(raw).__name__}{size})"


def _read_json_object(path: str, what: str) -> dict:
    from .safefs import read_regular
    try:  # never through a link, never a FIFO, never more than the bound
        data = fastjson.loads(read_regular(path, MAX_CONFIG_BYTES)[0])
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError) as exc:
        warn(f"{what} {path} is unreadable ({exc.__class__.__name__}: {exc}); using defaults")
        return {}
    if not isinstance(data, dict):
        warn(f"{what} {path} is not a JSON object; using defaults")
        return {}
    return data


def deep_merge(base: dict, over: dict) -> dict:
    """A new dict: ``over`` on top of ``base``, recursing into nested dicts."""
    out = dict(base)
    for key, value in over.items():
        out[key] = deep_merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def load_config(memory_root: str | None) -> dict:
    """The effective configuration for the store at ``memory_root`` (may be None)."""
    config = _read_json_object(DEFAULT_CONFIG_PATH, "default config")
    if memory_root:
        config = deep_merge(config, _read_json_object(os.path.join(memory_root, CONFIG_NAME), "config"))
    return config


def section(config: dict, name: str) -> dict:
    """``config[name]`` if it is an object, else {} (with a warning when it is something else)."""
    value = config.get(name, {})
    if isinstance(value, dict):
        return value
    warn(f"config '{name}' must be an object; using defaults")
    return {}


def retrieval_enabled(config: dict) -> bool:
    return section(config, "retrieval").get("enabled", True) is not False


def max_inject(config: dict) -> int:
    return number_setting(config, "retrieval", "max_inject", 5, 0, 20)


def number_setting(config: dict, section_name: str, key: str, default, low, high, kind=int):
    """A number setting (``kind``: int or float) clamped to [low, high]; a bad value or NaN warns, gives ``default``."""
    raw = section(config, section_name).get(key, default)
    try:
        value = kind(raw)
        if isinstance(raw, bool) or value != value:
            raise TypeError("boolean or NaN")
        return max(low, min(high, value))
    except (ValueError, TypeError, OverflowError):
        warn(f"invalid {section_name}.{key} {quoted(raw)}; using default {default}")
        return default


def category_settings(config: dict, category: str) -> dict:
    value = section(config, "categories").get(category)
    return value if isinstance(value, dict) else {}


def category_enabled(config: dict, category: str) -> bool:
    return category_settings(config, category).get("enabled", True) is not False


def category_folder(config: dict, category: str) -> str:
    """The folder of a category; a configured folder is used only if it is a plain name."""
    folder = category_settings(config, category).get("folder")
    plain = isinstance(folder, str) and folder not in ("", ".", "..") and "/" not in folder and "\\" not in folder
    return folder if plain else DEFAULT_FOLDERS[category]


def category_folders(config: dict) -> dict:
    """category -> folder name, for every known category."""
    return {cat: category_folder(config, cat) for cat in CATEGORIES}


def category_descriptions(config: dict) -> dict:
    """category -> description (cut to 500 characters), for enabled categories that have one."""
    descriptions = {cat: category_settings(config, cat).get("description") for cat in CATEGORIES}
    return {cat: desc[:500] for cat, desc in descriptions.items()
            if isinstance(desc, str) and desc and category_enabled(config, cat)}
