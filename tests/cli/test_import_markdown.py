"""``import --from-claude-md`` and ``import --from-auto-memory``: what a team wrote for Claude becomes memories.

The CLAUDE.md below holds what the issue names (conventions, architecture decisions, a hard limit, a numbered
runbook, a private line and a key); the auto memory folder is laid out as Claude Code 2.1.330 writes it
(``<config dir>/projects/<key>/memory/``: a ``MEMORY.md`` index of links and one topic file per fact, with
``name``/``description``/``metadata.type`` front matter; the key is the repository root's path with every
character but ASCII letters and digits as ``-``, as seen in the client's own system prompt).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from helpers import examples, run_cli, run_prompt_hook
from team_memory.cli.cmd_transfer import auto_memory_folder, project_key
from team_memory.cli.mdsource import split_markdown

SECRET = "AKIAIOSFODNN7EXAMPLE"
PRIVATE = "Acme Corp pays for the premium tier"

CLAUDE_MD = f"""# Orders service

Guide for Claude in this repository. See @docs/architecture.md.

## Conventions

- Always use `ruff` for formatting and linting; never add flake8 configs.
- Prefer pytest fixtures over setUp methods because they compose better.
- Name branches `feature/<ticket>`.
  Keep them short-lived.

## Architecture decisions

- We chose PostgreSQL over MongoDB for orders because we need transactions across tables.
- Background jobs run on Celery with Redis as the broker.

## Limits

- The payments API allows at most 100 requests per minute per key; batch calls.
- <private>{PRIVATE}, contract ends in March.</private>
- Deploy key for staging: {SECRET}

## Releasing

To release a new version:

1. Bump the version in `pyproject.toml`.
2. Run `make changelog` and commit.
3. Tag the commit and push the tags.
4. Verify the release job is green in CI.

```bash
make release
```

## Known issues

