"""The PowerShell tool is guarded like Bash: lines that write into a store are denied, reading ones are not.

``pwshjudge.judge`` on a corpus (cmdlets, aliases, ``\\`` and ``/``, any case, PowerShell's quoting,
any cmdlet that is no reader given a path in the store, pipes, .NET calls, nested ``powershell -Command``/``cmd /c``);
the real hooks as hooks.json runs them (deny, allow, the snapshot and PostToolUse's report); the fast
path (``toolgate``) never lets through what the full guard would stop; the matchers name the tool.
"""
from __future__ import annotations

import base64
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import REPO, examples, record, run_cli, run_hook, write
from team_memory.guards import toolgate
from team_memory.guards.pwshjudge import judge
from team_memory.guards.pwshjudge import bash_text
from team_memory.guards.shellscan import parse
from test_toolgate import assert_agrees, payload

PRE, POST = "pre_tool_use.py", "post_tool_use.py"

# $D is the project's absolute path (written with backslashes too, as on Windows).
DENIED = [
    "Set-Content -Path .claude\\memory\\decisions\\x.json -Value '{}'",
    'sc .claude/memory/decisions/x.json hi',
    "'{}' | Out-File -FilePath '.CLAUDE\\Memory\\decisions\\x.json'",
    'Add-Content -LiteralPath .claude\\memory\\d.json x',
    'New-Item -ItemType File -Path .claude\\memory\\decisions -Name x.json',
    'ni .claude\\memory\\decisions\\y.json',
    'Copy-Item backup.json -Destination .claude\\memory\\decisions\\',
    'cp -Destination .claude\\memory\\decisions -Path a.json',
    'Move-Item .claude\\memory\\decisions\\x.json old.json',
    'Remove-Item -Recurse -Force .claude',
    'rm .claude\\memory\\decisions\\x.json',
    'del .claude\\memory\\decisions\\x.json',
    'Rename-Item .claude\\memory\\decisions\\x.json y.json',
    'Clear-Content .claude\\memory\\decisions\\x.json',
    'echo hi > .claude\\memory\\decisions\\x.json',
    'Get-Date >> .claude/memory/log.json',
    "[IO.File]::WriteAllText('.claude\\memory\\decisions\\x.json', $t)",
    '[System.IO.File]::AppendAllText("$D\\.claude\\memory\\x.json", \'x\')',
    "'x' | Tee-Object -FilePath .claude\\memory\\decisions\\x.json",
    'cd .claude; Remove-Item memory -Recurse',
    "Set-Location .claude\\memory; sc decisions\\x.json '{}'",
    "$p = '.claude\\memory\\decisions\\x.json'; Remove-Item $p",
    "$p = Join-Path $PWD '.claude\\memory'; Remove-Item $p -Recurse",
    'gci .claude\\memory -Recurse | Remove-Item',
    'Get-ChildItem .claude\\memory\\decisions | ForEach-Object { Remove-Item $_ }',
    'ls .claude\\memory | % { $_.Delete() }',
    '(Get-Item .claude\\memory\\decisions\\x.json).Delete()',
    "powershell -NoProfile -ExecutionPolicy Bypass -Command 'Remove-Item .claude\\memory\\decisions\\x.json'",
    'pwsh -c Remove-Item .claude/memory/decisions/x.json',
    'cmd /c del .claude\\memory\\decisions\\x.json',
    "iex 'rm .claude\\memory\\decisions\\x.json'",
    'Invoke-Expression $cmd; # .claude',
    'remove-item `.claude\\memory\\x.json',
    'REMOVE-ITEM .Claude\\MEMORY\\decisions\\X.JSON',
    'ri -path .claude\\memory\\decisions\\x.json -force',
    'ren .claude\\memory\\decisions\\x.json y.json',
    'Expand-Archive backup.zip -DestinationPath .claude',
    'Remove-Item .claude\\mem*',
    'Remove-Item .\\*\\memory\\*',
    'Remove-Item *',
    'rm -r -fo .claude',
    'Set-Content `\n  -Path .claude\\memory\\x.json -Value 1',
    'Set-Content -Path ".claude\\memory\\x.json" -Value 1',
    'Remove-Item FileSystem::$D\\.claude\\memory\\decisions\\x.json',
    'Copy-Item -Recurse backup\\* .claude\\memory',
    "Start-Process python -ArgumentList '-c', 'x' -RedirectStandardOutput .claude\\memory\\x.json",
    'git checkout -- .claude/memory',
    'python -c "open(\'.claude/memory/x.json\',\'w\')"',
    "Set-Content -Path .claude\\memory\\x.json -Value 'unterminated",
    'Invoke-WebRequest https://x -OutFile .claude\\memory\\x.json',
    "$d = '.claude'; Remove-Item $d\\memory -Recurse",
    "[IO.Directory]::Delete('.claude\\memory', $true)",
    'Get-Content list.txt | Remove-Item',
    'Remove-Item $env:TEMP_UNSET_X',
    'Set-Content -Path .claude\\memory\\x.json -Value 1 ; Get-Date',
    'Get-Date | Out-File .claude\\memory\\decisions\\a.json',
    'Set-Content -Path:.claude\\memory\\x.json -Value 1',
    'Set-Content –Path .claude\\memory\\x.json -Value 1',
    'Set-Content -Path ‘.claude\\memory\\x.json’ -Value 1',
    'Set-Content -Pa .claude\\memory\\x.json -Va 1',
    'Copy-Item a.json .claude\\memory\\decisions',
    "$env:X = '.claude\\memory'; Remove-Item $env:X -Recurse",
    'Set-Content -Path "$PWD\\.claude\\memory\\x.json" -Value 1',
    'Set-Content -Path "$D/.claude/memory/x.json" -Value 1',
    'pwsh -EncodedCommand UgBlAG0AbwB2AGUALQBJAHQAZQBtACAALgBjAGwAYQB1AGQAZQBcAG0AZQBtAG8AcgB5AA==',
    '& \'C:\\Windows\\System32\\cmd.exe\' /c "del .claude\\memory\\x.json"',
    'if ($true) { Remove-Item .claude\\memory\\decisions\\x.json }',
    'foreach ($f in Get-ChildItem .claude\\memory) { Remove-Item $f }',
    'New-Item -ItemType SymbolicLink -Path .claude\\memory\\decisions\\l.json -Target C:\\x',
    'Remove-Item -Path src, .claude\\memory\\decisions\\x.json',
    "@'\n{}\n'@ | Set-Content .claude\\memory\\decisions\\x.json",
    'robocopy backup .claude\\memory /MIR',
    "Out-File -FilePath .claude\\memory\\x.json -InputObject 'x'\n",
    'sc -Value 1 -Path .claude/memory/x.json',
    'New-Item -Path . -Name .claude\\memory\\x.json',
    'ni -n x.json -path .claude/memory/decisions',
    'Get-Item a.json | Copy-Item -Destination .claude\\memory\\decisions',
    'Move-Item -Path .claude -Destination trash',
    'Rename-Item -Path .claude -NewName old',
    'Remove-Item -LiteralPath ".claude\\memory" -Recurse',
    '$null > .claude\\memory\\x.json',
    '"{}" > .claude\\memory\\x.json',
    'Add-Content -Path (Join-Path .claude memory\\x.json) -Value 1',
    'Set-Content -Path "$(Get-Location)\\.claude\\memory\\x.json" -Value 1',
    "& ('Re'+'move-Item') .claude\\memory\\x.json",
    '$p = \'.claude\\memory\\x.json\'; iex "Remove-Item $p"',
    '$d = \'memory\'; Remove-Item ".claude\\$d" -Recurse',
    'Set-Content -Path .cl?ude\\memory\\x.json 1',
    'Remove-Item -Path .claude\\memory\\* -Include *.json',
    'SET-CONTENT .CLAUDE\\MEMORY\\X.JSON 1',
    'cmd /c copy a.json .claude\\memory\\decisions',
    'cmd.exe /c "type nul > .claude\\memory\\x.json"',
    'mklink .claude\\memory\\l.json C:\\x',
    'Remove-Item -Path ..\\project\\.claude\\memory -Recurse',
    'Set-Content -Path ~\\..\\..\\$D\\.claude\\memory\\x.json 1',
    "Get-ChildItem -Path .claude -Recurse -File | ForEach-Object { Set-Content -Path $_.FullName -Value '' }",
    "Get-ChildItem .claude\\memory\\decisions\\*.json | % { (Get-Content $_) -replace 'a','b' | Set-Content $_ }",
    '[IO.File]::Delete("$PWD\\.claude\\memory\\decisions\\x.json")',
    "$sw = New-Object System.IO.StreamWriter('.claude\\memory\\x.json')",
    'Compress-Archive -Path src -DestinationPath .claude\\memory\\x.json',
    'Export-Csv -Path .claude\\memory\\x.json -InputObject $x',
    'cd .claude\\memory\\decisions; rm x.json',
    'Push-Location .claude; Remove-Item memory\\decisions\\x.json; Pop-Location',
    "Start-Process -FilePath pwsh -ArgumentList '-c', 'Remove-Item .claude\\memory\\x.json'",
    'Remove-Item -Path src,.claude -Recurse\n',
    '$t = [IO.Path]::Combine($x, "y"); Remove-Item $t',
    # A cmdlet that is no reader given a path in the store: denied without binding its parameters (a copy out too).
    'Copy-Item .claude\\memory\\decisions\\x.json backup.json',
    'Copy-Item -Path .claude\\memory -Destination backup -Recurse',
    'Compress-Archive -Path .claude\\memory -DestinationPath backup.zip',
    # A variable is never known (plainly conservative): one handed to a writer, or to a program on a line that sets one.
    '$t = New-TemporaryFile; Set-Content $t 1; Remove-Item $t',
    '$t = [IO.Path]::GetTempFileName(); Remove-Item $t',
    "$p = 'src\\a.py'; Remove-Item $p",
    "$c = 'open(\".claude/memory/x.json\", \"w\")'; python -c $c",
    'ps_p=x; Remove-Item "$p.claude\\memory" -Recurse',  # a Bash assignment sets no PowerShell variable
    'export ps_p=x; Remove-Item "$p.claude\\memory" -Recurse',
]

