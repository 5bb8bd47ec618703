"""The write guard's class rule (issue 36): a line that names the store in any spelling the shell reads is denied
unless it is the CLI or a reader, and the judge answers in time, with the snapshot taken before it runs.

Each class that once slipped past the pre-check has several lines of its own here (Bash: ``~+``, ``trap``,
``function f {}``, ``git -c``, ``source`` of a here-string, quoting; PowerShell: a pipe that binds the path, a
splat, a .NET method, code in a string, another program, backticks). Long lines (30 KB) of the shapes that made
the judge slow are judged within 3 s by the real hook, and a line the judge gives up on still has its snapshot,
so PostToolUse reports what it changed.
"""
from __future__ import annotations

import json
import time

import pytest

from helpers import record, run_hook, write
from team_memory.guards.pwshjudge import judge as pwsh_judge
from team_memory.guards.shelljudge import judge as bash_judge

PRE, POST = "pre_tool_use.py", "post_tool_use.py"

BASH = {
    "~+ and ~-": ["rm -rf ~+/.claude", "rm -rf ~+/.claude/memory/decisions", "echo x > ~+/.claude/memory/decisions/x.json",
                  "cp draft.json ~+/.claude/memory/decisions/", "cd src && rm -rf ~-/.claude"],
    "trap": ["trap 'rm -rf .claude' EXIT", 'trap "rm -rf .claude/memory" INT TERM',
             "trap -- 'echo x > .claude/memory/decisions/x.json' EXIT; true", "trap 'mv .claude /tmp/gone' ERR; false"],
    "function keyword": ["function f { rm -rf .claude; }; f", "function wipe() { rm -rf .claude/memory; }; wipe",
                         "function g {\n  echo x > .claude/memory/decisions/x.json\n}\ng",
                         'function h { cp a.json "$1"; }; h .claude/memory/decisions/x.json'],
    "git -c": ["git -c alias.x='!rm -rf .claude' x", 'git -c alias.wipe="!rm -rf .claude/memory" wipe',
               "git -c core.pager='rm -rf .claude' log", "git -c alias.y='!sh -c \"rm -rf .claude\"' y",
               "git --config-env=core.editor=ED -c alias.z='!rm -r .claude/memory/decisions' z"],
    "source of a here-string": ["source /dev/stdin <<< 'rm -rf .claude'", '. /dev/stdin <<< "rm -rf .claude/memory"',
                                "source /dev/stdin <<'EOF'\nrm -rf .claude\nEOF",
                                "source /dev/fd/0 <<< 'echo {} > .claude/memory/decisions/x.json'",
                                "source <(echo 'rm -rf .claude')", ". <(printf 'rm -rf .claude/memory')"],
    "a cd that can fail": ["cd build; rm -rf .claude", "cd /nowhere\nrm -rf .claude/memory",
                           "pushd src; echo x > .claude/memory/decisions/x.json"],
    "spellings": ['rm -rf $".claude"', "rm -rf $'\\x2eclaude'", "rm -rf $'\\056claude'", "rm -rf .cl\\\naude",
                  "rm -rf \".cl\"'au'de", "rm -rf \\.\\c\\l\\a\\u\\d\\e", "rm -rf $'.cl'\"au\"de/memory",
                  "rm -rf $'\\u002eclaude'"],
    "programs the guard cannot read": ["alias x='rm -rf .claude'; x", "./cleanup.sh .claude/memory",
                                       "frobnicate --dir=.claude", "make clean DIR=.claude/memory"],
}

