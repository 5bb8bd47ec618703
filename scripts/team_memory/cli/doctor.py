"""Health checks for ``doctor``: ``examine`` lists the store's findings, each with its fix; ``repair`` fixes the safe
ones under the store lock; ``hook_python`` flags a version manager's shim as the hooks' ``python3`` (it costs every
hook call several times the hook; the fix puts the interpreter's folder first on ``PATH``)."""
from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from dataclasses import asdict, dataclass

from ..base.config import MAX_CONFIG_BYTES, category_folders, load_config
from ..base.model import CONFIG_NAME
from ..base.pathtext import slashed
from ..base.sanitize import shown_path
from ..base.fsutil import is_temp_file, store_lock
from ..derived.index import index_path, newest_source_mtime
from ..derived.refresh import apply_changes, index_is_outdated
from ..records import relpaths
from ..records.exposure import hide, shown_message, shown_name, shown_text
from ..records.privacy import PrivateTagError, leaks, scrub_record
from ..base.safefs import is_link, is_real_dir, linked_part, read_regular
from ..records.store import NotARecord, iter_memory_files, load_memory, project_root_of, record_status
from ..records.validate import check_file, id_problem, shown, type_name, validate_record
from .main import CLI, related_fix
from .viewdupes import near_duplicates, normalised_title  # bounded (sort neighbours): not every pair

TEMP_MIN_AGE = 60.0  # seconds: younger temp files may belong to a live writer
_CONFLICT = re.compile(r"^(<{7}|={7}|>{7})(\s|$)", re.M)


@dataclass
class Finding:
    kind: str      # which check: invalid, leak, link, conflict, stale-index, duplicate-id, hook-python...
    path: str      # relative to the project
    message: str
    fix: str       # what to do (or what --fix does)
    fixable: bool = False
    warning: bool = False  # advisory: does not make doctor fail
    fixed: bool = False
    source: str = ""  # the file --fix works on (``path`` shows hidden characters as "?"); never printed

    def to_dict(self) -> dict:
        shown = {"path": shown_name(self.path), "message": shown_message(self.message), "fix": shown_message(self.fix)}
        return {key: shown.get(key, value) for key, value in asdict(self).items() if key != "source"}


def _rel(memory_root: str, path: str) -> str:
    """A path as reported: project-relative, hostile characters shown as ``?``."""
    return shown_path(os.path.relpath(path, project_root_of(memory_root)).replace(os.sep, "/"))


def store_files(memory_root: str, folders: bool = False):
    """Every file below the store (``folders``: each folder's subfolders first), hidden ones (cache, quarantine) too."""
    for folder, dirs, names in os.walk(memory_root):  # os.walk lists a linked folder but never enters it
        dirs.sort()
        for name in (dirs if folders else []) + sorted(names):
            yield os.path.join(folder, name)


def examine(memory_root: str, config: dict, temp_min_age: float = TEMP_MIN_AGE) -> list:
    """Every finding of the store: links, the config, stray files, each memory, ids, titles, derived files."""
    config_path = os.path.join(memory_root, CONFIG_NAME)
    links, files, conflicted_index = _walk_findings(memory_root, time.time(), temp_min_age)
    memories, titles = _memory_findings(memory_root, config)
    found = links + _config_findings(memory_root, config_path) + files + memories
    for a, b in near_duplicates([(category, title) for category, title, _ in titles]):
        found.append(Finding("near-duplicate", f"{_rel(memory_root, titles[a][2])}, {_rel(memory_root, titles[b][2])}",
                             "have nearly the same title", "merge them: update one, retire the other", warning=True))
    if not conflicted_index and index_is_outdated(memory_root, config):
        found.append(_stale_index(memory_root, config, config_path))
    return found + _stale_memories(memory_root, config) + _foreign_markers(memory_root)