ALLOWED = [
    'Get-Content .claude\\memory\\decisions\\x.json',
    'Get-ChildItem .claude\\memory -Recurse',
    'ls .claude\\memory',
    'cat .claude\\memory\\index.md',
    'Select-String -Path .claude\\memory\\*\\*.json -Pattern redis',
    'git status',
    'git diff -- .claude/memory',
    "Set-Content -Path src\\notes.txt -Value '.claude\\memory is the store'",
    'echo hi > out.txt',
    'Remove-Item src\\*.tmp',
    'New-Item -ItemType Directory build',
    'Get-ChildItem src | Remove-Item',
    "[IO.File]::ReadAllText('.claude\\memory\\decisions\\x.json')",
    'Test-Path .claude\\memory',
    'python .claude\\team-memory\\scripts\\memory.py list',
    'python scripts\\memory.py save --record \'{"title": "x"}\'',
    'py -3 scripts/memory.py list',
    'Get-Content .claude\\memory\\x.json | Select-String foo',
    '$x = 5; Write-Output $x',
    'Get-Date > $null',
    'npm test 2>&1',
    'cd src; Remove-Item *.pyc',
    'Get-ChildItem -Recurse -Filter *.json | Measure-Object',
    'Set-Content -Path memory-config.json -Value x',
    "Set-Content .claude\\memory\\memory-config.json '{}'",
    'Get-FileHash .claude\\memory\\decisions\\x.json',
    "$f = [IO.StreamWriter]::new('out.txt'); $f.WriteLine('x'); $f.Close()",
    "'a','b' | Out-File list.txt",
    'Remove-Item build -Recurse -Force',
    'Copy-Item src\\a.py src\\b.py',
    'Move-Item src\\a.py src\\c.py',
    'Rename-Item src\\a.py b.py',
    'Get-Content .claude\\memory\\decisions\\x.json | ConvertFrom-Json | Format-List',
    'git log --oneline -5',
    'Write-Host "done"',
    '$files = Get-ChildItem src -Filter *.py; foreach ($f in $files) { Get-Content $f }',
    'Get-Process | Sort-Object CPU | Select-Object -First 5',
    'python -m pytest -q',
    'Set-Content -Path out.txt -Value (Get-Content .claude\\memory\\decisions\\x.json)',
    "'x' | Tee-Object -Variable v",
    'Get-ChildItem src -Recurse | Where-Object { $_.Length -gt 1000 } | Remove-Item\n',
    "Get-ChildItem -Path src -Recurse -File | ForEach-Object { Set-Content -Path $_.FullName -Value '' }",
    'Get-Content .claude\\memory\\decisions\\x.json -Raw | ConvertFrom-Json',
    'cmd /c dir .claude\\memory',
    'cd src; Set-Content -Path notes.txt -Value x',
    'powershell -NoProfile -Command "Get-ChildItem .claude\\memory"',
    "Write-Output '.claude\\memory\\x.json'",
    "Set-Content -Path build\\out.txt -Value '.claude/memory/decisions/x.json'",
    "Select-String -Path .claude\\memory\\*\\*.json -Pattern 'redis' | Out-File report.txt\n",
]


