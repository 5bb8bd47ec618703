"""Which files a Bash command line would write or delete (a conservative static reading).

``write_targets(command, cwd)`` yields a ``Target(what, path, removes, text)`` for every
path the command would create, change or remove: output redirections
(``>``, ``>>``, ``&>``), ``tee``, ``cp``/``mv``/``install``/``rsync``
destinations, ``rm``/``touch``/``truncate``/``ln``..., ``sed -i``/``perl -i``,
``dd of=``, ``find -delete``/``-exec``, ``tar -x``, ``git checkout/restore/rm/mv``,
``sh -c``/``eval`` strings (read recursively), and inline interpreter code
(``python -c``...) that mentions a path and looks like it writes. ``cd`` is
followed within one command line. Paths are absolute (``~`` and a few known
variables expanded) but not resolved; unknown ``$VARS`` stay as text.
``removes`` is true for operations that delete or move away (``rm``, ``mv``).

It is a guard, not a shell: where the paths cannot be known (an unparsable
line, ``xargs rm``, inline code) the target has ``path=None`` and ``text`` set
to the words in question, so the caller can fall back to a plain text check.
"""
from __future__ import annotations

import os
import re
import shlex
from collections import namedtuple

Target = namedtuple("Target", "what path removes text", defaults=(None,))

_CONTROL = set(";&|()")
_WRAPPERS = {"sudo", "command", "env", "nice", "nohup", "time", "exec", "builtin", "stdbuf", "timeout", "doas"}
_ANY_ARG = {"rm": True, "rmdir": True, "unlink": True, "shred": True,
            "truncate": False, "touch": False, "mkdir": False, "chmod": False, "chown": False, "chgrp": False,
            "ln": False, "tee": False, "sponge": False, "patch": False, "setfacl": False}
_COPIES = {"cp", "install", "rsync", "scp"}
_IN_PLACE = {"sed": re.compile(r"^-[A-Za-z]*i|^--in-place"), "perl": re.compile(r"^-[A-Za-z]*i"),
             "ruby": re.compile(r"^-[A-Za-z]*i")}
_INTERPRETERS = re.compile(r"^(python[0-9.]*|node|nodejs|deno|ruby|perl|php|bun)$")
_CODE_WRITES = re.compile(r"""open\s*\([^)]*['"][wax+]b?['"]|mode\s*=|write|unlink|remove|rename|replace\s*\(|"""
                          r"rmtree|rmdir|copy|move|dump\s*\(|truncate|mkdir|touch|appendFile|rmSync|>\s*['\"]", re.I)
_GIT_WRITES = {"checkout", "restore", "rm", "mv", "clean", "apply", "stash", "reset", "switch"}
_OUTPUT_OPTS = {"curl": ("-o", "--output"), "wget": ("-O", "--output-document"), "sort": ("-o", "--output")}
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish"}


def _expand(word: str, cwd: str) -> str:
    home = os.path.expanduser("~")
    for name, value in (("HOME", home), ("PWD", cwd), ("CLAUDE_PROJECT_DIR", os.environ.get("CLAUDE_PROJECT_DIR"))):
        if value:
            word = word.replace("${" + name + "}", value).replace("$" + name, value)
    if word.startswith("~"):
        word = home + word[1:] if word == "~" or word.startswith("~/") else word
    return os.path.normpath(os.path.join(cwd, word))


def _tokens(command: str):
    lex = shlex.shlex(command.replace("\r", "").replace("\n", " ; "), posix=True, punctuation_chars=";&|()<>")
    lex.whitespace_split = True
    return list(lex)


def _segments(tokens: list):
    """Split tokens into simple commands; return ``[(words, [(redirect op, target)])]``."""
    segments, words, redirects = [], [], []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok and set(tok) <= _CONTROL:
            segments.append((words, redirects))
            words, redirects = [], []
        elif tok and set(tok) <= set("<>&|") and ("<" in tok or ">" in tok):
            target = tokens[i + 1] if i + 1 < len(tokens) else ""
            if words and words[-1].isdigit() and ">" in tok:  # 2>file: the fd number is not a word
                words.pop()
            redirects.append((tok, target))
            i += 1
        else:
            words.append(tok)
        i += 1
    segments.append((words, redirects))
    return [s for s in segments if s[0] or s[1]]


def _strip_wrappers(words: list) -> list:
    words = list(words)
    while words:
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
            words.pop(0)
        elif os.path.basename(words[0]) in _WRAPPERS:
            words.pop(0)
            while words and words[0].startswith("-"):
                words.pop(0)
        else:
            break
    return words