def _config_findings(memory_root: str, config_path: str) -> list:
    """memory-config.json unreadable, or a setting out of range (``config_problems``)."""
    if not os.path.lexists(config_path) or is_link(config_path):
        return []
    rel = _rel(memory_root, config_path)
    try:
        stored = json.loads(read_regular(config_path, MAX_CONFIG_BYTES)[0])
        if not isinstance(stored, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        return [Finding("config", rel, f"is unreadable ({exc}); defaults are used",
                        "fix the JSON by hand (or restore it from git)")]
    return [Finding("config", rel, f"{setting} {message}",
                    "fix it in memory-config.json (docs/guide.md: Configuration)", warning=advisory)
            for setting, message, advisory in config_problems(stored)]


def _walk_config(stored: dict, default: dict, prefix: str, out: list) -> None:
    for key, value in stored.items():
        name, want = f"{prefix}{key}", default.get(key)
        if key not in default and not prefix.startswith(("categories.", "triage.")):  # (those are open-ended)
            out.append((name, "is not a setting team-memory knows (a typo?)", True))
        elif isinstance(want, dict) and isinstance(value, dict):
            _walk_config(value, want, name + ".", out)
        elif want is not None and type_name(value) != type_name(want):  # (a null default allows several shapes)
            out.append((name, f"is {type_name(value)} ({shown_text(json.dumps(value), 40)}), expected "
                              f"{type_name(want)}; the default {json.dumps(want)[:40]} is used instead", False))


def config_problems(stored: dict) -> list:
    """``[(setting, message, warning_only)]``: values of another type than the shipped default's, unknown settings,
    an unknown ``match_strategy``, ``triage.extra_cues`` Stop leaves out (hooks quietly use defaults for these)."""
    from ..capture.triage import MAX_EXTRA_CUES, extra_cues
    from ..text.features import FEATURES as STRATEGIES
    default = load_config(None)  # the shipped defaults, a fresh copy
    for switch in ("fuzzy", "field_idf", "compound_parts", "join_pairs", "unknown_names"):  # documented (guide),
        default.setdefault("retrieval", {}).setdefault(switch, True)  # each off only when false
    out: list = []
    _walk_config(stored, default, "", out)
    triage, retrieval = stored.get("triage"), stored.get("retrieval")
    cues, risks, surplus = extra_cues(triage.get("extra_cues") if isinstance(triage, dict) else None)
    out += [(where, f"cue {pattern[:60]!r} {risks[pattern]}, so Stop ignores it; rewrite it with one repeat per "
                    "stretch of text and no repeat inside a repeated group (a character class instead of alternatives: "
                    "[ab]+ rather than (a|b|ab)+), or remove it", False)  # (risks: base.patternrisk)
            for where, pattern in cues if pattern in risks]
    if surplus:
        out.append((surplus[0][0], f"{len(surplus)} cues from {shown_text(repr(surplus[0][1][:60]), 70)} on are past "
                                   f"the {MAX_EXTRA_CUES} triage.extra_cues Stop uses, so it ignores them (each cue "
                                   "runs on every line of a conversation); merge cues into fewer patterns or "
                                   "remove some", False))
    strategy = retrieval.get("match_strategy") if isinstance(retrieval, dict) else None
    if isinstance(strategy, str) and strategy not in STRATEGIES:
        retired = " (the prior plugin's title_tags scoring was retired in 0.4.0)" if strategy == "title_tags" else ""
        out.append(("retrieval.match_strategy", f"{shown_text(repr(strategy), 60)} is not one of "
                    f"{', '.join(sorted(STRATEGIES))}{retired}; smart is used instead", False))
    return out


def _walk_findings(memory_root: str, now: float, temp_min_age: float) -> tuple:
    """One walk of the store, no link followed: ``(link findings, file findings, index.md holds conflict markers)``."""
    links, found, conflicted_index = [], [], False
    for path in store_files(memory_root, folders=True):
        name, rel = os.path.basename(path), _rel(memory_root, path)
        if is_link(path):
            links.append(Finding("link", rel, "is a symbolic link; team-memory never follows links under .claude/, so "
                                 "it is ignored (a memory, folder, cache or lock reached through it is not used)",
                                 f"replace it with a real file or folder, or remove it: git rm {rel}"))
            continue  # never opened
        if name.endswith(".json") and not name.startswith("."):
            with contextlib.suppress(OSError):
                st = os.lstat(path)
                if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:  # (a folder named x.json has 2 or more)
                    links.append(Finding("hard-link", rel, f"has {st.st_nlink} hard links: another name on this "
                                         "disk shares its content (git never makes one; writes replace the file "
                                         "and break it)", "make it a separate file: cp it aside, then move the "
                                         "copy over it", warning=True))
        if os.path.isdir(path):
            continue
        inside = slashed(os.path.relpath(path, memory_root)).split("/")
        if is_temp_file(name):
            with contextlib.suppress(OSError):  # gone meanwhile
                if now - os.stat(path).st_mtime >= temp_min_age:
                    found.append(Finding("temp-file", rel, "is a temp file left by a writer that was killed",
                                         "delete it (--fix does)", fixable=True))
        elif inside[0] == ".quarantine" and name.endswith(".json"):  # (made by earlier versions)
            found.append(Finding("quarantined", rel, "was written outside the CLI, was invalid and was moved aside",
                                 "read it, save what is useful with 'save' or 'add', then delete it"))
        elif not inside[0].startswith(".") and name.endswith((".json", ".md")):
            with contextlib.suppress(OSError):  # unreadable: nothing to check
                if _CONFLICT.search(read_regular(path)[0].decode("utf-8", "replace")):
                    is_index = path == index_path(memory_root)
                    conflicted_index |= is_index
                    found.append(Finding("conflict", rel, "holds git merge-conflict markers (<<<<<<<, =======, "
                                         ">>>>>>>)", "rebuild it (--fix does)" if is_index else
                                         "resolve the conflict by hand, then run: validate " + rel,
                                         fixable=is_index))
    return links, found, conflicted_index


def _memory_findings(memory_root: str, config: dict) -> tuple:
    """``(findings, active titles)`` over every memory file, then each id used in more than one folder."""
    found, seen_ids, invalid, titles = [], {}, set(), []
    for category, path in iter_memory_files(memory_root, config):
        seen_ids.setdefault(os.path.basename(path)[:-5], []).append(path)
        try:
            record = load_memory(path)
        except (NotARecord, OSError):
            record = None
        found += _record_findings(memory_root, config, path, record, invalid)
        if record is not None and record_status(record) == "active":
            titles.append((category, normalised_title(record["title"]), path))
    for memory_id, paths in ((i, p) for i, p in seen_ids.items() if len(p) > 1):
        refs = " or ".join(f"{os.path.basename(os.path.dirname(p))}/{memory_id}" for p in paths)
        blocked = invalid.intersection(paths[1:])
        found.append(Finding("duplicate-id", ", ".join(_rel(memory_root, p) for p in paths),
                             f"the id {memory_id!r} is used in {len(paths)} folders; a bare id picks the first",
                             f"act on each as {refs}" + ("; fix the invalid one first, then --fix can give it a new "
                             "id" if blocked else f"; --fix gives the later one(s) a new id ({memory_id}-2)"),
                             fixable=not blocked))
    return found, titles


def _record_findings(memory_root: str, config: dict, path: str, record, invalid: set) -> list:
    """One memory: a file name that is not an id, schema problems (``invalid`` gets its path), related files, leaks."""
    memory_id, rel, found = os.path.basename(path)[:-5], _rel(memory_root, path), []
    ref, bad_name = f"{os.path.basename(os.path.dirname(path))}/{memory_id}", id_problem(memory_id) is not None
    problems = check_file(path, config, memory_root)
    leak_pairs = set(leaks(record, config)) if record is not None else set()
    schema = [p for p in problems if (p.field, p.message) not in leak_pairs]
    leaked = [p for p in problems if (p.field, p.message) in leak_pairs]
    if bad_name:  # the name itself breaks the id rule: a rename fixes it
        found.append(Finding("bad-id", rel, "its file name is not an id (an ASCII slug: a-z, 0-9, '-', '_')",
                             "rename it to a slug of its title and set its id to match (--fix does; commit the rename)",
                             fixable=record is not None, source=path))  # (load_memory refuses a link)
        schema = [p for p in schema if p.field != "id"]
    if schema:
        invalid.add(path)
        found.append(Finding("invalid", rel, "; ".join(f"{p.field}: {p.message}" for p in schema[:5]),
                             f"see: validate {rel}" if bad_name else
                             _update_fix(ref, record, schema, project_root_of(memory_root)) or
                             f"edit it ({CLI} edit {ref}) or see: validate {rel}"))
    found += _related_links(memory_root, path, record, ref)
    if leaked:
        unclosed = any("unclosed" in p.message for p in leaked)
        found.append(Finding("leak", rel, "; ".join(f"{p.field}: {p.message}" for p in leaked[:5]),
                             "close the private tag by hand" if unclosed else
                             "redact it (--fix does); then rotate the secret: it is still in git history",
                             fixable=not unclosed and not schema, source=path))
    return found


def _foreign_markers(memory_root: str) -> list:
    """A start marker in ``.cache`` that is a folder (``base.startgate``: hooks move it aside)."""
    cache = os.path.join(memory_root, ".cache")
    names = sorted(os.listdir(cache)) if is_real_dir(cache) else []
    return [Finding("start-marker", _rel(memory_root, os.path.join(cache, name)),
                    "is a folder where hooks keep a start marker file (a teammate's commit?); hooks move it aside "
                    "and go on", f"remove it: git rm -r {_rel(memory_root, os.path.join(cache, name))} (or rm -r "
                    "if git does not track it); .cache/ is derived and never committed")
            for name in names if name.endswith(".starting") or ".starting.stale." in name
            if is_real_dir(os.path.join(cache, name))]


def _stale_memories(memory_root: str, config: dict) -> list:
    """One warning counting the memories whose related files changed in git since (see: review)."""
    from ..derived.drift import doc_is_broken, marks_path
    from ..derived.driftmarks import current_marks
    if doc_is_broken(memory_root):  # no marks can be stored there, so none are computed either
        return [Finding("stale-marks", _rel(memory_root, marks_path(memory_root)),
                        "is not a regular file (a folder or a link committed by mistake?): stale marks are off",
                        "remove it from git and from disk; the marks are derived and rewritten on their own")]
    count = len(current_marks(memory_root, config))
    return [Finding("stale", _rel(memory_root, memory_root),
                    f"{count} memor{'y is' if count == 1 else 'ies are'} stale: files they are about changed in git "
                    "since they were last updated, or are gone",
                    f"review them: {CLI} review", warning=True)] if count else []


def _related_links(memory_root: str, path: str, record, ref: str) -> list:
    """A warning per related file that is, or lies under, a symbolic link (lstat up to a glob's first pattern)."""
    entries = record.get("related_files") if isinstance(record, dict) else None
    found = []
    for i, entry in enumerate(entries[:relpaths.MAX_ENTRIES] if isinstance(entries, list) else ()):
        try:
            parts = relpaths.normalise(entry).rstrip("/").split("/")
        except ValueError:
            continue  # refused: reported as invalid
        fixed = "/".join(itertools.takewhile(lambda p: not relpaths.is_glob(p), parts))
        link = linked_part(project_root_of(memory_root), fixed)
        if link:
            found.append(Finding("related-link", _rel(memory_root, path),
                                 f"related_files[{i}] {shown(entry)} lies through the symbolic link {shown(link)}: a "
                                 "link is never followed, so this memory is not tied to the file it points at",
                                 f"name the real path: {CLI} update {ref} --related-file ... (or edit it: "
                                 f"{CLI} edit {ref})", warning=True))
    return found


def _update_fix(ref: str, record, problems, project_root: str) -> str | None:
    """``update REF --related-file ...`` keeping the good entries, when refused entries are the only problems."""
    if not problems or not all(p.field.startswith("related_files") for p in problems):
        return None
    entries = record.get("related_files") if isinstance(record, dict) else None
    inside = [relpaths.repo_relative(e, project_root, project_root) if isinstance(e, str) and e.startswith(("/", "~"))
              else e for e in entries] if isinstance(entries, list) else entries
    kept = relpaths.usable(inside)
    if any(hide(e) != e for e in kept):  # an entry holding a secret or private text is never quoted back
        return None
    return f"{CLI} update {ref}{related_fix(kept)} (keeps the entries that are fine), or edit it: {CLI} edit {ref}"


def _stale_index(memory_root: str, config: dict, config_path: str) -> Finding:
    """The index is behind: a warning only when the index and cache exist and only the config changed since."""
    from ..derived.cache import cache_path
    try:
        built = os.stat(index_path(memory_root)).st_mtime
        os.stat(cache_path(memory_root))
        config_time = os.stat(config_path).st_mtime
    except OSError:
        built = config_time = 0.0
    only_config = config_time > built >= newest_source_mtime(memory_root, config)
    return Finding("stale-index", _rel(memory_root, index_path(memory_root)),
                   "was built before the last change to memory-config.json (hooks rebuild it on the next prompt)"
                   if only_config else
                   "is missing or behind the memories (the next prompt's hook brings it up to date)",
                   "rebuild it (--fix does)", fixable=True, warning=only_config)


def _write_valid(memory_root: str, config: dict, path: str, record: dict, summary: str) -> bool:
    """Write ``record`` to ``path``, ``summary`` in its history, if it is valid there; the caller holds the lock."""
    from ..edits.write import add_change, now_iso, write_record
    add_change(record, summary, now_iso())
    folder = os.path.dirname(path)
    category = next((c for c, f in category_folders(config).items() if folder == os.path.join(memory_root, f)), None)
    if category is None or validate_record(record, folder_category=category, file_id=os.path.basename(path)[:-5]):
        return False
    write_record(path, record)
    return True


def _redact(memory_root: str, config: dict, path: str) -> bool:
    """Rewrite one stored record with its private sections and secrets removed (caller holds the lock)."""
    try:
        clean, private, secrets = scrub_record(load_memory(path), config)
    except (NotARecord, OSError, PrivateTagError):
        return False
    summary = f"doctor: removed {private} private section(s), redacted {secrets} secret(s)"
    if not (private or secrets) or leaks(clean, config) or not _write_valid(memory_root, config, path, clean, summary):
        return False
    from ..records.snapshot import scrub_copies
    scrub_copies(memory_root)  # the copies kept outside the repository lose the secret too
    return True


def _rename(memory_root: str, config: dict, path: str, moved: list, base: str | None = None,
            summary: str = "doctor: renamed to an ASCII slug id"):
    """The memory moved to the first free id from ``base`` (default: its title's slug), lock held: new path or None."""
    from ..records.store import slugify, unique_id
    try:  # (a link is refused: never renamed)
        record = load_memory(path)
    except (NotARecord, OSError):
        return None
    new_id = unique_id(memory_root, config, base or slugify(record["title"]))
    new_path = os.path.join(os.path.dirname(path), f"{new_id}.json")
    if os.path.lexists(new_path) or not _write_valid(memory_root, config, new_path, dict(record, id=new_id), summary):
        return None
    os.unlink(path)
    moved += [path, new_path]
    return new_path


def repair(memory_root: str, config: dict, findings: list) -> list:
    """Fix the fixable findings under the store lock; mark them ``fixed``; return them."""
    project = project_root_of(memory_root)
    moved: list = []
    with store_lock(memory_root):
        for f in (f for f in findings if f.fixable):
            path = f.source or os.path.join(project, f.path)
            if f.kind == "temp-file":
                with contextlib.suppress(OSError):
                    os.unlink(path)
                f.fixed = not os.path.lexists(path)
            elif f.kind == "leak":
                f.fixed = _redact(memory_root, config, path)
            elif f.kind == "duplicate-id":
                f.fixed = _rename_copies(memory_root, config, f, moved)
            elif f.kind == "bad-id":
                new_path = _rename(memory_root, config, path, moved)
                if new_path:
                    f.fixed, f.fix = True, f"renamed to {os.path.basename(new_path)}"
        index_fixes = [f for f in findings if f.fixable and f.kind in ("stale-index", "conflict")]
        if index_fixes:  # a stale or damaged index: rebuilt from every file
            apply_changes(memory_root, config, full=True)
            for f in index_fixes:
                f.fixed = True
        elif moved or any(f.fixed and f.kind == "leak" for f in findings):
            apply_changes(memory_root, config)
    return findings


def _rename_copies(memory_root: str, config: dict, finding: Finding, moved: list) -> bool:
    """Give every file of a duplicate id but the first a new id (``<id>-2``...); the caller holds the lock."""
    project = project_root_of(memory_root)
    for rel in finding.path.split(", ")[1:]:
        path = os.path.join(project, rel)
        old_id = os.path.basename(path)[:-5]
        new_path = _rename(memory_root, config, path, moved, old_id,
                           f"doctor: renamed from {old_id} (the id was used in two folders)")
        if new_path is None:
            return False
        finding.message += f"; {rel} is now {_rel(memory_root, new_path)}"
    return True


def user_json(path: str):
    """The user's Claude config file as JSON, or None: links followed (dotfiles), only a regular file read, 1 MB max."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with os.fdopen(fd, "rb") as f:
            return json.loads(f.read(1_000_000).decode("utf-8"))
    except (OSError, ValueError):
        return None


def user_plugin_too(project: str, home: str | None = None) -> list:
    """A warning when this project has the drop-in install (a real folder, no link followed) and the user also
    installed the plugin at user scope (installed_plugins.json or settings.json enabledPlugins): hooks run twice."""
    from .install import PLUGIN_ID  # (install's imports: only this check needs them)
    drop_in = os.path.join(project, ".claude")
    if not is_real_dir(drop_in) or not is_real_dir(os.path.join(drop_in, "team-memory")):
        return []
    config = os.path.join(home or os.path.expanduser("~"), ".claude")
    hits = []
    for rel, key in (("plugins/installed_plugins.json", "plugins"), ("settings.json", "enabledPlugins")):
        data = user_json(os.path.join(config, *rel.split("/")))
        entry = data.get(key) if isinstance(data, dict) else None
        if isinstance(entry, dict) and entry.get(PLUGIN_ID):
            hits.append("~/.claude/" + rel)
    return [Finding("double-hooks", ".claude/team-memory",
                    f"the team-memory plugin is installed for your user ({', '.join(hits)}) and this project has the "
                    "drop-in install: every hook runs twice (two orientation blocks, two Stop reminders)",
                    f"keep one: claude plugin uninstall {PLUGIN_ID} (the drop-in stays, for the whole team), or "
                    "python3 .claude/team-memory/scripts/memory.py uninstall . (the plugin stays, for you alone)",
                    warning=True)] if hits else []


RUNS = 3
SLOWER = 2.0  # a start this many times the interpreter's own ...
EXTRA_MS = 10.0  # ... and this many milliseconds more is worth a line


def hooks_python(environ=None) -> str | None:
    """The ``python3`` the hooks' shell finds, or None; pyenv's own folders that ``pyenv exec`` put before its shims
    on this process's ``PATH`` are taken off (the hooks' shell finds the shim there)."""
    environ = os.environ if environ is None else environ
    entries = environ.get("PATH", os.defpath).split(os.pathsep)
    root = environ.get("PYENV_ROOT", "")
    if root and "PYENV_DIR" in environ:  # set by ``pyenv exec``: this process came through a pyenv shim
        shims, within = os.path.join(root, "shims"), os.path.join(root, "")
        while entries and entries[0] != shims and os.path.join(entries[0], "").startswith(within):
            entries.pop(0)
    return shutil.which("python3", path=os.pathsep.join(entries))


def is_script(path: str) -> bool:
    """True when ``path`` (links followed) starts with ``#!``: a shell script, not an interpreter."""
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