@pytest.fixture
def store(project, memory_root):
    write(memory_root, record("decision", "x", "Use Redis"))
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("print(1)\n")
    return project, memory_root


@pytest.fixture(scope="module")
def _judged_store(tmp_path_factory):
    base = tmp_path_factory.mktemp("judged")
    (base / "home").mkdir()
    project, memory_root = base / "project", base / "project" / ".claude" / "memory"
    (project / ".git").mkdir(parents=True)
    memory_root.mkdir(parents=True)
    write(memory_root, record("decision", "x", "Use Redis"))
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("print(1)\n")
    return base, project, memory_root


@pytest.fixture
def judged_store(_judged_store, monkeypatch):
    """``store`` for the tests that only judge a line (``judge`` reads, never writes): one built for the module, with
    the home and working folders beside it as ``store`` has them."""
    base, project, memory_root = _judged_store
    monkeypatch.setenv("HOME", str(base / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(base / "home" / ".local" / "state"))
    monkeypatch.chdir(base)
    return project, memory_root


def spelled(line: str, project) -> str:
    return line.replace("$D", str(project))


@pytest.mark.parametrize("line", DENIED)
def test_lines_that_write_into_the_store_are_denied(judged_store, line):
    project, memory_root = judged_store
    assert judge(spelled(line, project), str(project), [str(memory_root)]) is not None, line


@pytest.mark.parametrize("line", ALLOWED)
def test_reading_lines_and_writes_elsewhere_are_allowed(judged_store, line):
    project, memory_root = judged_store
    assert judge(spelled(line, project), str(project), [str(memory_root)]) is None, line


def test_what_is_denied_is_said_in_a_few_words(store):
    project, memory_root = store
    said = judge(r"Set-Content -Path .claude\memory\decisions\x.json -Value '{}'", str(project), [str(memory_root)])
    assert said.startswith("set-content of") and "decisions/x.json" in said
    said = judge("Remove-Item -Recurse .claude", str(project), [str(memory_root)])
    assert said.startswith("remove-item of")


def test_a_windows_path_is_read_by_name_wherever_the_store_is(store):
    project, memory_root = store
    for line in (r"Remove-Item C:\Users\me\app\.claude\memory\decisions\x.json",
                 r"Set-Content 'D:/work/app/.Claude/Memory/x.json' 1", r"del \\server\share\app\.claude\memory\x.json"):
        assert judge(line, str(project), [str(memory_root)]) is not None, line
    assert judge(r"Remove-Item C:\Users\me\app\build\x.json", str(project), [str(memory_root)]) is None


def test_a_dotnet_write_from_inside_the_store_is_denied_though_no_word_names_it(store):
    """.NET calls are held to the class rule (issue 33): run inside a store, a method that writes is denied."""
    project, memory_root = store
    for line in (r"[IO.File]::WriteAllText('decisions\x.json', '{}')", r"(Get-Item decisions\x.json).Delete()"):
        assert judge(line, str(memory_root), [str(memory_root)]) is not None, line
    assert judge(r"[IO.File]::ReadAllText('decisions\x.json')", str(memory_root), [str(memory_root)]) is None


def test_quoting_is_powershells():
    """Single quotes are literal, a backtick escapes, double quotes expand, \\ is a path separator."""
    (cmd,) = parse(bash_text("Set-Content -Path 'a`b$c' -Value \"x`ty$env:HOME\""))
    assert cmd.words[2] == [("s", "a`b$c")]
    assert cmd.words[4] == [("s", "x\ty"), ("v", "ps_env_home")]
    (cmd,) = parse(bash_text(r"Remove-Item `.claude\memory 'it''s'"))
    assert cmd.words[1:] == [[("s", ".claude/memory")], [("s", "it's")]]
    first, second = parse(bash_text("Get-Content a.txt | Out-File b.txt"))
    assert first.sep == "|" and second.words[0] == [("s", "Out-File")]


def test_an_encoded_command_is_denied_unread(store):
    """An encoded command is not decoded: denied whatever it says (the Get-ChildItem one was allowed before)."""
    project, memory_root = store
    for line in ("Remove-Item .claude\\memory -Recurse", "Get-ChildItem .claude\\memory"):
        encoded = base64.b64encode(line.encode("utf-16-le")).decode()
        said = judge(f"powershell -NoProfile -EncodedCommand {encoded}", str(project), [str(memory_root)])
        assert said == "an encoded PowerShell command (not read)", line


def test_the_team_memory_cli_is_allowed_however_python_is_named(store):
    project, memory_root = store
    for python in ("python", "python3", "py -3", "py", r"C:\Python312\python.exe", "& 'C:/Python312/python.exe'"):
        line = f"{python} .claude\\team-memory\\scripts\\memory.py save --record '{{\"title\": \"x\"}}'"
        assert judge(line, str(project), [str(memory_root)]) is None, line


# --- the real hooks ------------------------------------------------------------------------------------

def pwsh(command, project, event="PreToolUse", call="toolu_p1"):
    return {"tool_name": "PowerShell", "tool_input": {"command": command, "description": "x"}, "cwd": str(project),
            "session_id": "s1", "tool_use_id": call, "hook_event_name": event}


def decision(proc):
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else None


@pytest.mark.parametrize("line", [r"Set-Content -Path .claude\memory\decisions\x.json -Value '{}'",
                                  r"rm -r -fo .CLAUDE", r"'{}' | Out-File .claude/memory/decisions/y.json",
                                  r"[IO.File]::WriteAllText('.claude\memory\decisions\x.json', $t)"])
def test_the_real_hook_denies_a_powershell_write(store, line):
    project, _ = store
    out = decision(run_hook(PRE, pwsh(line, project), cwd=project))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "team-memory CLI" in out["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.mark.parametrize("line", [r"Get-Content .claude\memory\decisions\x.json", "Get-ChildItem src", "git status",
                                  r"Select-String -Path .claude\memory\*\*.json -Pattern redis"])
