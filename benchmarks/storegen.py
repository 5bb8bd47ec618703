"""Realistic synthetic team-memory stores for the benchmark (standard library only).

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
import random
from datetime import datetime, timedelta, timezone

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