- TODO: the CSV export loads everything into memory; stream it later.
"""


def store_files(repo: Path) -> list:
    return sorted((repo / ".claude" / "memory").rglob("*.json"))


def all_store_text(repo: Path) -> str:
    return "".join(p.read_text(encoding="utf-8", errors="replace") for p in (repo / ".claude").rglob("*") if p.is_file())


# --- cutting Markdown ---------------------------------------------------------------------------------

def test_pieces_follow_the_markdown_shapes():
    pieces, front, blanked = split_markdown(CLAUDE_MD)
    assert front == {} and blanked == 1
    kinds = [(p.kind, p.headings[-1] if p.headings else "") for p in pieces]
    assert kinds.count(("bullet", "Conventions")) == 3  # one memory per bullet
    steps = next(p for p in pieces if p.kind == "steps")
    assert steps.lead == "To release a new version:" and len(steps.steps) == 4  # one runbook for the list
    assert "make release" in steps.steps[-1]  # code kept whole, with the piece before it
    branch = next(p for p in pieces if "feature/" in p.text)
    assert "short-lived" in branch.text and branch.lines == "9-10"  # a continuation line stays with its bullet
    assert not any(PRIVATE in p.text for p in pieces)  # a whole-line private section is gone before cutting
    assert not any(p.text.startswith("@") for p in pieces)


def test_tables_code_comments_and_front_matter():
    text = ("---\nname: x\ndescription: a fact\n---\n\n# T\n\n<!-- a note\nfor editors -->\n\nIntro paragraph\n"
            "over two lines.\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n```\n- not a bullet\n```\n")
    pieces, front, _ = split_markdown(text)
    assert front == {"name": "x", "description": "a fact"}
    assert len(pieces) == 1 and pieces[0].kind == "paragraph"
    assert "Intro paragraph over two lines." in pieces[0].text and "| 1 | 2 |" in pieces[0].text
    assert "- not a bullet" in pieces[0].text and "editors" not in pieces[0].text


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.sampled_from(["# H", "## H2", "- a", "  - b", "1. s", "2) t", "```", "| x |", "para", "",
                                 "   cont", "<private>p</private>", "<!-- c -->", "---", "@f", "To do:"]),
                max_size=30))
def test_any_markdown_is_cut_without_error_and_lines_stay_in_range(lines):
    text = "\n".join(lines)
    pieces, _, _ = split_markdown(text)
    total = max(1, len(lines))
    for piece in pieces:
        assert 1 <= piece.first <= piece.last <= total
        assert piece.text.strip() or piece.steps


# --- CLAUDE.md ----------------------------------------------------------------------------------------

def test_claude_md_imports_as_valid_memories_once_and_recall_finds_them(tmp_path, git_init):
    repo = git_init(tmp_path / "repo")
    source = repo / "CLAUDE.md"
    source.write_text(CLAUDE_MD, encoding="utf-8")
    before = source.read_bytes()

    dry = run_cli("import", "--from-claude-md", "CLAUDE.md", "--dry-run", cwd=repo)
    assert dry.returncode == 0, dry.stderr
    assert not (repo / ".claude").exists()  # a dry run writes nothing, not even a store
    assert "CLAUDE.md:25-34  runbook  To release a new version" in dry.stdout  # the source lines it came from
    assert SECRET not in dry.stdout + dry.stderr and PRIVATE not in dry.stdout + dry.stderr

    first = run_cli("import", "--from-claude-md", "CLAUDE.md", "--json", cwd=repo)
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["created"] == len(store_files(repo)) >= 8 and report["invalid"] == 0
    categories = {m["record"]["category"] for m in report["memories"]}
    assert {"decision", "constraint", "runbook", "preference", "tech_debt"} <= categories
    decision = next(m["record"] for m in report["memories"] if "PostgreSQL" in m["record"]["title"])
    assert decision["content"]["rationale"] == ["because we need transactions across tables"]
    celery = next(m["record"] for m in report["memories"] if "Celery" in m["record"]["title"])
    assert celery["content"]["rationale"] == ["not stated in the source"]  # says so, invents nothing
    runbook = next(m["record"] for m in report["memories"] if m["record"]["category"] == "runbook")
    assert runbook["content"]["verification"] == "Verify the release job is green in CI."

    assert SECRET not in all_store_text(repo) and PRIVATE not in all_store_text(repo)
    assert source.read_bytes() == before  # the source is never changed
    assert run_cli("validate", cwd=repo).returncode == 0

    again = run_cli("import", "--from-claude-md", "CLAUDE.md", cwd=repo)
    assert again.returncode == 0, again.stderr
    assert "imported 0 of" in again.stdout and len(store_files(repo)) == report["created"]  # adds nothing
    assert "source lines now held as memories" in again.stdout and "CLAUDE.md:19  ->" in again.stdout

    asked = {"how do we release a new version?": "To release a new version",
             "how many requests per minute can we send to the payments API?": "at most 100 requests",
             "why did we choose PostgreSQL for orders?": "We chose PostgreSQL"}
    for n, (prompt, expected) in enumerate(asked.items()):
        out = run_prompt_hook(repo, prompt, session=f"s{n}").stdout.decode()
        assert expected in out, (prompt, out)


def test_an_existing_memory_like_an_imported_piece_is_named_not_duplicated(tmp_path, git_init):
    repo = git_init(tmp_path / "repo")
    record = {"category": "preference", "title": "Use ruff for formatting and linting", "tags": ["ruff", "lint"],
              "content": {"topic": "lint", "value": "ruff", "reason": "fast", "strength": "strong"}}
    assert run_cli("save", "--record", json.dumps(record), cwd=repo).returncode == 0
    (repo / "CLAUDE.md").write_text("## Conventions\n\n- Always use `ruff` for formatting and linting.\n",
                                    encoding="utf-8")
    out = run_cli("import", "--from-claude-md", "CLAUDE.md", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert "like the existing memory use-ruff-for-formatting-and-linting" in out.stdout
    assert len(store_files(repo)) == 1
    forced = run_cli("import", "--from-claude-md", "CLAUDE.md", "--allow-similar", cwd=repo)
    assert forced.returncode == 0 and len(store_files(repo)) == 2


def test_bad_sources_get_a_clear_error_and_nothing_is_written(tmp_path, git_init):
    repo = git_init(tmp_path / "repo")
    missing = run_cli("import", "--from-claude-md", "NOPE.md", cwd=repo)
    assert missing.returncode == 1 and "cannot read NOPE.md" in missing.stderr
    (repo / "latin1.md").write_bytes("- caf\xe9 rules\n".encode("latin-1"))
    bad = run_cli("import", "--from-claude-md", "latin1.md", cwd=repo)
    assert bad.returncode == 1 and "is not UTF-8 text" in bad.stderr and "Traceback" not in bad.stderr
    (repo / "real.md").write_text("- a rule that is long enough\n", encoding="utf-8")
    os.symlink(repo / "real.md", repo / "link.md")
    linked = run_cli("import", "--from-claude-md", "link.md", cwd=repo)
    assert linked.returncode == 1 and "cannot read link.md" in linked.stderr
    both = run_cli("import", "x.jsonl", "--from-claude-md", "real.md", cwd=repo)
    assert both.returncode == 2
    assert not (repo / ".claude").exists()


# --- Claude Code's auto memory ------------------------------------------------------------------------

def write_auto_memory(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(
        "- [Integration tests hit a real database](feedback-real-db.md) \u2014 no mocks in integration tests\n"
        "- [Merge freeze](project-freeze.md) \u2014 begins 2026-03-05\n"
        "- [Who the user is](user-role.md) \u2014 data scientist\n", encoding="utf-8")
    (folder / "feedback-real-db.md").write_text(
        "---\nname: feedback-real-db\ndescription: Integration tests must hit a real database, not mocks\n"
        "metadata:\n  type: feedback\n---\n\nIntegration tests must hit a real database, not mocks.\n"
        "**Why:** a mocked test passed while the prod migration failed.\n"
        "**How to apply:** use the compose Postgres in tests/integration; see [[project-freeze]].\n",
        encoding="utf-8")
    (folder / "project-freeze.md").write_text(
        "---\nname: project-freeze\ndescription: Merge freeze for the mobile release begins 2026-03-05\n"
        "metadata:\n  type: project\n---\n\nNo non-critical merges after 2026-03-05 while mobile cuts the release.\n",
        encoding="utf-8")
    (folder / "user-role.md").write_text(
        "---\nname: user-role\ndescription: The user is a data scientist\nmetadata:\n  type: user\n---\n\n"
        "The user is a data scientist; explain frontend code in Python terms.\n", encoding="utf-8")


def test_auto_memory_is_found_where_the_client_keeps_it_and_imported(tmp_path, monkeypatch, git_init):
    repo = git_init(tmp_path / "my repo.v2")
    (repo / "sub").mkdir()
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    folder = config / "projects" / project_key(str(repo)) / "memory"
    assert project_key("/home/ana/src/my repo.v2_x") == "-home-ana-src-my-repo-v2-x"  # as the client names it
    assert Path(auto_memory_folder(str(repo))) == folder
    write_auto_memory(folder)

    out = run_cli("import", "--from-auto-memory", "--json", cwd=repo / "sub")  # from a subfolder: the repository's
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    titles = {m["record"]["title"] for m in report["memories"]}
    assert titles == {"Integration tests must hit a real database, not mocks",
                      "Merge freeze for the mobile release begins 2026-03-05"}  # index links and `user` left out
    assert any("type: user" in note for note in report["notes"])
    fact = next(m["record"] for m in report["memories"] if "database" in m["record"]["title"])
    assert fact["content"]["reason"] == "a mocked test passed while the prod migration failed."
    assert "[[" not in json.dumps(fact) and "data scientist" not in all_store_text(repo)
    assert run_cli("import", "--from-auto-memory", str(folder), cwd=repo).stdout.startswith(
        "imported 0 of 2 proposed memories (0 new, 0 replaced, 0 renamed, 2 already there")


def test_no_auto_memory_is_a_clear_error(tmp_path, monkeypatch, git_init):
    repo = git_init(tmp_path / "repo")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    out = run_cli("import", "--from-auto-memory", cwd=repo)
    assert out.returncode == 1 and "no auto memory at" in out.stderr and "projects" in out.stderr


def test_a_long_project_path_gets_the_clients_hash():
    # the client cuts a key over 200 characters and adds a 32-bit string hash in base 36 (computed here with the
    # client's own function for these paths)
    assert project_key("/tmp/a") == "-tmp-a"
    assert project_key("x" * 250) == "x" * 200 + "-mmfaww"


def test_the_readme_examples_run_as_printed(tmp_path, monkeypatch, git_init):
    from test_readme import section_commands
    commands = section_commands("Bringing in what the team already wrote")
    assert len(commands) == 4 and all(c.startswith("python3 scripts/memory.py import ") for c in commands)
    repo = git_init(tmp_path / "repo")
    (repo / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    (repo / ".claude" / "rules").mkdir(parents=True)
    (repo / ".claude" / "rules" / "testing.md").write_text("# Testing\n\n- Never mock the database in "
                                                            "integration tests.\n", encoding="utf-8")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    write_auto_memory(Path(auto_memory_folder(str(repo))))
    old = tmp_path / "home" / "src" / "old-project" / ".claude" / "memory" / "decisions"
    old.mkdir(parents=True)
    (old / "use-uv.json").write_text(json.dumps({"schema_version": "1.0", "title": "Use uv", "tags": ["uv"],
                                                 "created_at": "2026-01-01T00:00:00Z",
                                                 "updated_at": "2026-01-01T00:00:00Z", "content": {
                                                     "status": "accepted", "context": "c", "decision": "uv",
                                                     "rationale": ["fast"]}}), encoding="utf-8")
    for command in commands:
        args = [a.replace("~", str(tmp_path / "home")) for a in command.split()[2:]]
        out = run_cli(*args, cwd=repo)
        assert out.returncode == 0, (command, out.stderr)
    titles = {json.loads(p.read_text())["title"] for p in store_files(repo)}
    assert "Never mock the database in integration tests" in titles
    assert "Merge freeze for the mobile release begins 2026-03-05" in titles
    assert not any("Use uv" == t for t in titles)  # the last example is a dry run


RULES_ONE = """# Quality

