"""What every benchmark shares: generated stores, hooks run as ``hooks.json`` says, timed child processes.

``make_store(project, n, seed)`` writes ``n`` memory files under ``<project>/.claude/memory``:
six categories in realistic proportions, titles and tags drawn from a software vocabulary
(with a few German, French, Spanish, Japanese and Chinese titles), dates spread over two
years, about 5% retired or archived, and category-specific content so files have real sizes.
Most titles also name a specific thing, as real ones do (``billing_export``, ``InvoiceRetry``,
``orders-redis``): without such rarer words every word would be common to the whole store,
and a strategy that weighs words by rarity would rightly match nothing.
"""
from __future__ import annotations

import json
import os
import platform
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PY = sys.executable
CLI = os.path.join(REPO, "scripts", "memory.py")
MATCH = "how do we fix the redis cache timeout in the celery workers after the upgrade?"

FOLDERS = {"session_summary": "sessions", "decision": "decisions", "runbook": "runbooks",
           "constraint": "constraints", "tech_debt": "tech-debt", "preference": "preferences"}
SESSIONS_KEPT = 5  # categories.session_summary.max_retained, default
WEIGHTS = {"decision": 25, "runbook": 20, "session_summary": 20, "tech_debt": 15, "constraint": 10, "preference": 10}

TECH = ("postgres redis kafka celery django flask fastapi pydantic sqlalchemy alembic docker kubernetes helm "
        "terraform nginx gunicorn uvicorn pytest mypy ruff black webpack vite react typescript graphql grpc "
        "s3 lambda cloudfront oauth jwt saml ldap stripe sentry prometheus grafana opentelemetry elasticsearch "
        "rabbitmq memcached sqlite mongodb dynamodb airflow spark pandas numpy openapi swagger github gitlab "
        "jenkins argo vault consul envoy istio cron websocket http2 tls cors csrf i18n unicode").split()
NOUNS = ("cache session queue worker migration schema index deploy rollback timeout retry pool connection "
         "token secret config feature flag endpoint pagination rate limit quota backup replica shard tenant "
         "billing invoice webhook audit log metric alert dashboard build pipeline release branch test fixture "
         "mock coverage lint format import error exception crash leak latency throughput upload download "
         "search filter sort export report email notification permission role user account password").split()
VERBS = ("use prefer avoid fix migrate upgrade pin split merge cache retry batch shard rotate encrypt validate "
         "document monitor throttle paginate debounce refactor replace remove deprecate enable disable").split()
ADJ = "async sync nightly flaky slow stale legacy new shared internal public private read-only idempotent".split()
FOREIGN = [
    "Datenbank-Migrationen immer rückwärtskompatibel halten", "Zeitüberschreitung beim Export beheben",
    "Préférer les fixtures pytest aux mocks", "Sauvegarde nocturne de la base de données",
    "Usar colas para los correos de notificación", "Reintentos con retroceso exponencial en webhooks",
    "デプロイ前にマイグレーションを確認する", "キャッシュの有効期限は五分", "使用连接池访问数据库", "日志中不要记录密码",
]
TEMPLATES = [
    "{verb} {tech} for {noun}", "{tech} {noun} {noun2} policy", "{adj} {tech} {noun} after upgrade",
    "Fix {tech} {noun} error in {noun2}", "{verb} the {adj} {noun} in {tech}", "{tech} and {tech2} {noun} limits",
    "How we {verb} {noun} with {tech}", "{noun} {noun2} for {tech} workers", "Never {verb} {noun} in {tech2}",
]


def _name(rng: random.Random) -> str:
    """A module, service or class name: ``invoice_export``, ``InvoiceExport``, ``invoice-redis``."""
    a, b = rng.choice(NOUNS), rng.choice(NOUNS + TECH)
    form = rng.random()
    if form < 0.4:
        return f"{a}_{b}"
    if form < 0.7:
        return a.capitalize() + b.capitalize()
    return f"{a}-{b}"