def start_ms(program: str) -> float | None:
    """The fastest of ``RUNS`` starts of ``program -S`` in milliseconds; None when it fails or is older than 3.9."""
    times = []
    for _ in range(RUNS):
        began = time.perf_counter()
        try:  # (a failed check is a CalledProcessError)
            subprocess.run([program, "-S", "-c", "import sys; sys.exit(sys.version_info < (3, 9))"],
                           capture_output=True, timeout=10, check=True)
        except (OSError, subprocess.SubprocessError):
            return None
        times.append((time.perf_counter() - began) * 1000)
    return min(times)


def hook_python() -> list:
    """An advisory ``Finding`` when the hooks' ``python3`` is a slow script in front of the interpreter."""
    program = hooks_python()
    here = sys.executable if sys.executable and not is_script(sys.executable) else ""
    if program is None or not here or not is_script(program):
        return []  # an interpreter itself (or nothing better to name): nothing to gain
    slow, fast = start_ms(program), start_ms(here)
    if slow is None or fast is None or slow < fast * SLOWER or slow - fast < EXTRA_MS:
        return []
    fix = f'start Claude Code with the interpreter\'s folder first on PATH: PATH="{os.path.dirname(here)}:$PATH" claude'
    if os.environ.get("PYENV_ROOT"):
        fix += ' (with pyenv, PATH="$(pyenv prefix)/bin:$PATH" claude takes the version pyenv picks for the project)'
    return [Finding("hook-python", "python3", f"{program} is a script (a version manager's shim, it seems): every hook "
                    f"call spends about {slow - fast:.0f} ms in it before Python starts ({slow:.0f} ms against "
                    f"{fast:.0f} ms for the interpreter itself)",
                    fix + "; Claude Code's own commands then find that python3 too", warning=True)]