def _operands(args: list) -> list:
    out, after_dashes = [], False
    for a in args:
        if a == "--" and not after_dashes:
            after_dashes = True
        elif after_dashes or not a.startswith("-") or a == "-":
            out.append(a)
    return out


def write_targets(command: str, cwd: str, depth: int = 0):
    """Yield a ``Target`` for every path the command line would write, move or delete."""
    try:
        tokens = _tokens(command)
    except ValueError:
        yield Target("a command line that cannot be parsed", None, True, command)
        return
    for words, redirects in _segments(tokens):
        for op, target in redirects:
            if ">" not in op or not target or (op.endswith("&") and (target.isdigit() or target == "-")):
                continue  # input redirections and fd duplication (2>&1) write no file
            yield Target(f"output redirection {op}", _expand(target, cwd), False)
        words = _strip_wrappers(words)
        if not words:
            continue
        name, args = os.path.basename(words[0]), words[1:]
        if name in ("cd", "pushd"):
            ops = _operands(args)
            if ops and "$" not in ops[0]:
                cwd = _expand(ops[0], cwd)
            continue
        yield from _command_targets(name, args, cwd, depth)


def _command_targets(name: str, args: list, cwd: str, depth: int):
    ops = _operands(args)
    if name == "mv":  # sources are moved away; the destination only receives
        for i, a in enumerate(ops):
            yield Target(name, _expand(a, cwd), i < len(ops) - 1 or len(ops) == 1)
    elif name in _ANY_ARG:
        for a in ops:
            yield Target(name, _expand(a, cwd), _ANY_ARG[name])
    elif name in _COPIES:
        target = next((a.split("=", 1)[1] for a in args if a.startswith("--target-directory=")), None)
        if target is None and "-t" in args and args.index("-t") + 1 < len(args):
            target = args[args.index("-t") + 1]
        if target is None and len(ops) >= 2:
            target = ops[-1]
        if target:
            yield Target(name, _expand(target.split(":", 1)[-1] if name in ("scp", "rsync") else target, cwd), False)
    elif name in _IN_PLACE and any(_IN_PLACE[name].match(a) for a in args):
        for a in ops:
            yield Target(f"{name} -i", _expand(a, cwd), False)
    elif name == "dd":
        for a in args:
            if a.startswith("of="):
                yield Target("dd of=", _expand(a[3:], cwd), False)
    elif name == "find" and any(a in ("-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint") for a in args):
        for a in args:
            if a.startswith(("-", "(", "!")):
                break
            yield Target("find -delete/-exec", _expand(a, cwd), True)
    elif name == "git" and args:
        sub = _operands(args)
        if sub and sub[0] in _GIT_WRITES:
            for a in sub[1:]:
                yield Target(f"git {sub[0]}", _expand(a, cwd), sub[0] in ("rm", "mv", "clean"))
    elif name in ("tar", "bsdtar") and any(re.match(r"^-?[A-Za-z]*x", a) or a in ("--extract", "--get") for a in args[:3]):
        for i, a in enumerate(args):
            if a in ("-C", "--directory") and i + 1 < len(args):
                yield Target("tar -x", _expand(args[i + 1], cwd), False)
            elif a.startswith("--directory="):
                yield Target("tar -x", _expand(a.split("=", 1)[1], cwd), False)
    elif name == "unzip" and "-l" not in args:
        for i, a in enumerate(args):
            if a == "-d" and i + 1 < len(args):
                yield Target("unzip -d", _expand(args[i + 1], cwd), False)
    elif name in _OUTPUT_OPTS:
        short, long = _OUTPUT_OPTS[name]
        for i, a in enumerate(args):
            if a == short and i + 1 < len(args):
                yield Target(f"{name} {short}", _expand(args[i + 1], cwd), False)
            elif a.startswith(long + "="):
                yield Target(f"{name} {long}", _expand(a.split("=", 1)[1], cwd), False)
    elif name in _SHELLS and "-c" in args and depth < 3:
        i = args.index("-c")
        if i + 1 < len(args):
            yield from write_targets(args[i + 1], cwd, depth + 1)
    elif name == "eval" and depth < 3:
        yield from write_targets(" ".join(args), cwd, depth + 1)
    elif name == "xargs":
        rest = _strip_wrappers(_operands(args))
        if rest and (os.path.basename(rest[0]) in _ANY_ARG or os.path.basename(rest[0]) in _COPIES):
            yield Target("xargs " + os.path.basename(rest[0]), None, True, " ".join(args))  # paths come from stdin
    elif _INTERPRETERS.match(name):
        for i, a in enumerate(args):
            if a in ("-c", "-e", "-E", "--eval", "-r") and i + 1 < len(args) and _CODE_WRITES.search(args[i + 1]):
                yield Target(f"{name} inline code", None, False, args[i + 1])
