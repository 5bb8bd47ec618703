"""Stores the ``view`` tests build: the demo store in git, and a hostile one (private sections, secrets,
markup in a title, a retired memory, a stale one, an invalid file and a broken one) in a real git repository."""
from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

from helpers import copy_of, record, write

HOSTILE_TITLE = "<img src=x onerror=\"document.title='pwned'\"></script><script>document.title='pwned2'</script> & co"
SECRETS = ("AKIAQWERTYUIOPASDFGH", "ghp_" + "a1B2" * 9, "hunter2secret", "db7.corp.internal", "SECRETVALUE43")
BAD_TAG = "Not Clean BADTAGVALUE"  # an invalid tag: the problem names tags[0], never this value
AUTHOR = "Ana & \"Example\" " + SECRETS[1]
CJK_TITLE = "キャッシュの有効期限は五分"


def _when(days_ago: float) -> str:
    return (datetime.now(timezone.utc) - timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")


def git(cwd, *args, days_ago: float | None = None, author: str = "Dev") -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME=author, GIT_AUTHOR_EMAIL="dev@example.com", GIT_COMMITTER_NAME=author,
               GIT_COMMITTER_EMAIL="dev@example.com")
    if days_ago is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = _when(days_ago)
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


def commit_all(cwd, message: str, days_ago: float, author: str = "Dev") -> None:
    git(cwd, "add", "-A")
    git(cwd, "commit", "-q", "-m", message, days_ago=days_ago, author=author)


def demo_project(tmp_path: Path) -> Path:
    """``demo --keep``'s store, committed to a new repository: a copy (every file its own) of one built once a
    session per worker, beside the test folders (``demo`` runs the real hook as a process, then three gits)."""
    template = tmp_path.parent / "view-demo-template"
    if not (template / ".git").is_dir():
        from team_memory.cli.main import main
        assert main(["demo", "--keep", str(template), "--prompt", "x"]) == 0
        git(template, "init", "-q", "-b", "main")
        commit_all(template, "the team's memories", days_ago=3, author="Ana Example")
    return copy_of(template, tmp_path, "demo")


def hostile_project(tmp_path: Path) -> Path:
    """A repository whose store holds everything a page must not show raw, plus one stale memory."""
    project = tmp_path / "hostile"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    store = project / ".claude" / "memory"
    (project / "app").mkdir()
    (project / "app" / "session.py").write_text("SESSIONS = 'redis'\n")
    write(store, record("decision", "use-redis-for-sessions", "Use Redis for user sessions", tags=["redis", "sessions"],
                        days_ago=10, related_files=["app/session.py"]))
    write(store, record("decision", "hostile-title", HOSTILE_TITLE, tags=["markup"], days_ago=20))
    rb = record("runbook", "rotate-keys", "Rotate the deploy keys", tags=["deploy", "keys"], days_ago=30)
    rb["content"] = {"trigger": "a key leaked <private>the old host is db7.corp.internal</private>",
                     "steps": [f"revoke {SECRETS[0]}", f"replace the token {SECRETS[1]}", f"password={SECRETS[2]}"],
                     "verification": "the deploy works"}
    write(store, rb)
    write(store, record("preference", "prefer-tabs", "Prefer tabs in Makefiles", tags=["make"], days_ago=40,
                        record_status="retired", retired_at=_when(5), retired_reason="we use just now"))
    old = record("decision", "use-memcached", "Use memcached for sessions", tags=["memcached"], days_ago=400)
    old["content"]["status"] = "superseded"
    write(store, old)
    write(store, record("constraint", "cache-ttl", CJK_TITLE, tags=["cache"], days_ago=50))
    bad = record("tech_debt", "bad-tags", "A memory with a bad tag", tags=[BAD_TAG], days_ago=60)
    write(store, bad)
    (store / "tech-debt" / "broken.json").write_text('{"title": "' + SECRETS[4] + '", oops', encoding="utf-8")
    commit_all(project, "memories and code", days_ago=9, author=AUTHOR)
    (project / "app" / "session.py").write_text("SESSIONS = 'postgres'\n")
    commit_all(project, "sessions move to postgres", days_ago=2, author="Bo")
    ttl = store / "constraints" / "cache-ttl.json"
    ttl.write_text(ttl.read_text().replace('"rule": "r"', '"rule": "five minutes"'))
    commit_all(project, "the cache rule, in words", days_ago=1, author="Cy")
    return project


def page_data(html: str) -> dict:
    """The JSON data block of a page."""
    start = html.index('<script type="application/json" id="tm-data">') + len('<script type="application/json" id="tm-data">')
    return json.loads(html[start:html.index("</script>", start)])