- Keep end-to-end type-safety for every public module.
- Run the formatter before every commit.
"""
RULES_TWO = """# Python style

- Avoid `Any` annotations in function signatures.
- Prefer dataclasses over plain dicts for settings.
- Name fixtures after what they build.
"""


def test_a_second_rules_file_imports_all_its_distinct_rules_the_source_tag_shares_no_topic(tmp_path, git_init):
    """Every imported memory carries its source tag (``claude-md``); that tag says where a memory came from, so
    it counts toward no similarity: the second file's rules are not held back as like the first's, and the page
    flags no pair of them as duplicates (on the old code: held back as 'like the existing memory')."""
    repo = git_init(tmp_path / "repo")
    (repo / "ONE.md").write_text(RULES_ONE, encoding="utf-8")
    (repo / "TWO.md").write_text(RULES_TWO, encoding="utf-8")
    first = run_cli("import", "--from-claude-md", "ONE.md", "--json", cwd=repo)
    assert first.returncode == 0, first.stderr
    created_first = json.loads(first.stdout)["created"]
    second = run_cli("import", "--from-claude-md", "TWO.md", "--json", cwd=repo)
    assert second.returncode == 0, second.stderr
    report = json.loads(second.stdout)
    assert report["created"] == 3 and "like the existing memory" not in second.stdout, second.stdout
    assert len(store_files(repo)) == created_first + 3
    tags = [json.loads(p.read_text())["tags"] for p in store_files(repo)]
    assert all("claude-md" in t for t in tags)  # the tag is still there: it says where the memory came from
    similar = run_cli("similar", "--category", "constraint", "--title", "Unrelated words entirely",
                      "--tag", "claude-md", cwd=repo)
    assert "no similar memory" in similar.stdout, similar.stdout


PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
STAGING = "stagingkey9f8e7d6c"
LEAKY_MD = f"""# Deploys <private>{STAGING}heading</private>