def test_the_real_hook_lets_a_reading_line_through(store, line):
    project, _ = store
    assert decision(run_hook(PRE, pwsh(line, project), cwd=project)) is None


def test_a_powershell_line_that_slips_through_is_reported_after(store):
    """A script the guard cannot see into changes a memory: PostToolUse compares with the snapshot, as for Bash."""
    project, memory_root = store
    line = "& ./tools/fix.ps1"
    assert decision(run_hook(PRE, pwsh(line, project), cwd=project)) is None
    (memory_root / "decisions" / "x.json").write_text('{"title": 5}\n')
    proc = run_hook(POST, pwsh(line, project, "PostToolUse"), cwd=project)
    assert proc.returncode == 0
    text = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "decisions/x.json changed outside the CLI" in text and "not a valid memory" in text


def test_the_matchers_name_the_powershell_tool(tmp_path):
    hooks = json.loads((REPO / "hooks.json").read_text())["hooks"]
    for event in ("PreToolUse", "PostToolUse"):
        assert "PowerShell" in hooks[event][0]["matcher"].split("|")
    app = tmp_path / "app"
    (app / ".git").mkdir(parents=True)
    assert run_cli("install", str(app)).returncode == 0
    installed = json.loads((app / ".claude" / "settings.json").read_text())["hooks"]
    for event in ("PreToolUse", "PostToolUse"):
        assert "PowerShell" in installed[event][0]["matcher"].split("|")