def _title(rng: random.Random) -> str:
    if rng.random() < 0.02:
        return rng.choice(FOREIGN)
    t = rng.choice(TEMPLATES).format(verb=rng.choice(VERBS), tech=rng.choice(TECH), tech2=rng.choice(TECH),
                                     noun=rng.choice(NOUNS), noun2=rng.choice(NOUNS), adj=rng.choice(ADJ))
    if rng.random() < 0.6:
        t += f" ({_name(rng)})"
    return t[0].upper() + t[1:]


def _sentence(rng: random.Random, words: int = 12) -> str:
    pool = TECH + NOUNS + VERBS + ADJ
    return " ".join(rng.choice(pool) for _ in range(words)).capitalize() + "."


def _content(rng: random.Random, category: str) -> dict:
    s = lambda n=12: _sentence(rng, n)  # noqa: E731
    if category == "decision":
        return {"status": rng.choice(["accepted", "accepted", "proposed", "superseded"]), "context": s(20),
                "decision": s(15), "rationale": [s(), s()], "alternatives": [{"option": s(5), "rejected_reason": s(8)}]}
    if category == "runbook":
        return {"trigger": s(10), "steps": [s(8) for _ in range(rng.randint(2, 6))], "verification": s(8),
                "symptoms": [s(6)], "root_cause": s(10)}
    if category == "constraint":
        return {"kind": rng.choice(["limitation", "gap", "policy", "technical"]), "rule": s(14), "impact": [s(8)],
                "severity": rng.choice(["high", "medium", "low"]), "active": True}
    if category == "tech_debt":
        return {"status": rng.choice(["open", "in_progress"]), "priority": rng.choice(["critical", "high", "medium", "low"]),
                "description": s(20), "reason_deferred": s(10), "suggested_fix": [s(8)]}
    if category == "preference":
        return {"topic": s(3), "value": s(8), "reason": s(12), "strength": rng.choice(["strong", "default", "soft"])}
    return {"goal": s(10), "outcome": rng.choice(["success", "partial", "blocked"]), "completed": [s(8), s(8)],
            "next_actions": [s(8)], "key_changes": [s(6)]}


def make_record(rng: random.Random, i: int, now: datetime, sessions: bool = True) -> dict:
    kinds = [k for k in WEIGHTS if sessions or k != "session_summary"]
    category = rng.choices(kinds, weights=[WEIGHTS[k] for k in kinds])[0]
    title = _title(rng)
    updated = now - timedelta(days=rng.uniform(0, 730))
    created = updated - timedelta(days=rng.uniform(0, 60))
    tags = sorted({rng.choice(TECH + NOUNS) for _ in range(rng.randint(1, 5))})
    rec = {"schema_version": "1.0", "category": category, "id": f"m{i:06d}-{rng.randrange(16**6):06x}",
           "title": title, "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
           "updated_at": updated.strftime("%Y-%m-%dT%H:%M:%SZ"), "tags": tags,
           "record_status": "active", "content": _content(rng, category)}
    roll = rng.random()
    if roll < 0.03:
        rec.update(record_status="retired", retired_at=rec["updated_at"], retired_reason="superseded")
    elif roll < 0.05:
        rec.update(record_status="archived", archived_at=rec["updated_at"], archived_reason="old")
    return rec


def write_record(memory_root: str, rec: dict) -> str:
    folder = os.path.join(memory_root, FOLDERS[rec["category"]])
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, rec["id"] + ".json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(rec, indent=2, ensure_ascii=False) + "\n")
    return path


def make_store(project: str, n: int, seed: int = 7) -> str:
    """Write a store of ``n`` memories under ``project``; return its memory root."""
    rng = random.Random(seed)
    memory_root = os.path.join(project, ".claude", "memory")
    os.makedirs(os.path.join(project, ".git"), exist_ok=True)
    os.makedirs(memory_root, exist_ok=True)
    now = datetime.now(timezone.utc)
    sessions = 0
    for i in range(n):
        # as team-memory keeps them: a handful of session summaries (max_retained), the rest other kinds
        rec = make_record(rng, i, now, sessions=sessions < SESSIONS_KEPT)
        sessions += rec["category"] == "session_summary"
        write_record(memory_root, rec)
    return memory_root


