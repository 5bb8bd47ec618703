"""Inline code handed to an interpreter (``python -c``, ``node -e``, a here-document...): can it write, can it reach?

``writes``: it calls something that changes a file or runs a program (printing and ``str.replace(a, b)`` do not
count). ``reaches``: it names ``.claude`` or a store, builds names a reader cannot follow (``chr(``, base64, escapes),
or runs inside a store, or above one and walks folders or names ``memory``. Only code that does both is denied.
"""
from __future__ import annotations

import re

_PRINTING = re.compile(r"(sys\.)?(stdout|stderr)\.write\s*\(|process\.(stdout|stderr)\.write\s*\(|"
                       r"\$stdout\.write|STDOUT\.write|\bprint\s*\(", re.I)
_WRITES = {
    "python": r"""\bopen\s*\(([^,()]|\([^()]*\))*,\s*(['"][^'"]*[wax+]|(?!encoding|errors|newline)[A-Za-z_])|"""
              r"""\.open\s*\(\s*(['"][^'"]*[wax+]|[A-Za-z_])|mode\s*=\s*(['"][^'"]*[wax+]|[A-Za-z_])|"""
              r"""\.write_(text|bytes)\s*\(|"""
              r"""\.(unlink|rmdir|mkdir|touch|rename|symlink_to|hardlink_to|link_to|chmod|lchmod)\s*\(|"""
              r"""\bos\.(remove|unlink|rename|renames|replace|rmdir|removedirs|makedirs|mkdir|link|symlink|"""
              r"""truncate|open|system|popen|exec\w*|spawn\w*|fdopen|chmod|utime|write)\b|\bshutil\b|"""
              r"""\bsubprocess\b|\bexec\s*\(|\beval\s*\(|\bcompile\s*\(|__import__|\bimportlib\b|\bfileinput\b|"""
              r"""\.replace\s*\(\s*[^,()]*\)|\bpty\b|\bctypes\b|\bgetattr\s*\(""",
    "node": r"""\b(writeFile|appendFile|createWriteStream|unlink|rmSync|rmdir|rename|copyFile|cpSync|mkdir|"""
            r"""symlink|truncate|chmod|chown|utimes|lchown|writeSync|ftruncate)\w*\s*\(|\b(fs|fsp|promises)\."""
            r"""(rm|cp|link|open|write)\w*\s*\(|child_process|\bexecSync\b|\bspawn|\beval\s*\(|\bFunction\s*\(|"""
            r"""\brequire\s*\(\s*[^'"]|\bimport\s*\(|Deno\.(write|remove|rename|create|mkdir|copy|open|truncate|"""
            r"""symlink|link|run|Command)|Bun\.(write|spawn)""",
    "ruby": r"""\bFile\.(write|open|delete|unlink|rename|symlink|link|truncate|chmod)\b|\bFileUtils\b|\bIO\."""
            r"""(write|popen|sysopen)|\bDir\.(mkdir|rmdir|delete|unlink)|\bsystem\b|`|%x|\bexec\b|\beval\b|"""
            r"""\bspawn\b|\bPathname\b|\bopen\s*\(|\bsend\b""",
    "perl": r"""\bopen(?:[^;o]|o(?!pen)|\Bo(?=pen))*(['"]\s*(\+?[<>]|>>|\|)|,\s*['"]?\s*\+?[>|])|\b(unlink|rename|rmdir|mkdir|"""
            r"""truncate|symlink|link|chmod|chown|utime|system|exec|eval|sysopen|qx)\b|`|\bFile::(Copy|Path)|"""
            r"""\b(copy|move|make_path|remove_tree|rmtree)\s*\(|\$\^I|-i\b""",
    "php": r"""\b(file_put_contents|fopen|fwrite|unlink|rename|copy|mkdir|rmdir|touch|chmod|chown|symlink|"""
           r"""link|system|exec|shell_exec|passthru|proc_open|popen|eval|assert|tempnam)\s*\(|`""",
}
_GENERIC = r"""write|remove|unlink|delete|rename|move|copy|mkdir|rmdir|truncate|system|exec|eval|spawn|popen|""" \
           r"""shell|open\s*\(|>"""
_OBFUSCATED = re.compile(r"\bchr\s*\(|fromCharCode|b64decode|base64|atob\s*\(|unhexlify|fromhex|\\x[0-9a-f]{2}|"
                         r"\\[0-7]{3}|\\u[0-9a-f]{4}|\[::-1\]|rot13|codecs|\bpack\s*\(|\bjoin\s*\(|reverse\s*\(",
                         re.I)
_WALKS = re.compile(r"\bwalk\b|rglob|listdir|scandir|readdir|opendir|\bDir\[|\*\*|\bFind\b|\.iterdir", re.I)


_LITERAL = r"""(?P<q>['"])(?P<path>[^'"\\$`{}]+)(?P=q)"""
_LITERAL_CALLS = {
    "python": [r"\bopen\s*\(\s*" + _LITERAL + r"""\s*,\s*(mode\s*=\s*)?['"][^'"]*['"]\s*\)""",
               r"\bPath\s*\(\s*" + _LITERAL + r"\s*\)\s*\.(write_text|write_bytes|unlink|touch|mkdir)\s*\(",
               r"\bos\.(remove|unlink|makedirs|mkdir|rmdir)\s*\(\s*" + _LITERAL,
               r"\bshutil\.rmtree\s*\(\s*" + _LITERAL],
    "node": [r"\b(writeFileSync|appendFileSync|writeFile|appendFile|unlinkSync|rmSync|mkdirSync|rmdirSync|"
             r"createWriteStream)\s*\(\s*" + _LITERAL],
}


def literal_targets(lang: str, code: str):
    """The paths the code writes when every write is a call on a quoted path; None when some write is not."""
    found, rest = [], code
    for call in _LITERAL_CALLS.get(lang, ()):
        found.extend(m.group("path") for m in re.finditer(call, rest))
        rest = re.sub(call, " ", rest)
    return found if found and not writes(lang, rest) else None


def writes(lang: str, code: str) -> bool:
    """Can this code create, change, move or delete a file (or run another program that could)?"""
    pattern = _WRITES.get(lang, _GENERIC)
    code = _PRINTING.sub("", code)
    return re.search(pattern, code, re.I if lang not in ("node", "ruby") else 0) is not None


def reaches(code: str, stores: list, where: str) -> bool:
    """Can this code name a store? ``where`` the code runs: "inside" a store, "above" one, or ""."""
    lowered = code.lower()
    if "claude" in lowered or any(s.lower() in lowered for s in stores):
        return True
    if where == "inside" or _OBFUSCATED.search(code):
        return True
    return where == "above" and ("memory" in lowered or _WALKS.search(code) is not None)