# --- the fast path -------------------------------------------------------------------------------------

FAST = ["Get-ChildItem src", "ls", "git status", "Get-Content README.md | Select-String foo", "gci -Recurse src",
        "git log --oneline -5", "Get-Location; Get-Date"]


def test_reading_lines_take_the_fast_path(store):
    project, _ = store
    for line in FAST:
        assert toolgate.outside_store(pwsh(line, project)), line
    for line in ("Get-ChildItem .claude", "Remove-Item x", "ls > out.txt", "Get-Content $f", "sort -o x y", "gc `a"):
        assert not toolgate.outside_store(pwsh(line, project)), line


@pytest.mark.parametrize("line", DENIED + ALLOWED + FAST)
def test_the_fast_path_agrees_with_the_full_guard(store, line):
    project, _ = store
    for cwd in (project, project / "src", project / ".claude" / "memory" / "decisions"):
        p = pwsh(spelled(line, project), cwd)
        assert_agrees(p)
        if line in DENIED:
            assert not toolgate.outside_store(pwsh(spelled(line, project), project)), line


WORDS = ["ls", "gci", "Get-Content", "Remove-Item", "rm", "cp", "git", "status", "checkout", "-Recurse", "-Path",
         "-Destination", ".claude", "memory", r".claude\memory", "'.claude/memory'", "src", "..", ".", "*", "x.json",
         "|", ";", ">", "$HOME", "$(pwd)", "`", "'", '"', "Set-Content", "sc", "ni", "echo", "Select-String", "\\"]


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=7), glue=st.sampled_from([" ", ""]))
def test_generated_lines_agree_with_the_full_guard(store, words, glue):
    project, _ = store
    assert_agrees(pwsh(glue.join(words), project))