def machine() -> str:
    return f"machine: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()} ({PY})"


@contextmanager
def scratch(keep=None, prefix: str = "team-memory-bench-"):
    """``keep`` when given (left in place), else a temporary folder removed afterwards."""
    workdir = keep or tempfile.mkdtemp(prefix=prefix)
    try:
        yield workdir
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


def git(cwd: str, *args: str, date=None, author: str = "Bench") -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME=author, GIT_AUTHOR_EMAIL="bench@example.com", GIT_COMMITTER_NAME="Bench",
               GIT_COMMITTER_EMAIL="bench@example.com")
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def hook_argv(event: str = "UserPromptSubmit", runtime: str = REPO) -> list:
    """The hook's argv from ``runtime``'s hooks.json, ``${CLAUDE_PLUGIN_ROOT}`` filled in (no extra shell)."""
    with open(os.path.join(runtime, "hooks.json"), encoding="utf-8") as f:
        command = json.load(f)["hooks"][event][0]["hooks"][0]["command"]
    command = command.split(" || ")[0]  # the chain's first interpreter: what runs where python3 exists
    argv = shlex.split(command.replace("${CLAUDE_PLUGIN_ROOT}", runtime))
    return [PY if a == "python3" else a for a in argv]


def runtime_copy(checkout: str, dest: str) -> str:
    """A checkout's runtime without any ``__pycache__`` (Python reads one it finds even when it may not write)."""
    for item in ("hooks", "scripts", "templates", "hooks.json"):
        src = os.path.join(checkout, item)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dest, item), ignore=shutil.ignore_patterns("__pycache__"))
        elif os.path.exists(src):
            shutil.copy(src, os.path.join(dest, item))
    return dest


def run_wait4(argv, stdin: bytes = b"", cwd=None, env=None):
    """``(wall seconds, peak MB, exit code, CPU seconds)`` of one child, reaped with ``os.wait4``."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd,
                            env=env)
    if stdin:
        try:
            proc.stdin.write(stdin)
        except BrokenPipeError:
            pass
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    return elapsed, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime


def percentile(values, q):
    values = sorted(values)
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def answers(project: str, prompt: str) -> bool:
    proc = subprocess.run([PY, CLI, "search", prompt, "--root", project, "--json"], capture_output=True)
    return proc.returncode == 0 and bool(json.loads(proc.stdout or b"[]"))


def match_prompt(project: str, memory_root: str, rng: random.Random, first: str = MATCH) -> str:
    """``first`` when the store answers it, else a prompt naming a stored title.

    The default strategy weighs words by rarity and stays silent below a floor; in a
    generated store every word is common, so a fixed prompt may rightly match nothing.
    """
    if answers(project, first):
        return first
    with open(os.path.join(memory_root, "index.md"), encoding="utf-8") as f:
        lines = [line for line in f if line.startswith("- [")]
    for line in rng.sample(lines, min(len(lines), 50)):
        prompt = f"how do we handle the {line.split('] ', 1)[1].split(' -> ', 1)[0].lower()} question again?"
        if answers(project, prompt):
            return prompt
    raise SystemExit("no prompt found that the store answers")


def transcript_line(role: str, text: str) -> str:
    content = [{"type": "text", "text": text}]
    return json.dumps({"type": role, "message": {"role": role, "content": content}, "sessionId": "bench"}) + "\n"


def transcript(path: str):
    """Write a 20-turn transcript at ``path``; return the setup that adds a turn before each Stop run."""
    with open(path, "w", encoding="utf-8") as f:
        for i in range(20):
            f.write(transcript_line("user", f"can you look at the failing export test {i}?"))
            f.write(transcript_line("assistant", f"The export test {i} failed on a timeout."))

    def grow():
        with open(path, "a", encoding="utf-8") as f:
            f.write(transcript_line("user", "and the retry step, does it still time out?"))
            f.write(transcript_line("assistant", "It passes now. We decided to keep the retries at three because "
                                                 "the partner API rate-limits us."))
    return grow