PWSH = {
    "a pipe that binds the path": [
        "Get-Item .claude/memory/decisions/x.json | Set-Content -Value '{}'",
        "Get-ChildItem .claude\\memory -Recurse -Filter *.json | Clear-Content",
        "gi .claude\\memory\\decisions\\x.json | Rename-Item -NewName y.json",
        "Resolve-Path .claude\\memory\\index.md | Add-Content -Value x",
        "Get-ChildItem .claude\\memory | Set-ItemProperty -Name IsReadOnly -Value $true"],
    "a splat": [
        "$a=@{Path='.claude/memory/decisions/x.json'}; Set-Content @a -Value '{}'",
        '$p = @{ LiteralPath = ".claude\\memory"; Recurse = $true }; Remove-Item @p',
        "$w = @('.claude\\memory\\x.json', 'x'); Set-Content @w",
        "$h = @{}; $h.Path = '.claude\\memory\\x.json'; Add-Content @h -Value 1"],
    "a .NET method on a listed file": [
        "(Get-Item .claude\\memory\\decisions\\x.json).MoveTo('gone.json')",
        "$f = Get-Item .claude\\memory\\index.md; $f.Delete()",
        "(Get-ChildItem .claude\\memory -Recurse -File)[0].Delete()",
        "[IO.File]::WriteAllText((Resolve-Path .claude\\memory\\x.json), '{}')",
        "(New-Object IO.FileInfo '.claude\\memory\\x.json').Delete()",
        "Get-ChildItem .claude\\memory -Recurse -File | ForEach-Object Delete",
        "(gci .claude\\memory -File).ForEach('Delete')",
        "$files = gci .claude\\memory -Recurse -File; foreach ($f in $files) { $f.Delete() }",
        "gci .claude\\memory -File | % MoveTo { 'x' }",
        "gci .claude\\memory -File | ForEach-Object -MemberName Delete",
        "Get-ChildItem .claude\\memory -File | ForEach-Object { $_.Open('Truncate').Close() }"],
    "code in a string": [
        "iex 'Remove-Item -Recurse .claude'",
        'Invoke-Expression "Remove-Item .claude\\memory\\decisions\\x.json"',
        "& ([scriptblock]::Create('Remove-Item -Recurse .claude'))",
        "Invoke-Command -ScriptBlock { Remove-Item -Recurse .claude }",
        "$c = 'Remove-Item -Recurse .claude'; iex $c",
        "Start-Job { Remove-Item .claude\\memory -Recurse } | Wait-Job",
        "iex ('Remove-Item -Recurse .cl' + 'aude')",
        "$ExecutionContext.InvokeCommand.InvokeScript('Remove-Item .claude -Recurse')",
        "[PowerShell]::Create().AddScript('Remove-Item .claude -Recurse').Invoke()"],
    "another program": [
        "Start-Process cmd -ArgumentList '/c rmdir /s /q .claude' -Wait",
        "wsl rm -rf .claude",
        "bash -c 'rm -rf .claude'",
        '& "C:\\Program Files\\Git\\bin\\bash.exe" -c "rm -rf .claude"',
        "robocopy empty .claude\\memory /MIR",
        'cmd /c "rd /s /q .claude"',
        "xcopy /y a.json .claude\\memory\\decisions\\",
        "node -e \"require('fs').rmSync('.claude', {recursive: true})\"",
        "cmd /c rmdir /s /q .cl^aude"],
    "a cd that can fail": ["Push-Location ~+; Remove-Item .claude -Recurse", "cd build; Remove-Item .claude -Recurse",
                           "Set-Location nowhere\nSet-Content .claude\\memory\\x.json 1"],
    "backticks": ["Remove-Item .c`laude -Recurse", "Remove-Item `.`c`l`au`d`e -Recurse",
                  "Remove-Item `\n  -Recurse .claude", "Set-Content -Path .claude`\\memory`\\x.json -Value 1"],
}

STILL_ALLOWED = {  # readers and the CLI on lines that name the store
    "Bash": ["cat .claude/memory/index.md", "ls -la ~+/.claude/memory", "grep -rn redis $'.claude/memory'",
             "git log --oneline -- .claude/memory", "python3 scripts/memory.py list", "cp .claude/memory/index.md /tmp/i"],
    "PowerShell": ["Get-Content .claude\\memory\\index.md", "Get-ChildItem .claude\\memory -Recurse | Measure-Object",
                   "Get-Content .cl`aude\\memory\\index.md | Select-String redis", "git diff -- .claude/memory",
                   "py -3 .claude\\team-memory\\scripts\\memory.py list"],
}


def cases(table: dict) -> list:
    return [pytest.param(line, id=f"{form}-{i}") for form, lines in table.items() for i, line in enumerate(lines)]


@pytest.fixture
def store(project, memory_root):
    write(memory_root, record("decision", "x", "Use Redis"))
    (project / "src").mkdir()
    return project, memory_root


@pytest.mark.parametrize("line", cases(BASH))
def test_bash_lines_that_name_the_store_in_a_form_once_missed_are_denied(store, line):
    project, memory_root = store
    assert bash_judge(line, str(project), [str(memory_root)]) is not None, line


@pytest.mark.parametrize("line", cases(PWSH))
def test_powershell_lines_that_name_the_store_in_a_form_once_missed_are_denied(store, line):
    project, memory_root = store
    assert pwsh_judge(line, str(project), [str(memory_root)]) is not None, line


@pytest.mark.parametrize("tool,line", [(tool, line) for tool, lines in STILL_ALLOWED.items() for line in lines])
def test_readers_and_the_cli_on_such_lines_still_pass(store, tool, line):
    project, memory_root = store
    judge = bash_judge if tool == "Bash" else pwsh_judge
    assert judge(line, str(project), [str(memory_root)]) is None, line