def test_a_line_too_long_to_read_is_denied_when_it_names_the_store_with_backslashes(store):
    from team_memory.guards.guards import MAX_COMMAND_CHARS, guard_tool_use
    project, _ = store
    line = "Write-Output " + "x" * MAX_COMMAND_CHARS + r"; Remove-Item .Claude\Memory -Recurse"
    assert guard_tool_use(pwsh(line, project))["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert guard_tool_use(pwsh("Write-Output " + "x" * MAX_COMMAND_CHARS, project)) is None


STALLED = ["Remove-Item a2$(d<}[_=e.-c", "<.claude 3Y$(X", "b-Path &cmd /c d>$env:\u2013<Remove-Item <>$(~c",
           "*Set-Content <[IO.File]::WriteAllText(@'\n}\u2018+2>", "<" * 1000]
PIECES = list("abeXZ .-_/\\'\"`$@(){}[];|&><,:=+*?#~\n\t02") + [
    "Remove-Item ", "Set-Content ", ".claude", "memory", "-Path ", "::", "[IO.File]::WriteAllText(", "@'\n", "\n'@",
    "powershell -c ", "cmd /c ", "iex ", "$env:", "${", "$(", "%{", "-EncodedCommand ", "\u2018", "\u201c", "\u2013",
    "<#", "#>", "2>&1", "*>"]


def judged_within(line: str, project, memory_root, seconds: int = 5):
    import signal

    def stalled(*_):
        raise AssertionError(f"the reader stalled on {line!r}")
    previous = signal.signal(signal.SIGALRM, stalled)
    signal.alarm(seconds)
    try:
        return judge(line, str(project), [str(memory_root)])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("line", STALLED)
def test_a_character_no_word_starts_with_never_stalls_the_reader(judged_store, line):
    """A stalled reader is a hook killed by its time-out, and Claude Code then runs the tool: found by fuzzing."""
    project, memory_root = judged_store
    judged_within(line, project, memory_root)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(st.sampled_from(PIECES), min_size=1, max_size=40))
def test_any_line_is_judged_without_an_error(store, pieces):
    project, memory_root = store
    said = judged_within("".join(pieces), project, memory_root)
    assert said is None or isinstance(said, str)