- Use the staging key <private>{STAGING}</private> for tests.

## Tokens {PAT}

- Rotate the `{AWS_KEY}` key every quarter.
- Never commit `{PAT}` or any token.
"""


def test_ids_tags_and_file_names_come_from_the_scrubbed_text(tmp_path, git_init):
    """A private section or a secret in a heading, a bullet or backquotes reaches no id, no tag and no file
    name (on the old code the staging key and the AWS key became tags, ids and file names)."""
    repo = git_init(tmp_path / "repo")
    (repo / "CLAUDE.md").write_text(LEAKY_MD, encoding="utf-8")
    out = run_cli("import", "--from-claude-md", "CLAUDE.md", "--json", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["created"] >= 3
    names = " ".join(p.name for p in store_files(repo)).lower()
    stored = all_store_text(repo).lower()
    for secret in (STAGING, PAT, AWS_KEY):
        assert secret.lower() not in names and secret.lower() not in stored, secret
        assert secret.lower() not in (out.stdout + out.stderr).lower(), secret
    for path in store_files(repo):
        record = json.loads(path.read_text())
        assert record["id"] == path.stem and not any(s.lower() in record["id"] for s in ("stagingkey", "akia", "github"))


def test_an_imported_record_whose_id_spells_a_secret_gets_a_new_id(tmp_path, git_init):
    repo = git_init(tmp_path / "repo")
    record = {"category": "decision", "id": f"rotate-{AWS_KEY.lower()}", "title": "Rotate the deploy key quarterly",
              "tags": ["keys"], "content": {"status": "accepted", "context": "c", "decision": "d", "rationale": ["r"]}}
    (tmp_path / "in.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    out = run_cli("import", str(tmp_path / "in.jsonl"), cwd=repo)
    assert out.returncode == 0, out.stdout + out.stderr
    (path,) = store_files(repo)
    assert path.stem == "rotate-the-deploy-key-quarterly", path


@pytest.mark.slow  # a long check: TEAM_MEMORY_SLOW=1 and .ci/run
def test_import_reads_pathological_lines_in_linear_time(tmp_path, git_init):
    """A line of 400,000 ``[`` (one search per ``[`` on the old code: 67 s) and a bullet followed by a million
    lazy continuation lines (the piece copied once per line: 31 s) each import in a few seconds."""
    import time
    repo = git_init(tmp_path / "repo")
    (repo / "BRACKETS.md").write_text("- " + "[" * 400_000 + "\n", encoding="utf-8")
    (repo / "LINES.md").write_text("- start\n" + "x\n" * 999_000, encoding="utf-8")
    for name in ("BRACKETS.md", "LINES.md"):
        began = time.process_time()
        out = run_cli("import", "--from-claude-md", name, "--dry-run", cwd=repo)
        spent = time.process_time() - began
        assert out.returncode in (0, 1) and "Traceback" not in out.stderr, out.stderr
        assert spent < 8, (name, spent)


PROSE_MD = """# Contributing

## Pull requests

All changes need to:
- pass the full test suite,
- come with a clear issue description, or
- link an existing issue.

PR titles follow conventional commits: `fix:`, `docs:`, `chore:` and `feat:` prefixes.

See [the contributing guide](CONTRIBUTING.md).

- [Architecture notes](docs/arch.md)
- <https://example.com/handbook>

## Repository structure

- `src/` - the library
- `tests/` - the test suite
- `docs/` - the documentation

## Testing

- Build fixtures with `Model(id=None)` and `strict=False`; keep them in `tests/conftest.py`.
"""


def test_prose_keeps_a_lead_in_with_its_list_and_leaves_out_links_listings_and_code_tags(tmp_path, git_init):
    """What a real CLAUDE.md made on the old code: a lead-in cut from its items ("All changes need to", "come
    with a clear issue description, or"), memories that are only a link, one constraint per folder of a
    structure listing, and tags made from code (``idnone``, ``strictfalse``) and from commit prefixes
    (``fix``, ``docs``, ``chore``) that pulled a PR-title rule into any prompt starting with "fix"."""
    repo = git_init(tmp_path / "repo")
    (repo / "CLAUDE.md").write_text(PROSE_MD, encoding="utf-8")
    out = run_cli("import", "--from-claude-md", "CLAUDE.md", "--json", cwd=repo)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    records = [m["record"] for m in report["memories"]]
    by_title = {r["title"]: r for r in records}
    assert len(records) == 4, sorted(by_title)
    lead = by_title["All changes need to pass the full test suite"]
    assert lead["content"]["value"].endswith("- come with a clear issue description, or\n- link an existing issue.")
    assert not any(t.startswith(("pass ", "come with", "link an")) for t in by_title)
    assert not any("guide" in t.lower() or "architecture" in t.lower() or "http" in t for t in by_title)
    assert any("3 piece(s) that are only a link" in note for note in report["notes"])
    listing = by_title["Repository structure: src/, tests/, docs/"]
    assert all(f"`{name}/`" in listing["content"]["value"] for name in ("src", "tests", "docs"))
    pr_rule = next(r for r in records if "conventional commits" in r["title"])
    fixtures = next(r for r in records if "fixtures" in r["title"])
    assert not set(pr_rule["tags"]) & {"fix", "docs", "chore", "feat"}, pr_rule["tags"]
    assert not set(fixtures["tags"]) & {"idnone", "strictfalse", "id", "none", "false"}, fixtures["tags"]
    assert "conftest.py" in fixtures["tags"] and "src" in listing["tags"]  # a file or folder named in code: a tag
    assert all(r["tags"][-1] == "claude-md" for r in records)
    hook = run_prompt_hook(repo, "fix the flaky login test", session="s1").stdout.decode()
    assert "conventional commits" not in hook, hook


def test_a_long_led_list_and_a_long_listing_go_on_in_pieces_under_the_same_lead():
    items = "".join(f"- rule number {n} says to keep the {n}th module small and its tests beside it\n" for n in range(60))
    folders = "".join(f"- `pkg{n}/` - the {n}th package of the workspace, with its own tests\n" for n in range(60))
    pieces, _, _ = split_markdown(f"## Rules\n\nEvery change must follow:\n{items}\n## Layout\n\n{folders}")
    led = [p for p in pieces if p.headings == ["Rules"]]
    listed = [p for p in pieces if p.headings == ["Layout"]]
    for group, lead in ((led, "Every change must follow:"), (listed, "Layout:")):
        assert len(group) > 1 and all(p.text.startswith(lead + "\n- ") and len(p.text) <= 2_200 for p in group)
        assert sum(p.text.count("\n- ") for p in group) == 60  # every item kept, none twice


def test_every_piece_of_a_long_list_is_imported(tmp_path, git_init):
    """Each piece of a long led list or listing gets a title of its own, so none is taken for another."""
    repo = git_init(tmp_path / "repo")
    items = "".join(f"- rule number {n} says to keep the {n}th module small and its tests beside it\n" for n in range(60))
    folders = "".join(f"- `pkg{n}/` - the {n}th package of the workspace, with its own tests\n" for n in range(60))
    (repo / "CLAUDE.md").write_text(f"## Rules\n\nEvery change must follow:\n{items}\n## Layout\n\n{folders}",
                                    encoding="utf-8")
    out = run_cli("import", "--from-claude-md", "CLAUDE.md", "--json", cwd=repo)
    assert out.returncode == 0, out.stderr
    stored = all_store_text(repo)
    assert all(f"rule number {n} says" in stored and f"pkg{n}/" in stored for n in range(60))
    titles = [json.loads(p.read_text())["title"] for p in store_files(repo)]
    assert len(set(titles)) == len(titles) == json.loads(out.stdout)["created"] >= 4, titles
    assert any(t.startswith("Layout: pkg0/, pkg1/, pkg2/") for t in titles), titles  # a listing names its folders