def call(tool: str, command: str, project, event: str = "PreToolUse") -> dict:
    return {"tool_name": tool, "tool_input": {"command": command}, "cwd": str(project), "session_id": "s1",
            "hook_event_name": event, "tool_use_id": "toolu_long"}


def test_the_real_hook_denies_one_line_of_each_form(store):
    project, _ = store
    for tool, table in (("Bash", BASH), ("PowerShell", PWSH)):
        for form, lines in table.items():
            proc = run_hook(PRE, call(tool, lines[0], project))
            assert proc.returncode == 0 and proc.stderr == b"", (form, proc.stderr)
            assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny", (form, lines[0])


END = {"Bash": "rm -rf .claude", "PowerShell": "Remove-Item -Recurse -Force .claude"}
LONG = [  # ~30 KB each; the nested shapes once took 11-19 s (each level read the rest of the line again)
    ("PowerShell", "cmd /c echo x;" * 2200), ("PowerShell", "cmd /c " * 4300), ("PowerShell", "pwsh -c " * 3800),
    ("Bash", "cmd /c echo x;" * 2200), ("Bash", "eval " * 6000), ("Bash", "xargs " * 5000),
]


@pytest.mark.slow  # a long check: TEAM_MEMORY_SLOW=1 and .ci/run
@pytest.mark.parametrize("tool,head", LONG, ids=[f"{t}-{h[:8].strip()}" for t, h in LONG])
def test_a_30_kb_line_that_ends_in_a_store_write_is_denied_within_3_s(store, tool, head):
    project, _ = store
    started = time.monotonic()
    proc = run_hook(PRE, call(tool, head + END[tool], project))
    took = time.monotonic() - started
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert took < 3.0, f"{took:.1f} s"


@pytest.mark.slow  # a long check: TEAM_MEMORY_SLOW=1 and .ci/run
def test_a_line_the_judge_gives_up_on_still_has_its_snapshot_and_its_report(store):
    """Past the judge's time a line that names no store runs; the snapshot taken before the judge shows what it did."""
    project, memory_root = store
    line = "eval " * 6000 + "'rm -rf build'"
    started = time.monotonic()
    assert bash_judge(line, str(project), [str(memory_root)]) is None  # let through when its time is up
    assert time.monotonic() - started < 3.0
    proc = run_hook(PRE, call("Bash", line, project))
    assert proc.returncode == 0 and proc.stdout.strip() == b"", proc.stdout
    (memory_root / "decisions" / "x.json").unlink()  # what the line might have done, out of the judge's sight
    proc = run_hook(POST, call("Bash", line, project, "PostToolUse"))
    text = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert ".claude/memory/decisions/x.json was removed by this command" in text


@pytest.mark.parametrize("tool,line,denied", [
    ("Bash", "rm -rf .cl*", True), ("Bash", "rm -rf .cl\\aude", True), ("Bash", "rm -rf '.cla'ude", True),
    ("Bash", "rm -rf $'\\x2eclaude'", True), ("Bash", "rm -rf .*", True), ("Bash", "rm -rf build", False),
    ("PowerShell", "Remove-Item .c`laude -Recurse", True), ("PowerShell", "Remove-Item * -Recurse", True),
    ("PowerShell", "Remove-Item build -Recurse", False)])
def test_past_its_time_the_judge_denies_a_line_that_can_name_the_store_and_no_other(store, monkeypatch, tool, line,
                                                                                 denied):
    from team_memory.guards import shellpaths
    monkeypatch.setattr(shellpaths, "JUDGE_SECONDS", -1.0)  # out of time at the first command
    project, memory_root = store
    judge = bash_judge if tool == "Bash" else pwsh_judge
    said = judge(line, str(project), [str(memory_root)])
    assert (said is not None) == denied, (line, said)
    assert said is None or "in time" in said


@pytest.mark.parametrize("line", ["patch -d .. -p1 < x.patch", "patch --directory=.. -p1 < x.patch",
                                  "patch -p1 -d.. < x.patch", "patch -Nd .. < x.patch", "patch -p0 -i x.patch -d ..",
                                  "git apply --directory=.. x.patch", "patch -d $X < x.patch"])
def test_a_patch_applied_in_a_folder_above_the_store_is_denied_wherever_the_line_runs(store, line):
    """The patch is not read, so the folder it applies in decides: any ``-d``/``--directory`` is denied (read plainly:
    it may name a folder that holds the store), from a subfolder too; applied where no store can be, it passes."""
    project, memory_root = store
    assert bash_judge(line, str(project / "src"), [str(memory_root)]) is not None, line
    assert bash_judge("patch -d deep -p1 < x.patch", str(project / "src"), [str(memory_root)]) is not None
    assert bash_judge("patch -p1 < x.patch", str(project / "src"), [str(memory_root)]) is None
