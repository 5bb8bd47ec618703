"""``edit ID``: a memory's JSON in ``$EDITOR`` (then ``$VISUAL``, then ``vi``), saved through the write path;
text that does not land is kept in a recovery file (``edit ID --from PATH`` continues from it).
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
from datetime import datetime, timezone

from ..base.config import category_folders
from ..base.fsutil import atomic_write_text, store_lock
from ..base.state import prune, sha256_hex, state_home
from ..records.privacy import FORMATS, PrivateTagError, first_tag, private_settings, scrub_record, scrub_text
from ..records.store import parse_memory, read_bytes
from ..records.validate import Problem, ValidationError, validate_record
from .write import UPDATABLE, WriteError, add_change, check_record, content_hash, now_iso, save, tidy, update_memory

# Fields the write path keeps itself; an edit that changes them is refused with a hint.
HINTS = {
    "record_status": "use retire/restore/archive/unarchive",
    "id": "ids are file names: import it with --on-conflict suffix or save a new memory",
    "category": "save a new memory in the other category and retire this one",
}


class EditAborted(Exception):
    """The edit did not land; ``recovery`` is where the text was kept (None if nothing changed)."""

    def __init__(self, message: str, recovery: str | None = None):
        super().__init__(message)
        self.recovery = recovery


def editor_command() -> list:
    for name in ("EDITOR", "VISUAL"):
        value = os.environ.get(name, "").strip()
        if value:
            return shlex.split(value)
    return ["vi"]


RECOVERY_DAYS = 7  # recovery files older than this are deleted when the next one is written


def keep(memory_id: str, text: str, config: dict) -> str:
    """The path of ``text`` (scrubbed as on every write) kept in ``<state folder>/recovery/`` (older ones pruned)."""
    try:
        text = scrub_text(text, private_settings(config))[0]
    except PrivateTagError:  # an unclosed tag: everything from the first one on may be private
        cut = first_tag(text, FORMATS)  # the stored [PRIVATE] marker is text, never where the cut falls
        text = text[:cut] + "[PRIVATE: unclosed tag, the rest was not kept]" if cut is not None else text
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    path = os.path.join(state_home(), "recovery", f"{memory_id}.{stamp}.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    prune(os.path.dirname(path), RECOVERY_DAYS)
    atomic_write_text(path, text, mode=0o600)
    return path


def parsed(text: str, memory_id: str):
    """The JSON object of an edited file, or a ``ValidationError`` that points at the syntax."""
    try:
        edited = json.loads(text)
    except ValueError as exc:
        raise ValidationError([Problem("(file)", f"is not valid JSON: {exc}", "fix the syntax at that line")],
                              memory_id) from None
    if not isinstance(edited, dict):
        raise ValidationError([Problem("(record)", "must be a JSON object", "keep the outer {...}")], memory_id)
    return edited


def try_save(memory_root: str, config: dict, memory_id: str, original: dict, original_hash: str, text: str):
    """Save the edited ``text`` as changes from ``original``: the ``WriteResult``, None when nothing changed;
    ``ValidationError`` or ``PrivateTagError`` for what the editor can fix, ``WriteError`` when it cannot land."""
    edited = parsed(text, memory_id)
    problems, changes = [], {}
    for key in sorted(set(original) | set(edited), key=str):
        old, new = original.get(key), edited.get(key)
        if key in UPDATABLE:
            if key not in edited and key in original and key != "content":
                problems.append(Problem(key, "cannot be removed by edit", "keep it (related_files may be [])"))
            elif key == "content" and isinstance(new, dict) and isinstance(old, dict):
                diff = {k: v for k, v in new.items() if old.get(k) != v or k not in old}
                diff.update({k: None for k in old if k not in new})
                if diff:
                    changes["content"] = diff
            elif new != old:
                changes[key] = new
        elif new != old:
            what = "added" if key not in original else "removed" if key not in edited else "changed"
            problems.append(Problem(str(key), f"is kept by team-memory and cannot be {what} here",
                                    HINTS.get(key, f"put it back as it was: {json.dumps(old, ensure_ascii=False)}"
                                              if key in original else "remove it")))
    if problems:  # name the schema problems too, so one more round fixes everything
        named = {p.field for p in problems}
        problems += [p for p in validate_record(edited, folder_category=original.get("category"), file_id=memory_id)
                     if p.field not in named]
        raise ValidationError(problems, memory_id)
    if not changes:
        return None
    if "content" in changes and not isinstance(edited.get("content"), dict):
        raise ValidationError([Problem("content", "must be an object", "write {...}")], memory_id)
    return update_memory(memory_root, config, memory_id, changes, expect_hash=original_hash, summary="edited by hand")


def folder_category(config: dict, path: str) -> str | None:
    folder = os.path.basename(os.path.dirname(path))
    return next((c for c, f in category_folders(config).items() if f == folder), None)


def load_for_edit(config: dict, path: str) -> tuple:
    """``(text, record, hash)``; ``record`` None for a broken file, then saved whole (``save_repaired``)."""
    try:
        data = read_bytes(path)[0]  # a regular file only, never through a link, read with a bound
    except OSError as exc:
        raise WriteError(f"{path} cannot be read ({exc})") from None
    text = data.decode("utf-8", errors="replace")  # bytes that are not UTF-8 show as U+FFFD, to be fixed
    try:
        record = parse_memory(data)
        if validate_record(record, folder_category=folder_category(config, path), file_id=os.path.basename(path)[:-5]):
            record = None
    except ValueError:  # (``NotARecord`` too)
        record = None
    return text, record, sha256_hex(data)


def save_repaired(memory_root: str, config: dict, path: str, original_hash: str, text: str):
    """Save the whole edited text of a broken file: it must parse and validate for its folder and file name."""
    memory_id, category = os.path.basename(path)[:-5], folder_category(config, path)
    edited = parsed(text, memory_id)
    if "\ufffd" in text:
        raise ValidationError([Problem("(text)", "holds U+FFFD where the file had bytes that were not UTF-8",
                                       "retype those characters")], memory_id)
    check_record(edited, category, memory_id, memory_id)
    clean, private, secrets = scrub_record(edited, config)
    clean = tidy(clean)  # stored forms, as every other write keeps them
    now = now_iso()
    clean["updated_at"] = now
    add_change(clean, "repaired by hand (edit)", now)
    check_record(clean, category, memory_id, memory_id)
    with store_lock(memory_root):
        if not os.path.isfile(path) or content_hash(path) != original_hash:
            raise WriteError(f"{path} changed while you were editing")
        # the file broke outside the CLI: the index rebuilt from every file
        return save(memory_root, config, category, path, clean, "repaired", memory_id, private, secrets, full=True)


def edit_session(memory_root: str, config: dict, memory_id: str, path: str, start_text: str | None,
                 again, report_problems):
    """The edit loop (``again()``: reopen after ``report_problems``?): a ``WriteResult``, None, or ``EditAborted``."""
    text, original, original_hash = load_for_edit(config, path)
    stored_text, text = (text, text) if start_text is None else (None, start_text)  # None: any text is a change
    command = editor_command()
    if shutil.which(command[0]) is None and not os.path.isfile(command[0]):
        raise EditAborted(f"the editor {command[0]!r} was not found; set $EDITOR (e.g. EDITOR=nano)")
    work_dir = tempfile.mkdtemp(prefix="team-memory-edit-")
    work = os.path.join(work_dir, f"{memory_id}.json")
    try:
        while True:
            with open(work, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            try:
                status = subprocess.call(command + [work])
            finally:
                with open(work, encoding="utf-8", errors="replace") as f:
                    text = f.read()
            if status != 0:
                raise EditAborted(f"the editor exited with status {status}; nothing was saved",
                                  None if text == stored_text else keep(memory_id, text, config))
            if text == stored_text:
                return None
            try:
                if original is None:
                    return save_repaired(memory_root, config, path, original_hash, text)
                return try_save(memory_root, config, memory_id, original, original_hash, text)
            except (ValidationError, PrivateTagError) as exc:
                unclosed = [Problem("(text)", str(exc), "close the private tag")]
                report_problems(exc.problems if isinstance(exc, ValidationError) else unclosed)
                if not again():
                    raise EditAborted("nothing was saved", keep(memory_id, text, config)) from None
            except WriteError as exc:
                raise EditAborted(f"{exc}; nothing was saved", keep(memory_id, text, config)) from None
    except KeyboardInterrupt:
        raise EditAborted("interrupted; nothing was saved", None if text == stored_text else keep(memory_id, text, config))
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
