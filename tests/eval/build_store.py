#!/usr/bin/env python3
"""Build the team-memory retrieval evaluation store.

The store describes "Harbor", an imaginary B2B logistics SaaS team.  Every
memory below is hand-written; the helpers only fill in boilerplate (schema
version, timestamps, folder layout).  Output is deterministic.

Usage:
    python3 tests/eval/build_store.py          # (re)write tests/eval/store/.claude/memory/
    python3 tests/eval/build_store.py --check  # validate store + prompts.jsonl, print counts
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
MEMORY_DIR = HERE / "store" / ".claude" / "memory"
PROMPTS = HERE / "prompts.jsonl"
META = HERE / "meta.json"

FOLDERS = {
    "session_summary": "sessions",
    "decision": "decisions",
    "runbook": "runbooks",
    "constraint": "constraints",
    "tech_debt": "tech-debt",
    "preference": "preferences",
}

MEMORIES: list[dict] = []


def _stamp(day: str, key: str, min_after: str | None = None) -> str:
    """Turn 'YYYY-MM-DD' into a deterministic ISO timestamp (UTC).

    The time of day is derived from a hash of `key` so the output is stable.
    If `min_after` is given and would be later, the stamp is moved after it.
    """
    if "T" in day:
        return day
    h = int(hashlib.sha256(key.encode()).hexdigest(), 16)
    hour = h % 11  # 00..10 UTC: Seoul/Tokyo afternoon, Europe morning
    minute = (h // 11) % 60
    dt = datetime.strptime(day, "%Y-%m-%d").replace(hour=hour, minute=minute, tzinfo=timezone.utc)
    if min_after:
        floor = datetime.strptime(min_after, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        if dt < floor:
            dt = floor + timedelta(minutes=17 + h % 90)
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def _split(s):
    if s is None:
        return None
    if isinstance(s, str):
        return s.split()
    return list(s)


def add(category, id, title, date, tags, content, *, upd=None, files=None, conf=None,
        status="active", when=None, why=None, changes=None):
    created = _stamp(date, id + ":c")
    rec = {
        "schema_version": "1.0",
        "category": category,
        "id": id,
        "title": title,
        "created_at": created,
        "updated_at": _stamp(upd, id + ":u", created) if upd else created,
    }
    rec["tags"] = _split(tags)
    if files:
        rec["related_files"] = _split(files)
    if conf is not None:
        rec["confidence"] = conf
    rec["record_status"] = status
    rec["content"] = content
    if status == "retired":
        rec["retired_at"] = _stamp(when, id + ":r", rec["updated_at"])
        rec["retired_reason"] = why
    elif status == "archived":
        rec["archived_at"] = _stamp(when, id + ":a", rec["updated_at"])
        rec["archived_reason"] = why
    if changes:
        rec["times_updated"] = len(changes)
        rec["changes"] = [{"date": _stamp(d, id + ":ch" + d), "summary": s} for d, s in changes]
    MEMORIES.append(rec)
    return rec


def dec(id, title, date, tags, context, decision, rationale, alts=None, cons=None,
        st="accepted", **kw):
    c = {"status": st, "context": context, "decision": decision, "rationale": list(rationale)}
    if alts:
        c["alternatives"] = [{"option": o, "rejected_reason": r} for o, r in alts]
    if cons:
        c["consequences"] = list(cons)
    return add("decision", id, title, date, tags, c, **kw)


def rb(id, title, date, tags, trigger, steps, verification, symptoms=None, root_cause=None,
       env=None, **kw):
    c = {"trigger": trigger, "steps": list(steps), "verification": verification}
    if symptoms:
        c["symptoms"] = list(symptoms)
    if root_cause:
        c["root_cause"] = root_cause
    if env:
        c["environment"] = env
    return add("runbook", id, title, date, tags, c, **kw)


def con(id, title, date, tags, kind, rule, impact, severity, active=True, workarounds=None,
        expires=None, **kw):
    c = {"kind": kind, "rule": rule, "impact": list(impact), "severity": severity, "active": active}
    if workarounds:
        c["workarounds"] = list(workarounds)
    if expires:
        c["expires"] = expires
    return add("constraint", id, title, date, tags, c, **kw)


def td(id, title, date, tags, st, prio, description, deferred, impact=None, fix=None, ac=None, **kw):
    c = {"status": st, "priority": prio, "description": description, "reason_deferred": deferred}
    if impact:
        c["impact"] = list(impact)
    if fix:
        c["suggested_fix"] = list(fix)
    if ac:
        c["acceptance_criteria"] = list(ac)
    return add("tech_debt", id, title, date, tags, c, **kw)


def pref(id, title, date, tags, topic, value, reason, strength="default", prefer=None, avoid=None, **kw):
    c = {"topic": topic, "value": value, "reason": reason, "strength": strength}
    if prefer or avoid:
        c["examples"] = {"prefer": list(prefer or []), "avoid": list(avoid or [])}
    return add("preference", id, title, date, tags, c, **kw)


def ses(id, title, date, tags, goal, outcome, completed, next_actions, in_progress=None,
        blockers=None, key_changes=None, **kw):
    c = {"goal": goal, "outcome": outcome, "completed": list(completed), "next_actions": list(next_actions)}
    if in_progress:
        c["in_progress"] = list(in_progress)
    if blockers:
        c["blockers"] = list(blockers)
    if key_changes:
        c["key_changes"] = list(key_changes)
    return add("session_summary", id, title, date, tags, c, **kw)


# ---------------------------------------------------------------------------
# Decisions
# ---------------------------------------------------------------------------

dec("use-alembic-autogenerate-with-review", "Use Alembic autogenerate only with manual review", "2024-02-12",
    "alembic migrations postgres sqlalchemy code-review",
    "Autogenerated Alembic revisions twice dropped and recreated an index on shipments instead of renaming it, and once missed a server_default change.",
    "Developers may run `alembic revision --autogenerate`, but every generated file must be read and edited by hand before the PR; reviewers check upgrade() and downgrade() line by line.",
    ["Autogenerate does not detect renames, enum value changes or server_default changes reliably.",
     "A dropped index on shipments (40M rows) caused a 20-minute outage in staging."],
    alts=[("Ban autogenerate entirely", "Too slow for simple column additions; the diff is a useful starting point."),
          ("Trust autogenerate and rely on CI", "CI runs against an empty database and cannot see the lock/rewrite cost.")],
    cons=["Migration PRs need a reviewer from the platform group.", "The PR template has a 'migration reviewed by hand' checkbox."],
    files="backend/migrations/env.py backend/alembic.ini .github/pull_request_template.md", conf=0.95,
    upd="2025-06-01", changes=[("2025-06-01", "Added enum changes to the list of things autogenerate misses.")])

dec("expand-contract-migrations", "Zero-downtime schema changes use expand/contract", "2024-03-05",
    "migrations zero-downtime postgres deploys alembic",
    "Rolling deploys on EKS mean old and new pods run side by side for several minutes, so a migration that renames or drops a column breaks the pods still on the previous release.",
    "Every breaking schema change is split in two releases: expand (add new column/table, dual-write) and, one release later, contract (drop the old column once nothing reads it).",
    ["Keeps the previous release working during a rollout and during a helm rollback.",
     "Makes rollbacks safe without down-migrations."],
    alts=[("Maintenance windows", "Customers in APAC and US make any window painful; SLA is 99.9%.")],
    cons=["Renames take two release trains.", "Temporary dual-write code must be tracked and deleted."],
    files="backend/migrations/versions docs/engineering/migrations.md", conf=0.9)

dec("backfills-as-celery-tasks", "Run data backfills as Celery tasks, not inside Alembic migrations", "2024-06-18",
    "migrations backfill celery alembic data-migration",
    "A migration that backfilled `shipments.normalized_ref` in one UPDATE held a lock for 11 minutes and blocked the deploy pipeline.",
    "Alembic migrations only change schema. Data backfills are written as idempotent Celery tasks in `harbor.maintenance.backfills` that process batches of 1,000 rows and can be resumed.",
    ["Long UPDATEs inside a migration hold locks and block the deploy.",
     "Batch tasks can be throttled, paused and retried."],
    cons=["Each backfill needs a management command `python -m harbor.maintenance run-backfill <name>`.",
          "Code must tolerate NULLs until the backfill is finished."],
    files="backend/harbor/maintenance/backfills.py", conf=0.9)

dec("uuidv7-primary-keys", "Use UUIDv7 primary keys for new tables", "2026-01-20",
    "postgres uuid primary-keys schema sqlalchemy",
    "Random UUIDv4 keys on tracking_events caused index bloat and poor insert locality; bigint ids leaked business volume to customers through the API.",
    "New tables use UUIDv7 primary keys generated in Python (`harbor.db.ids.uuid7()`); existing tables keep their keys.",
    ["Time-ordered keys give B-tree locality similar to bigint.", "Ids are safe to expose publicly."],
    alts=[("bigint identity", "Leaks volume and complicates merging tenant data."),
          ("ULID stored as text", "Bigger index and no native type.")],
    files="backend/harbor/db/ids.py", conf=0.85)

dec("timestamptz-everywhere", "Store all timestamps as timestamptz in UTC", "2024-01-16",
    "postgres timezone datetime timestamptz utc",
    "Warehouses in Korea, Japan, Germany and the US wrote local times into `timestamp without time zone` columns and ETAs were off by 9 hours.",
    "All datetime columns are `timestamptz`; application code uses timezone-aware datetimes in UTC and converts to the site's IANA zone only at the edges (API serialization, PDFs, UI).",
    ["One unambiguous representation.", "Postgres handles DST and comparisons correctly."],
    cons=["Naive datetimes are rejected by a SQLAlchemy type decorator (`AwareDateTime`)."],
    files="backend/harbor/db/types.py", conf=0.95)

dec("money-as-integer-minor-units", "Store money as integer minor units with a currency code", "2024-02-27",
    "billing money currency postgres stripe",
    "Float rounding produced 1-cent mismatches between our invoices and Stripe, and JPY/KRW have no minor unit while USD/EUR have two.",
    "Amounts are stored as bigint minor units plus an ISO 4217 currency column and handled in Python with `harbor.billing.money.Money`; never float or Decimal in the DB layer.",
    ["Matches Stripe's representation exactly.", "Zero-decimal currencies (JPY, KRW) handled by a currency exponent table."],
    alts=[("numeric(12,2)", "Wrong for JPY/KRW and still tempts people to use floats in Python.")],
    files="backend/harbor/billing/money.py", conf=0.95)

dec("single-redis-for-cache-and-broker", "Use one ElastiCache Redis for both cache and Celery broker", "2024-01-30",
    "redis elasticache celery cache broker",
    "Early on we had little traffic and wanted to keep AWS costs down.",
    "A single ElastiCache Redis (cache.t3.medium) serves application caching and the Celery broker/result backend.",
    ["Cheapest option.", "One thing to operate."],
    st="superseded", status="retired", when="2025-03-10",
    why="Superseded by separate-redis-cache-and-broker after cache evictions dropped Celery messages.", conf=0.6)

dec("separate-redis-cache-and-broker", "Split Redis: separate clusters for cache and Celery broker", "2025-03-10",
    "redis elasticache celery cache broker maxmemory-policy",
    "With one Redis, `allkeys-lru` eviction for the cache also evicted Celery queue keys; label-generation tasks silently disappeared during the March peak.",
    "Run two ElastiCache clusters: `harbor-cache` (allkeys-lru, may lose data) and `harbor-broker` (noeviction, Multi-AZ). Celery settings point to `REDIS_BROKER_URL`, the cache client to `REDIS_CACHE_URL`.",
    ["Cache and queue need opposite eviction policies.", "Broker incidents no longer follow cache traffic spikes."],
    cons=["Two sets of Terraform modules and alarms.", "Local docker-compose runs two redis containers."],
    files="infra/terraform/modules/elasticache/main.tf backend/harbor/settings.py docker-compose.yml", conf=0.95,
    upd="2026-10-12", changes=[("2026-10-12", "Broker cluster: added a Datadog monitor on key count after the chord-results OOM incident.")])

dec("cache-ttl-policy", "Cache TTLs: 5 minutes for rate quotes, 24 hours for carrier metadata", "2025-04-08",
    "redis cache ttl rate-quotes carriers expiry",
    "Carrier rate quotes change during the day while carrier service lists and zones almost never change; we had TTLs chosen ad hoc per call site.",
    "Central TTL table in `harbor.cache.ttl`: rate quotes 300s, carrier metadata 86400s, tenant settings 60s, feature flags are never cached by us. Every `cache.set` must pass a named TTL from that table.",
    ["Quotes older than 5 minutes were rejected by two carriers at booking time.", "One place to tune expiry."],
    cons=["Keys without TTL are flagged by a lint rule in CI."],
    files="backend/harbor/cache/ttl.py", conf=0.9,
    upd="2026-10-14", changes=[("2026-10-14", "Added jitter of +/-10% to avoid synchronized expiry of quote keys.")])

dec("jwt-short-lived-access-tokens", "Short-lived JWT access tokens (15 min) with refresh token rotation", "2024-04-02",
    "auth jwt tokens oauth refresh-token security",
    "The original web sessions used 30-day opaque tokens, which made revocation after an offboarding slow and risky.",
    "harbor-auth issues RS256 JWT access tokens valid for 15 minutes and opaque refresh tokens that rotate on every use; reuse of an old refresh token revokes the whole token family.",
    ["Limits blast radius of a leaked access token.", "Reuse detection catches stolen refresh tokens."],
    alts=[("Long-lived opaque tokens with introspection", "Adds a network hop per request to every service.")],
    cons=["Mobile app must handle silent refresh.", "Clock skew tolerance is 60 seconds."],
    files="services/auth/harbor_auth/tokens.py", conf=0.9)

dec("authlib-for-oauth2-server", "Build the OAuth2/OIDC server on Authlib", "2024-03-19",
    "auth oauth2 oidc authlib authentication",
    "We needed authorization code + PKCE for the SPA and mobile app and client credentials for customer integrations.",
    "harbor-auth implements OAuth2/OIDC with Authlib's `AuthorizationServer` and our own SQLAlchemy models; no hosted identity provider for our own users.",
    ["Auth0 pricing at our MAU count was too high.", "Authlib is mature and supports PKCE, client credentials and JWKS."],
    alts=[("Auth0", "Cost and data residency for Korean customers."), ("Keycloak", "Heavy JVM service to operate.")],
    files="services/auth/harbor_auth/server.py", conf=0.85)

dec("saml-sso-per-tenant", "Enterprise SSO via SAML with one connection per tenant (python3-saml)", "2024-08-06",
    "auth saml sso enterprise okta azure-ad python3-saml",
    "Enterprise shippers require SSO with their IdP (mostly Okta and Azure AD) before signing.",
    "harbor-auth supports SP-initiated SAML 2.0 via python3-saml; each tenant has at most one SAML connection stored in `saml_connections` with IdP metadata XML and an attribute mapping.",
    ["Covers 95% of enterprise requests.", "IdP-initiated flows are disabled to avoid replay risks."],
    cons=["Tenants wanting several IdPs need a support ticket.", "Certificates expire and must be monitored."],
    files="services/auth/harbor_auth/saml/ services/auth/harbor_auth/models.py", conf=0.9)

dec("api-keys-hashed-with-prefix", "Customer API keys are hashed at rest and carry an `hbr_live_` / `hbr_test_` prefix", "2024-05-14",
    "auth api-keys security secrets-scanning",
    "Customers integrate with client credentials or API keys; support needed to tell live and sandbox keys apart and GitHub secret scanning needed a recognizable pattern.",
    "API keys are `hbr_live_` or `hbr_test_` + 32 random base62 chars; only a SHA-256 hash and the last 4 characters are stored. Keys are shown once at creation.",
    ["Leaked keys are detectable by secret-scanning partners.", "DB leak does not reveal usable keys."],
    files="services/auth/harbor_auth/api_keys.py", conf=0.9)

dec("scim-okta-azure-only", "Support SCIM 2.0 provisioning only for Okta and Azure AD", "2026-03-26",
    "auth scim provisioning okta azure-ad enterprise",
    "Three enterprise customers asked for automated user provisioning; implementing the whole SCIM spec for every IdP quirk is expensive.",
    "We implement the SCIM 2.0 Users and Groups endpoints tested against Okta and Azure AD only; other IdPs are 'best effort'.",
    ["Those two IdPs cover all current enterprise tenants.", "Each IdP has different PATCH semantics that need tests."],
    files="services/auth/harbor_auth/scim/", conf=0.8)

dec("tanstack-query-for-server-state", "TanStack Query for server state, Zustand for client state", "2024-07-23",
    "web react tanstack-query react-query zustand state-management typescript",
    "The web app's Redux store cached API responses by hand and was full of stale-data bugs and boilerplate.",
    "Server data is fetched and cached only through TanStack Query hooks (`useShipmentsQuery`, `useQueryClient`); UI-only state lives in small Zustand stores. No new Redux slices.",
    ["Built-in caching, invalidation and retries.", "Far less boilerplate than Redux Toolkit slices."],
    alts=[("Redux Toolkit + RTK Query", "Would keep the big global store alive."), ("SWR", "Weaker mutation and invalidation story.")],
    cons=["Existing Redux slices are migrated opportunistically (see tech debt)."],
    files="web/src/lib/queryClient.ts web/src/stores/", conf=0.9)

dec("redux-toolkit-global-state", "Use Redux Toolkit for all web app state", "2024-01-10",
    "web react redux state-management",
    "Initial web app scaffolding in January 2024.",
    "All state, including API responses, goes through Redux Toolkit slices.",
    ["Team familiarity."],
    st="superseded", status="retired", when="2024-07-23",
    why="Replaced by tanstack-query-for-server-state.", conf=0.5)

dec("vite-over-create-react-app", "Migrate the web app from Create React App to Vite", "2024-05-07",
    "web vite cra build tooling typescript",
    "CRA is unmaintained, dev server cold start took 70s and the production build 6 minutes in CI.",
    "The web app builds with Vite 5 and runs tests with Vitest; environment variables use the `VITE_` prefix.",
    ["Dev server starts in 2s.", "CRA is effectively abandoned."],
    cons=["`process.env.REACT_APP_*` references had to be renamed to `import.meta.env.VITE_*`."],
    files="web/vite.config.ts web/package.json", conf=0.95)

dec("generate-ts-client-from-openapi", "Generate the TypeScript API client and zod schemas from the FastAPI OpenAPI spec", "2024-09-17",
    "web openapi typescript zod orval codegen fastapi",
    "Hand-written fetch wrappers drifted from the backend, and type errors showed up only in production.",
    "`npm run gen:api` runs orval against `backend/openapi.json` and writes TanStack Query hooks and zod schemas to `web/src/api/generated/`; CI fails if the generated output is stale.",
    ["Single source of truth for request/response shapes.", "Breaking backend changes surface in the web build."],
    files="web/orval.config.ts web/src/api/generated/ backend/openapi.json", conf=0.9)

dec("expo-eas-for-driver-app", "Build the driver app with Expo (EAS Build + EAS Update)", "2024-04-16",
    "mobile react-native expo eas driver-app",
    "The driver app (React Native) needs frequent fixes in the field, and two people maintained fragile Xcode/Gradle setups on their laptops.",
    "The Harbor Driver app uses the Expo managed workflow with config plugins, EAS Build for binaries and EAS Update for JS-only hotfixes.",
    ["OTA updates fix driver-facing bugs without store review.", "Builds are reproducible in the cloud."],
    alts=[("Bare React Native CLI + Fastlane", "High maintenance; CodePush is being retired by Microsoft.")],
    files="mobile/app.config.ts mobile/eas.json", conf=0.9)

dec("offline-first-proof-of-delivery", "Driver app captures proof of delivery offline-first", "2024-10-01",
    "mobile offline proof-of-delivery pod s3 driver-app",
    "Drivers often have no signal in warehouses and basements; POD photos were lost when uploads failed.",
    "POD photos and signatures are written to a persistent local queue (MMKV + file system) and uploaded via presigned S3 URLs by a background task with retries.",
    ["No data loss when offline.", "Delivery can be completed without connectivity."],
    cons=["Server must accept POD events that arrive hours late and out of order."],
    files="mobile/src/pod/uploadQueue.ts", conf=0.85)

dec("terraform-state-s3-dynamodb", "Terraform state in S3 with DynamoDB locking, one state per environment", "2024-01-23",
    "terraform aws s3 dynamodb state infra",
    "Local state files were committed by accident and two people applied at the same time.",
    "Each environment (dev, staging, prod) has its own S3 backend key and the shared `harbor-terraform-locks` DynamoDB table; `terraform apply` for prod only runs from CI.",
    ["Locking prevents concurrent applies.", "Blast radius limited to one environment."],
    files="infra/terraform/envs/prod/backend.tf infra/terraform/envs/staging/backend.tf", conf=0.95)

dec("eks-for-backend-services", "Run backend services on EKS with Helm charts", "2024-09-03",
    "kubernetes eks helm aws infra deploys",
    "ECS task definitions were duplicated per service and we lacked good primitives for workers, cron jobs and canaries.",
    "All backend services (api, workers, auth, search) run on EKS 1.29+ and are deployed with Helm charts in `deploy/helm/`; ECS is decommissioned.",
    ["Shared Helm library chart removes duplication.", "HPA and PodDisruptionBudgets for workers."],
    alts=[("Stay on ECS Fargate", "Limited scheduling control and no ecosystem like Argo Rollouts.")],
    cons=["The team needs Kubernetes on-call skills.", "Cluster upgrades every 6 months."],
    files="deploy/helm/ infra/terraform/modules/eks/", conf=0.9)

dec("ecs-fargate-for-services", "Run services on ECS Fargate", "2024-01-09",
    "ecs fargate aws infra",
    "We needed something running quickly for the MVP.",
    "API and Celery workers run as ECS Fargate services defined in Terraform.",
    ["Minimal operational overhead."],
    st="superseded", status="retired", when="2024-11-20",
    why="Migrated to EKS (eks-for-backend-services); ECS decommissioned in November 2024.", conf=0.5)

dec("github-actions-oidc-aws", "GitHub Actions assume AWS roles via OIDC, no static access keys", "2024-06-04",
    "ci github-actions aws oidc iam security",
    "A long-lived IAM user key for CI was found in an old fork's workflow logs.",
    "Workflows use `aws-actions/configure-aws-credentials` with OIDC and per-repo, per-environment IAM roles; static AWS keys in GitHub secrets are forbidden.",
    ["No long-lived secrets to leak or rotate.", "Roles can be restricted to the main branch and environments."],
    files=".github/workflows/deploy.yml infra/terraform/modules/github-oidc/", conf=0.95)

dec("transactional-outbox-for-kafka", "Publish domain events through a transactional outbox", "2024-11-12",
    "kafka events outbox postgres consistency",
    "Services published to Kafka after committing the DB transaction; crashes in between lost `shipment.status_changed` events and customers missed webhooks.",
    "Domain events are inserted into the `outbox_events` table in the same transaction as the change; a relay process (`harbor.events.relay`) publishes them to Kafka and marks them sent.",
    ["Events are never lost or published for rolled-back changes.", "Relay gives at-least-once delivery; consumers dedupe by event_id."],
    alts=[("Debezium CDC", "Another stateful component to operate; may revisit.")],
    cons=["Outbox table needs cleanup (partitioned by day)."],
    files="backend/harbor/events/outbox.py backend/harbor/events/relay.py", conf=0.9)

dec("kafka-topic-naming", "Kafka topic naming: `<domain>.<entity>.<event>.v<N>`", "2024-11-19",
    "kafka topics naming events conventions",
    "Topics had mixed names like `shipmentEvents`, `tracking-updates` and `billing_events_v2`.",
    "New topics are named `<domain>.<entity>.<event>.v<N>` in lowercase, e.g. `shipments.shipment.status_changed.v1`; breaking schema changes create a new version topic.",
    ["Predictable ACLs by prefix.", "Versioning is explicit."],
    files="infra/terraform/modules/msk-topics/topics.tf", conf=0.85)

dec("avro-schema-registry-backward", "Kafka events use Avro with Schema Registry in BACKWARD compatibility", "2024-12-03",
    "kafka avro schema-registry events compatibility",
    "JSON events broke consumers when fields were renamed.",
    "All event payloads are Avro, registered in the Confluent-compatible schema registry with BACKWARD compatibility; schemas live in `schemas/avro/` and are validated in CI.",
    ["Consumers can be upgraded after producers.", "Compatibility checked before merge."],
    files="schemas/avro/", conf=0.85)

dec("opensearch-for-shipment-search", "Use OpenSearch for shipment search instead of Postgres full-text", "2024-08-27",
    "search opensearch postgres full-text shipments",
    "Search by reference, consignee, address and PO number across 40M shipments took seconds with pg_trgm and needed fuzzy matching and CJK tokenization.",
    "A search service indexes shipments into Amazon OpenSearch from Kafka events; the API queries OpenSearch and hydrates results from Postgres.",
    ["Fast fuzzy and CJK-aware search.", "Keeps heavy queries off the primary database."],
    alts=[("pg_trgm + GIN", "Too slow beyond 10M rows and poor for Korean/Japanese."), ("Algolia", "Cost and data residency.")],
    cons=["Index is eventually consistent (a few seconds).", "Reindexing needs a runbook."],
    files="services/search/", conf=0.9)

dec("opensearch-cjk-analyzers", "Use nori for Korean and kuromoji for Japanese fields in OpenSearch", "2025-02-11",
    "search opensearch nori kuromoji korean japanese analyzers cjk",
    "The standard analyzer split Korean and Japanese addresses into single characters, making results noisy.",
    "Address and name fields get language subfields: `.ko` analyzed with nori, `.ja` with kuromoji plus ICU normalization, `.std` with the standard analyzer; queries use multi_match across them.",
    ["Much better relevance for Seoul and Tokyo customers."],
    cons=["Index mapping change required a full reindex."],
    files="services/search/mappings/shipments.json", conf=0.8)

dec("stripe-usage-based-billing", "Bill shipment volume with Stripe usage-based (metered) prices", "2024-10-15",
    "billing stripe metered usage pricing invoices",
    "Pricing changed from seats to shipments per month; we needed invoices that reflect actual usage.",
    "Each subscription has a metered price; `harbor.billing.usage` reports shipment counts to Stripe hourly via usage records and Stripe generates the invoice at period end.",
    ["Stripe handles proration, tax and invoicing.", "Hourly reporting limits the damage of a missed job."],
    cons=["Usage reporting must be idempotent (see Stripe constraints)."],
    files="backend/harbor/billing/usage.py", conf=0.9)

dec("stripe-customer-portal", "Use the Stripe Customer Portal for payment methods and invoices", "2026-02-03",
    "billing stripe customer-portal web",
    "We were about to build card management and invoice download pages.",
    "Link out to the Stripe-hosted Customer Portal for payment method updates, invoice history and cancellations.",
    ["No PCI scope on our side.", "Saves several weeks of UI work."],
    files="backend/harbor/billing/portal.py", conf=0.85)

dec("pydantic-v2-migration", "Migrate the backend to Pydantic v2", "2025-05-20",
    "pydantic fastapi python migration validation",
    "FastAPI and most libraries dropped Pydantic v1 support, and v2 validation is 5-10x faster in our import pipeline benchmarks.",
    "All models move to Pydantic v2 APIs (`model_validate`, `model_dump`, `field_validator`); the `pydantic.v1` compatibility import is only allowed in `harbor.legacy` until Q4.",
    ["Performance on large CSV imports.", "Library ecosystem moved on."],
    cons=["Validation error payloads changed shape; API error mapping was updated."],
    files="backend/harbor/api/schemas/ backend/pyproject.toml", conf=0.9,
    upd="2025-08-02", changes=[("2025-08-02", "Migration complete except harbor.legacy.edi.")])

dec("uv-for-python-dependencies", "Switch from Poetry to uv for Python dependency management", "2025-07-15",
    "python uv poetry dependencies lockfile ci",
    "Poetry lock took 4+ minutes and frequently failed resolving in CI.",
    "All Python projects use uv with `pyproject.toml` and `uv.lock`; CI uses `uv sync --frozen`.",
    ["Resolution and install are an order of magnitude faster.", "Single tool for Python versions and venvs."],
    files="backend/pyproject.toml backend/uv.lock services/auth/pyproject.toml", conf=0.9)

dec("poetry-for-python-dependencies", "Use Poetry for Python dependency management", "2024-01-11",
    "python poetry dependencies",
    "Needed lockfiles for reproducible builds.",
    "Every Python service uses Poetry with poetry.lock committed.",
    ["Popular and well known."],
    st="superseded", status="retired", when="2025-07-15", why="Replaced by uv (uv-for-python-dependencies).", conf=0.5)

dec("ruff-replaces-flake8-black-isort", "Replace flake8, black and isort with ruff", "2024-07-02",
    "python ruff lint formatting flake8 black isort pre-commit",
    "Three tools with overlapping config, slow pre-commit hooks.",
    "ruff handles linting and formatting (`ruff check`, `ruff format`) with config in `pyproject.toml`; line length 100.",
    ["10-100x faster.", "One config."],
    files="backend/pyproject.toml .pre-commit-config.yaml", conf=0.95)

dec("structlog-json-logging", "Structured JSON logging with structlog", "2024-04-23",
    "logging structlog observability datadog python",
    "Plain text logs were hard to query in Datadog and request ids were missing.",
    "All Python services log via structlog as JSON with `request_id`, `tenant_id` and `trace_id` bound by middleware; use `log = structlog.get_logger(__name__)`.",
    ["Queryable attributes in Datadog.", "Correlation between logs and traces."],
    files="backend/harbor/logging.py", conf=0.9)

dec("sentry-sampling-rates", "Sentry: capture all errors, sample 5% of transactions in production", "2024-12-10",
    "sentry observability sampling tracing quota",
    "Performance tracing at 100% burned the monthly Sentry quota in nine days.",
    "Backend: `traces_sample_rate=0.05` in prod, 1.0 in staging; web and mobile use 0.02. Errors are never sampled; noisy errors are filtered in `before_send`.",
    ["Stay within the plan.", "Datadog APM covers detailed performance work."],
    files="backend/harbor/observability/sentry.py web/src/sentry.ts", conf=0.85)

dec("datadog-for-metrics-apm", "Datadog for metrics and APM; Sentry only for errors", "2024-05-28",
    "datadog sentry observability apm metrics monitoring",
    "We had metrics in CloudWatch, traces in Sentry and logs in three places.",
    "Datadog is the system of record for metrics, logs, APM and monitors; Sentry is used for exceptions and release health.",
    ["One place for dashboards and monitors.", "Better APM for Celery."],
    files="deploy/helm/datadog-values.yaml", conf=0.85)

dec("launchdarkly-feature-flags", "Feature flags in LaunchDarkly; remove flags within 30 days of full rollout", "2024-06-25",
    "feature-flags launchdarkly rollout",
    "Home-grown flags in a settings table were never cleaned up and nobody knew which were live.",
    "All feature flags live in LaunchDarkly; each flag has an owner and a removal ticket, and flags at 100% for 30 days are deleted from code.",
    ["Targeting by tenant and percentage rollouts.", "Flag debt stays bounded."],
    files="backend/harbor/flags.py web/src/lib/flags.ts", conf=0.8)

dec("retry-with-backoff-carrier-apis", "Wrap carrier API calls in `retry_with_backoff` with jitter", "2024-03-26",
    "carriers retries backoff http resilience retry_with_backoff",
    "FedEx and DHL APIs return sporadic 502/503 and `ECONNRESET`; naive retries hammered them during outages.",
    "All outbound carrier calls go through `harbor.carriers.http.retry_with_backoff`: exponential backoff with full jitter, max 5 attempts, only on idempotent requests or 429/5xx, honouring `Retry-After`.",
    ["Transient failures stop surfacing as failed bookings.", "Jitter avoids thundering herds."],
    cons=["Non-idempotent label purchase calls need an idempotency key before they can be retried."],
    files="backend/harbor/carriers/http.py", conf=0.9)

dec("circuit-breaker-per-carrier", "Circuit breaker per carrier integration", "2025-02-25",
    "carriers circuit-breaker resilience redis",
    "When the UPS API was down for 40 minutes, request threads piled up waiting on timeouts and the whole API slowed down.",
    "Each carrier client has a circuit breaker (state in Redis, shared across pods) that opens after 20 failures in 60s and half-opens after 30s; open circuits return `CarrierUnavailable` immediately.",
    ["Protects our API from carrier outages.", "Shared state means all pods open together."],
    files="backend/harbor/carriers/breaker.py", conf=0.8)

dec("pgbouncer-transaction-pooling", "PgBouncer in transaction pooling mode in front of RDS", "2024-09-24",
    "postgres pgbouncer connection-pooling rds",
    "Celery workers and API pods exhausted RDS `max_connections` at 600 during autoscaling.",
    "All application connections go through PgBouncer (transaction mode, pool size 40 per database); migrations and admin tasks connect directly to RDS.",
    ["Connection count independent of pod count."],
    cons=["No session-level features: no SET outside a transaction, no advisory session locks, no server-side prepared statements."],
    files="deploy/helm/pgbouncer/values.yaml backend/harbor/db/engine.py", conf=0.9)

dec("read-replica-for-reports", "Route reporting and export queries to the read replica", "2024-10-29",
    "postgres read-replica reports exports rds",
    "Monthly customer exports were causing CPU spikes on the primary.",
    "Reports, CSV exports and analytics endpoints use `get_replica_session()`; everything that reads its own writes stays on the primary.",
    ["Protects the primary during business hours."],
    cons=["Replica lag (usually <1s, up to 30s) is visible in exports."],
    files="backend/harbor/db/session.py", conf=0.85)

dec("celery-acks-late-idempotent", "Celery tasks use acks_late with idempotent task bodies", "2024-05-21",
    "celery tasks acks_late idempotency workers",
    "Worker pods killed during deploys lost the tasks they were executing.",
    "Default task options: `acks_late=True`, `reject_on_worker_lost=True`; every task must be safe to run twice (check state before acting, use idempotency keys for external calls).",
    ["No lost work on pod eviction."],
    cons=["Non-idempotent tasks must opt out explicitly and document why."],
    files="backend/harbor/worker/celery_app.py", conf=0.9)

dec("celery-queues-per-workload", "Dedicated Celery queues per workload: default, imports, labels, webhooks", "2024-07-09",
    "celery queues workers routing autoscaling",
    "A large CSV import starved label generation and customers waited minutes for labels.",
    "Tasks are routed by `task_routes` to `default`, `imports`, `labels` and `webhooks` queues with separate worker deployments and HPA settings.",
    ["Isolation between slow and latency-sensitive work."],
    files="backend/harbor/worker/routes.py deploy/helm/worker/values.yaml", conf=0.9)

dec("csv-imports-streaming-chunks", "Stream CSV shipment imports in chunks of 5,000 rows", "2024-08-20",
    "csv imports celery memory streaming",
    "Imports loaded whole files into pandas; a 900MB upload killed the worker.",
    "`harbor.imports.csv` reads files from S3 with a streaming reader and processes chunks of 5,000 rows, each in its own transaction; progress is stored per import job.",
    ["Bounded memory regardless of file size.", "Failed chunks can be retried."],
    files="backend/harbor/imports/csv_reader.py", conf=0.9)

dec("weasyprint-for-pdf-documents", "Generate labels, BOLs and invoices as PDF with WeasyPrint", "2024-06-11",
    "pdf weasyprint labels documents fonts",
    "wkhtmltopdf is archived and its Qt WebKit build rendered CJK fonts inconsistently.",
    "All PDFs are rendered from Jinja templates with WeasyPrint in the `labels` worker; fonts (Noto Sans CJK) are bundled in the image.",
    ["Maintained project.", "Reliable CJK rendering."],
    files="backend/harbor/documents/pdf.py backend/Dockerfile", conf=0.85)

dec("wkhtmltopdf-for-labels", "Render PDF labels with wkhtmltopdf", "2024-01-18",
    "pdf wkhtmltopdf labels",
    "Needed PDF generation for the MVP.",
    "Use wkhtmltopdf via pdfkit for shipping labels.",
    ["Quick to set up."],
    st="superseded", status="retired", when="2024-06-11", why="Replaced by WeasyPrint (weasyprint-for-pdf-documents).", conf=0.4)

dec("playwright-for-e2e", "Playwright for web end-to-end tests", "2025-03-25",
    "web e2e playwright testing cypress",
    "Cypress runs were slow, flaky on CI and could not test multi-tab flows.",
    "All web e2e tests are written in Playwright (`web/e2e/`), run sharded in CI against a seeded staging-like environment.",
    ["Faster and more reliable.", "Multi-browser including WebKit."],
    alts=[("Keep Cypress", "Flaky and paid parallelization.")],
    files="web/playwright.config.ts web/e2e/", conf=0.9)

dec("cypress-for-e2e", "Use Cypress for web end-to-end tests", "2024-02-06",
    "web e2e cypress testing",
    "First e2e tests for the web app.",
    "Write e2e tests with Cypress.",
    ["Easy to start."],
    st="superseded", status="retired", when="2025-03-25", why="Superseded by playwright-for-e2e.", conf=0.5)

dec("pytest-randomly-test-order", "Run backend tests in random order with pytest-randomly", "2025-04-29",
    "testing pytest pytest-randomly flaky-tests order-dependence",
    "Several tests only passed because an earlier test left rows in the database or a patched module attribute behind.",
    "pytest-randomly is enabled for the backend suite; the seed is printed in CI output and failures are reproduced with `pytest -p randomly -p 'randomly_seed=<seed>'`.",
    ["Surfaces order-dependent tests early instead of as random CI flakes."],
    cons=["Flakes found this way go into the flaky-test quarantine process."],
    files="backend/pyproject.toml backend/tests/conftest.py", conf=0.85)

dec("factory-boy-test-data", "Use factory_boy factories for test data instead of JSON fixture dumps", "2024-05-02",
    "testing factory-boy fixtures pytest test-data",
    "`tests/fixtures/*.json` dumps were 20k lines, broke on every schema change and nobody knew which tests relied on which rows.",
    "Test data is created with factory_boy factories in `backend/tests/factories/` (e.g. `ShipmentFactory`, `TenantFactory`); fixture JSON dumps are deleted.",
    ["Tests declare exactly the data they need.", "Schema changes only touch factories."],
    files="backend/tests/factories/", conf=0.85)

dec("testcontainers-postgres-for-integration", "Integration tests run against Testcontainers Postgres, not SQLite", "2024-03-12",
    "testing postgres testcontainers sqlite integration-tests",
    "SQLite hid bugs with timestamptz, JSONB operators, RLS and ON CONFLICT clauses.",
    "Integration tests start a Postgres 15 container once per session via testcontainers-python; each test runs in a transaction that is rolled back.",
    ["Same engine as production.", "Rollback per test keeps runs fast."],
    files="backend/tests/conftest.py", conf=0.9)

dec("monorepo-layout", "One monorepo: backend/, web/, mobile/, services/, infra/, deploy/", "2024-01-08",
    "monorepo repository layout codeowners",
    "We started with four repositories and cross-cutting changes needed four coordinated PRs.",
    "Everything lives in the `harbor` monorepo with top-level folders per deliverable and CODEOWNERS per folder; CI uses path filters so only affected jobs run.",
    ["Atomic cross-cutting changes.", "One place for conventions and tooling."],
    files="CODEOWNERS .github/workflows/ci.yml", conf=0.9)

dec("trunk-based-weekly-release-train", "Trunk-based development with a weekly release train on Tuesdays", "2024-04-09",
    "release process trunk-based deploys feature-flags",
    "Long-lived release branches caused painful merges and hotfix confusion.",
    "Everyone merges to `main` behind feature flags; a release is cut every Tuesday 10:00 KST from `main`, deployed to staging and promoted to prod Wednesday after smoke tests. Hotfixes are cherry-picked onto the release tag.",
    ["Small batches, predictable cadence across time zones."],
    files="docs/engineering/release-process.md .github/workflows/release.yml", conf=0.85,
    upd="2026-10-27", changes=[("2026-10-27", "No release trains during the 2026-11-20..12-02 peak season freeze.")])

dec("api-versioning-url-prefix", "Public API versioning via URL prefix (`/v1`, `/v2`)", "2024-02-20",
    "api versioning rest public-api",
    "Customers integrate with generated clients and need stable, obvious versions.",
    "Breaking changes go to a new URL prefix; additive changes ship in the current version. A version is supported for 12 months after its successor is released.",
    ["Obvious for customers and support.", "Easy routing at the load balancer."],
    alts=[("Date-based header versioning like Stripe", "Too much machinery for our size.")],
    files="backend/harbor/api/routers/", conf=0.85)

dec("cursor-pagination-list-endpoints", "Cursor-based pagination for all list endpoints", "2024-03-28",
    "api pagination cursor rest postgres",
    "OFFSET pagination on /v1/shipments timed out past page 2,000 and skipped rows while data changed.",
    "List endpoints return `next_cursor` (opaque base64 of the sort key + id) and accept `cursor` and `limit` (max 200); OFFSET is not used in new endpoints.",
    ["Stable and fast with keyset pagination."],
    files="backend/harbor/api/pagination.py", conf=0.9)

dec("problem-json-error-responses", "API error responses use RFC 7807 application/problem+json", "2024-04-30",
    "api errors problem-json rest fastapi",
    "Errors came back in four different shapes depending on which router raised them.",
    "All errors are rendered by a FastAPI exception handler as problem+json with `type`, `title`, `status`, `detail` and our `code` (e.g. `shipment.not_found`) plus `errors[]` for validation failures.",
    ["One shape for clients to handle.", "Stable machine-readable codes."],
    files="backend/harbor/api/errors.py", conf=0.9)

dec("idempotency-key-on-create-endpoints", "Support the `Idempotency-Key` header on POST /shipments and POST /labels", "2024-07-16",
    "api idempotency retries shipments labels",
    "Customer integrations retried timeouts and created duplicate shipments and paid for duplicate labels.",
    "POST endpoints that create billable objects accept `Idempotency-Key`; the key, request hash and response are stored for 24 hours in Postgres and replayed on retry. Mismatched request bodies return 422.",
    ["Safe client retries.", "Stops duplicate label charges."],
    files="backend/harbor/api/idempotency.py", conf=0.9)

dec("hmac-signed-outbound-webhooks", "Sign outbound customer webhooks with HMAC-SHA256 (`Harbor-Signature`)", "2024-08-13",
    "webhooks security hmac signing customers",
    "Customers asked how to verify that tracking webhooks really come from us.",
    "Every webhook carries `Harbor-Signature: t=<unix>,v1=<hex hmac>` over `t.body` with a per-endpoint secret; receivers should reject timestamps older than 5 minutes.",
    ["Same scheme as Stripe, familiar to customers."],
    files="backend/harbor/webhooks/signing.py docs/api/webhooks.md", conf=0.9)

dec("multi-tenancy-tenant-id-rls", "Multi-tenancy via tenant_id column plus Postgres row-level security", "2024-02-13",
    "multi-tenancy postgres rls security tenant_id",
    "A missing `.filter(tenant_id=...)` in an early endpoint exposed another tenant's shipment list in staging.",
    "Every tenant-owned table has `tenant_id` and an RLS policy using `current_setting('harbor.tenant_id')`, set per transaction with `SET LOCAL` by the session middleware.",
    ["Defense in depth against missing filters."],
    cons=["Works with PgBouncer transaction mode only because we use SET LOCAL.", "Admin jobs use a BYPASSRLS role."],
    files="backend/harbor/db/tenancy.py", conf=0.9)

dec("s3-presigned-uploads", "Upload documents and POD photos directly to S3 with presigned URLs", "2024-06-27",
    "s3 uploads presigned aws documents mobile",
    "Proxying uploads through the API pods used lots of memory and hit the 10MB ingress limit.",
    "Clients request a presigned POST from `/v1/uploads`, upload straight to S3, then confirm; a Lambda validates content type and size before the file is linked.",
    ["API pods no longer handle file bytes."],
    files="backend/harbor/uploads/presign.py", conf=0.85)

dec("react-i18next-web-i18n", "Web app i18n with react-i18next; en, ko and ja locales", "2024-09-10",
    "web i18n localization react-i18next korean japanese",
    "Seoul and Tokyo customers need a localized UI; strings were hard-coded.",
    "All user-facing strings go through `t()` with namespaced keys in `web/src/locales/{en,ko,ja}/*.json`; translations are managed in Lokalise and synced in CI.",
    ["Standard library with ICU plural support."],
    files="web/src/i18n.ts web/src/locales/", conf=0.85)

dec("japan-data-tokyo-region", "日本の顧客データは東京リージョン(ap-northeast-1)に保存する", "2025-05-13",
    "データ保管 東京リージョン ap-northeast-1 appi aws japan",
    "日本の大手荷主2社から、個人情報保護法(APPI)と社内規程により配送先住所などの個人データを国内に保管するよう要求があった。",
    "日本テナントの配送先・荷受人データは東京リージョンのRDSとS3に保存し、us-east-1には匿名化した集計データのみ送る。テナント作成時に`data_region=jp`を設定する。",
    ["大型契約の必須条件だった。", "レイテンシも改善する(東京の倉庫から40ms→5ms)。"],
    cons=["リージョン別のデプロイとバックアップが必要。", "横断レポートは集計データのみ。"],
    files="infra/terraform/envs/prod-apne1/ backend/harbor/tenancy/regions.py", conf=0.85)

dec("korea-pii-seoul-region", "한국 고객 개인정보는 서울 리전(ap-northeast-2)에 저장", "2025-06-24",
    "개인정보 서울리전 ap-northeast-2 pipa aws korea 데이터",
    "한국 대형 화주사가 개인정보보호법(PIPA) 및 내부 보안 심사 때문에 수하인 이름·전화번호·주소를 국내에 보관하도록 요구했다.",
    "한국 테넌트(`data_region=kr`)의 수하인 개인정보는 서울 리전 RDS/S3에만 저장하고, 글로벌 리전에는 가명처리된 ID와 통계만 보낸다.",
    ["계약 필수 조건.", "일본 리전 구조(ap-northeast-1)와 같은 방식을 재사용."],
    cons=["리전별 마이그레이션 실행 필요.", "지원팀은 서울 리전 전용 어드민을 사용해야 함."],
    files="infra/terraform/envs/prod-apne2/ backend/harbor/tenancy/regions.py", conf=0.85)

dec("eta-model-lightgbm-batch", "ETA prediction with a LightGBM model scored in batch every 15 minutes", "2025-08-19",
    "eta machine-learning lightgbm tracking predictions",
    "Carrier-provided ETAs were wrong by more than a day for 30% of LTL shipments.",
    "A LightGBM model trained weekly on tracking history predicts delivery dates; a Celery beat job scores in-transit shipments every 15 minutes and writes `predicted_delivery_at`.",
    ["Batch scoring is cheap and simple.", "Real-time inference was not needed by customers."],
    alts=[("Online model server (SageMaker endpoint)", "Cost and operations for little benefit.")],
    files="backend/harbor/eta/ ml/eta/train.py", conf=0.75)

dec("address-validation-providers", "Address validation: Google for US/EU, Juso API for Korea, JP post code DB for Japan", "2025-03-18",
    "addresses validation geocoding korea japan google juso",
    "Failed deliveries due to bad addresses cost customers re-delivery fees; one global provider was poor for Korean road-name addresses.",
    "`harbor.addresses.validate()` dispatches by country: Google Address Validation API for US/EU, the Korean Juso (도로명주소) API for KR, and the Japan Post postal code database plus normalization for JP.",
    ["Best accuracy per market."],
    cons=["Three providers to monitor and three sets of quotas."],
    files="backend/harbor/addresses/validate.py", conf=0.8)

dec("edi-via-stedi", "Handle EDI X12 204/214/210 via Stedi instead of our own parser", "2025-10-07",
    "edi x12 stedi integrations carriers",
    "Two LTL carriers only support EDI; our prototype X12 parser handled only the happy path.",
    "EDI documents are translated to JSON by Stedi; we receive them by webhook and send outbound 204s through its API. `harbor.legacy.edi` is frozen and will be removed.",
    ["EDI edge cases are Stedi's job.", "Faster onboarding of EDI carriers."],
    alts=[("pyx12 + AS2 gateway", "Too much specialized work for a small team.")],
    files="backend/harbor/integrations/stedi/", conf=0.75)

dec("rest-not-graphql-public-api", "Keep the public API REST-only; GraphQL rejected", "2024-12-17",
    "api graphql rest public-api",
    "A large customer asked for GraphQL; the web team also considered it for dashboards.",
    "Public and internal APIs remain REST with OpenAPI; dashboard needs are solved with purpose-built aggregate endpoints.",
    ["Generated clients and docs already depend on OpenAPI.", "GraphQL complicates rate limiting and tenant isolation."],
    conf=0.8)

dec("mypy-strict-billing-auth", "mypy --strict for harbor.billing and harbor-auth", "2025-02-04",
    "python mypy typing type-hints billing auth",
    "Two billing incidents came from `None` leaking into amount calculations.",
    "`harbor.billing` and `services/auth` are checked with `mypy --strict`; the rest of the backend uses the default config with `disallow_untyped_defs` on new modules.",
    ["Money and auth code deserves the strictest checks."],
    files="backend/pyproject.toml services/auth/pyproject.toml", conf=0.85)

dec("external-secrets-from-secrets-manager", "Secrets come from AWS Secrets Manager via External Secrets Operator", "2024-10-08",
    "secrets kubernetes aws secrets-manager security eks",
    "Secrets were pasted into Helm values in a private repo.",
    "Secrets live in AWS Secrets Manager under `harbor/<env>/<service>/`; External Secrets Operator syncs them into Kubernetes Secrets; apps read them as env vars.",
    ["Rotation without redeploys of charts.", "Audit trail in CloudTrail."],
    files="deploy/helm/*/templates/externalsecret.yaml", conf=0.9)

dec("rollback-with-helm-not-retag", "Roll back with `helm rollback`, never by re-tagging images", "2024-11-26",
    "deploys rollback helm kubernetes release",
    "Someone re-tagged `latest` to an older image during an incident; the next autoscaled pods pulled a different image than the rest.",
    "Rollbacks use `helm rollback <release> <revision>` (or the 'Rollback' workflow); images are immutable and tagged with the git SHA.",
    ["Deterministic deployments.", "Rollback history is visible in Helm."],
    files=".github/workflows/rollback.yml", conf=0.9)

dec("argo-rollouts-canary-api", "Canary deploys for the API with Argo Rollouts", "2026-10-06",
    "deploys canary argo-rollouts kubernetes release",
    "Two bad releases in September reached 100% of traffic before alerts fired.",
    "Proposal: the `api` deployment becomes an Argo Rollout with 10% -> 50% -> 100% steps and automated analysis on 5xx rate and p95 latency from Datadog.",
    ["Limits blast radius of bad releases.", "Automated rollback without a human at 3am."],
    alts=[("Blue/green with manual switch", "Needs a human and doubles capacity.")],
    st="proposed", files="deploy/helm/api/templates/rollout.yaml", conf=0.6)

dec("renovate-grouped-weekly", "Renovate (not Dependabot) with grouped weekly dependency PRs", "2026-04-02",
    "dependencies renovate dependabot ci security",
    "Dependabot opened 60 PRs a week across the monorepo and most were ignored.",
    "Renovate runs weekly on Monday with groups (eslint, testing libs, AWS SDKs, minor+patch Python) and automerges patch updates of dev dependencies when CI is green. Security updates are immediate.",
    ["Manageable PR volume."],
    files="renovate.json", conf=0.85)

dec("node-22-lts-toolchain", "Upgrade web and mobile toolchains to Node 22 LTS", "2026-10-09",
    "node nodejs web mobile toolchain upgrade",
    "Node 20 reaches end of life in April 2026+ support windows and some tooling (Vite 6, Expo SDK 53) recommend 22.",
    "Pin Node 22 in `.nvmrc`, `engines` and CI `setup-node`; EAS build images use node 22.",
    ["Stay on a supported LTS.", "Faster native fetch and test runner."],
    files=".nvmrc web/package.json mobile/package.json", conf=0.7)

dec("python-312-upgrade", "Upgrade all Python services to 3.12", "2026-10-20",
    "python upgrade python312 runtime",
    "3.11 security support ends 2027; 3.12 gives faster startup and better error messages. The blocker (python3-saml's xmlsec wheels) is resolved.",
    "Move backend, auth and search to Python 3.12 in the November release train; CI matrix tests 3.12 only afterwards.",
    ["Performance and support window."],
    cons=["Celery workers need the base image rebuilt.", "Some deprecated `datetime.utcnow()` calls must be fixed."],
    files="backend/Dockerfile backend/pyproject.toml", conf=0.7)

dec("sync-sqlalchemy-sessions", "Keep synchronous SQLAlchemy sessions in FastAPI endpoints", "2024-08-01",
    "sqlalchemy fastapi async database performance",
    "We evaluated moving to async SQLAlchemy and asyncpg for the API.",
    "Endpoints stay `def` (threadpool) with sync SQLAlchemy 2.0 sessions; async is only used for outbound HTTP fan-out inside specific services.",
    ["Most endpoints are DB-bound with simple queries; async gave no measurable win in load tests.", "Celery tasks share the same sync code."],
    alts=[("Full async stack", "Large rewrite, lazy-loading pitfalls, little gain.")],
    conf=0.8)

dec("kakao-alimtalk-korea-notifications", "한국 수하인 알림은 카카오 알림톡으로 발송하고 실패 시 SMS로 대체", "2026-10-16",
    "알림톡 카카오 알림 sms 한국 notifications",
    "한국에서는 SMS보다 카카오 알림톡 도달률과 열람률이 높고, 고객사들이 배송 출발/도착 알림을 알림톡으로 요청했다.",
    "`harbor.notifications.kakao`가 알림톡 템플릿(배송출발, 배송완료, 배송지연)을 발송하고, 실패 코드가 오면 같은 내용을 SMS(LMS)로 대체 발송한다.",
    ["도달률 향상 및 비용 절감.", "템플릿 사전 승인이 필요하므로 문구 변경은 2~3일 전에 신청."],
    files="backend/harbor/notifications/kakao.py", conf=0.75)

dec("japan-qualified-invoice-format", "インボイス制度に対応した適格請求書フォーマットを採用する", "2025-09-30",
    "請求書 インボイス制度 適格請求書 billing japan 消費税",
    "2023年10月からのインボイス制度により、日本の顧客から登録番号と税率ごとの消費税額を記載した請求書を求められた。",
    "日本テナント向け請求書PDFには適格請求書発行事業者の登録番号(T+13桁)、税率ごとの合計と消費税額を表示し、端数処理は請求書単位で1回だけ行う。",
    ["顧客が仕入税額控除を受けるために必須。", "Stripeの請求書では要件を満たせないため自前でPDFを生成する。"],
    files="backend/harbor/billing/invoices/jp.py backend/harbor/documents/templates/invoice_jp.html", conf=0.8)

dec("china-customs-single-window", "跨境报关数据通过中国国际贸易单一窗口API提交", "2025-11-04",
    "报关 海关 单一窗口 customs china cross-border",
    "上海仓库的跨境电商客户需要我们直接提交清单申报，之前由报关行手工录入，错误率高且耗时。",
    "`harbor.customs.cn` 生成符合海关总署格式的申报报文，通过单一窗口接口提交，并在回执中记录申报状态；HS编码缺失的订单不允许提交。",
    ["减少人工录入错误。", "申报状态可以在平台上追踪。"],
    files="backend/harbor/customs/cn/", conf=0.7)

dec("shared-design-system-storybook", "Shared design system `@harbor/ui` documented in Storybook", "2024-11-05",
    "web design-system storybook components react ui",
    "The web app had three different Button and Modal implementations.",
    "Reusable components live in `web/packages/ui` published as `@harbor/ui`, each with a Storybook story and visual regression tests in Chromatic.",
    ["Consistency and faster UI work."],
    files="web/packages/ui/ web/.storybook/", conf=0.85)

dec("api-rate-limit-token-bucket", "Rate-limit the public API per API key with a Redis token bucket", "2025-04-22",
    "api rate-limiting redis token-bucket public-api 429",
    "One customer's integration polled /v1/tracking 300 times per second and degraded latency for everyone.",
    "A middleware enforces 1,000 requests/minute per API key (burst 200) using a Redis Lua token bucket on the cache cluster; responses include `RateLimit-*` headers and 429 with `Retry-After`.",
    ["Fairness between tenants."],
    cons=["If the cache Redis is down the limiter fails open."],
    files="backend/harbor/api/ratelimit.py backend/harbor/api/ratelimit.lua", conf=0.85)

dec("append-only-audit-log", "Append-only audit log table partitioned by month", "2024-12-31",
    "audit-log compliance postgres partitioning security",
    "Enterprise customers and SOC 2 require an audit trail of user actions.",
    "`audit_events` is insert-only (no UPDATE/DELETE grants for the app role), partitioned monthly with pg_partman, retained 7 years with old partitions archived to S3 Parquet.",
    ["Tamper resistance and cheap retention."],
    files="backend/harbor/audit/", conf=0.85)

dec("soft-delete-shipments", "Soft-delete shipments with `deleted_at`; hard delete after 400 days", "2026-09-03",
    "shipments soft-delete retention postgres gdpr",
    "Customers deleted shipments by mistake and support could not restore them; billing also needs deleted shipments for disputes.",
    "Shipments get `deleted_at`; default queries exclude them via a SQLAlchemy `with_loader_criteria` option, and a nightly job hard-deletes rows older than 400 days.",
    ["Restorable mistakes.", "Billing disputes can be resolved."],
    files="backend/harbor/shipments/models.py", conf=0.8)

dec("follow-the-sun-on-call", "Follow-the-sun on-call split between Seoul/Tokyo and Berlin", "2025-01-14",
    "on-call pagerduty incidents rotation team",
    "A single global rotation paged people at 3am every week.",
    "PagerDuty has two rotations: APAC (Seoul/Tokyo, 08:00-20:00 KST) and EU (Berlin, 08:00-20:00 CET), with handover notes in the #oncall channel.",
    ["No night pages in normal weeks."],
    conf=0.85, upd="2026-10-02", changes=[("2026-10-02", "Peak season: a secondary on-call is added to both rotations.")])

dec("redbeat-celery-beat-scheduler", "Use RedBeat as the Celery beat scheduler", "2025-05-06",
    "celery beat redbeat scheduler redis cron",
    "Two beat pods during a rollout triggered every periodic task twice (duplicate invoices emails).",
    "celery beat uses RedBeat with a Redis lock on the broker cluster, so only one beat instance schedules even when two pods overlap.",
    ["No duplicate periodic tasks during deploys."],
    files="backend/harbor/worker/beat.py", conf=0.85)

dec("postgres-16-blue-green-upgrade", "Upgrade RDS to PostgreSQL 16 with RDS blue/green deployments", "2026-10-13",
    "postgres rds upgrade blue-green database",
    "PostgreSQL 15 standard support on RDS ends soon and 16 improves logical replication and vacuum.",
    "Use RDS Blue/Green Deployments: create green on 16, run the test suite and replay traffic, then switch over during the Sunday 02:00 KST low-traffic window. Expected downtime < 1 minute.",
    ["Minimal downtime and an easy fallback to blue."],
    cons=["Logical replication requires primary keys on all tables; two legacy tables need one first."],
    files="infra/terraform/modules/rds/main.tf", conf=0.7)

dec("karpenter-node-autoscaling", "Replace Cluster Autoscaler with Karpenter on EKS", "2026-10-03",
    "kubernetes eks karpenter autoscaling cost",
    "Import and label workers scale from 2 to 40 pods during peaks and Cluster Autoscaler was slow and kept oversized nodes.",
    "Karpenter provisions nodes for worker pools with spot instances for `imports` and on-demand for `api` and `labels`.",
    ["Faster scale-up and ~25% lower EC2 cost in the trial."],
    files="infra/terraform/modules/eks/karpenter.tf", conf=0.7)

dec("opentelemetry-tracing", "Adopt OpenTelemetry SDKs for tracing, export to Datadog", "2026-10-22",
    "observability opentelemetry tracing datadog",
    "Vendor-specific ddtrace instrumentation makes it hard to trace Kafka consumers and the Go-based carrier proxy together.",
    "Proposal: instrument services with OpenTelemetry SDKs and the OTel Collector, exporting to Datadog; keep ddtrace until parity is confirmed.",
    ["Vendor neutrality and better Kafka context propagation."],
    st="proposed", conf=0.55)

dec("deprecate-v1-tracking-webhooks", "Deprecate v1 tracking webhooks; sunset on 2027-04-01", "2026-10-27",
    "webhooks deprecation api tracking versioning",
    "v1 tracking webhooks send a flat payload without event ids, so customers cannot dedupe retries.",
    "v1 webhooks are deprecated: new endpoints can only subscribe to v2 (`tracking.event.created.v2`), existing customers get emails and a `Deprecation` header, and v1 stops on 2027-04-01.",
    ["v2 has event ids, signing and retries with backoff."],
    files="backend/harbor/webhooks/", conf=0.75)

# ---------------------------------------------------------------------------
# Runbooks
# ---------------------------------------------------------------------------

rb("fix-celery-worker-oom-large-csv-imports", "Fix Celery worker OOM on large CSV imports", "2024-08-14",
   "celery oom memory csv imports workers kubernetes",
   "Pods in the `imports` worker deployment restart with OOMKilled (exit code 137) while a customer import is running.",
   ["Find the import: `kubectl logs -n harbor deploy/worker-imports --previous | grep import_job_id`.",
    "Check the file size in the `import_jobs` row; files over 200MB should go through the streaming path (`harbor.imports.csv_reader.iter_chunks`).",
    "If the job used the legacy pandas path (`use_legacy_reader=true` on the tenant), switch the flag off and re-queue with `python -m harbor.imports requeue <import_job_id>`.",
    "If it still OOMs, lower `IMPORT_CHUNK_SIZE` to 2000 for that tenant and set `worker_max_memory_per_child=800000` on the imports workers.",
    "Tell support the import was restarted; partial chunks are idempotent and will not duplicate shipments."],
   "The import job reaches `completed`, and `kubectl get pods -n harbor -l app=worker-imports` shows no new restarts.",
   symptoms=["OOMKilled / exit code 137 on worker-imports pods", "Import stuck at the same percentage", "Sentry: WorkerLostError"],
   root_cause="The legacy reader loads the whole CSV into a pandas DataFrame; a 900MB file needs ~6GB of RAM.",
   env="prod, worker-imports deployment (limit 2Gi)", conf=0.9,
   upd="2025-02-03", changes=[("2025-02-03", "Added worker_max_memory_per_child step.")])

rb("redis-cache-maxmemory-evictions", "Redis cache hitting maxmemory: eviction spikes and slow rate quotes", "2025-05-27",
   "redis cache elasticache evictions maxmemory memory",
   "Datadog monitor `harbor-cache evicted_keys > 5k/min` fires or rate quote p95 latency jumps.",
   ["Check memory: `redis-cli -h $REDIS_CACHE_HOST INFO memory` and `INFO stats` (evicted_keys).",
    "Find big keys: `redis-cli --bigkeys` and `MEMORY USAGE <key>` on suspicious ones (usually `harbor:quotes:*` without TTL).",
    "Delete offending keys with `UNLINK` (non-blocking), never `DEL` on large hashes.",
    "If memory is legitimately needed, scale the node type via Terraform (`infra/terraform/modules/elasticache`), not in the console."],
   "evicted_keys drops back near zero and quote latency returns to < 300ms p95.",
   symptoms=["evicted_keys climbing", "cache hit rate under 60%", "slow /v1/rates/quote"],
   root_cause="Usually a call site writing keys without TTL or caching whole carrier responses.",
   env="prod harbor-cache cluster", conf=0.85)

rb("redis-broker-oom-command-not-allowed", "Celery broker Redis returns `OOM command not allowed when used memory > 'maxmemory'`", "2026-10-11",
   "redis celery broker oom noeviction maxmemory",
   "API or workers log `redis.exceptions.ResponseError: OOM command not allowed when used memory > 'maxmemory'` when enqueuing tasks.",
   ["This is the broker cluster (noeviction), so it is full of messages or results, not cache.",
    "Check queue lengths: `redis-cli -h $REDIS_BROKER_HOST LLEN imports` (and labels, webhooks, default).",
    "Check for leftover result keys: `redis-cli --scan --pattern 'celery-task-meta-*' | wc -l`; results should expire after 1 day (`result_expires`).",
    "If a queue is flooded by a runaway producer, pause the producer (LaunchDarkly kill switch) before purging anything.",
    "Scale workers for the backed-up queue; as a last resort purge only the specific queue (see purge-stuck-celery-queue)."],
   "`INFO memory` shows used_memory under 70% of maxmemory and enqueue errors stop in Sentry.",
   symptoms=["OOM command not allowed", "tasks not being enqueued", "API 500s on endpoints that enqueue tasks"],
   root_cause="In Oct 2026 chord results from the billing usage job were stored without expiry.", conf=0.85)

rb("invalidate-cache-namespace-scan-unlink", "Invalidate a cache namespace safely (SCAN + UNLINK, never KEYS/FLUSHALL)", "2024-12-12",
   "redis cache invalidation scan unlink",
   "Stale cached data after a data fix, e.g. carrier metadata or tenant settings must be refreshed now.",
   ["Prefer bumping the namespace version in `harbor.cache.namespaces` (e.g. `carriers:v7` -> `carriers:v8`) and deploying; old keys expire by TTL.",
    "If it cannot wait for a deploy, run `python -m harbor.cache invalidate --prefix harbor:carriers:` which uses SCAN with COUNT 500 and UNLINK in batches.",
    "Never run `KEYS *` or `FLUSHALL` on prod: it blocks Redis and also wipes rate limiter buckets."],
   "Spot-check with `redis-cli --scan --pattern 'harbor:carriers:*' | head` returning nothing and the UI showing fresh data.",
   conf=0.85)

rb("invalidate-cache-with-keys-pattern", "Invalidate cache with `redis-cli KEYS pattern | xargs DEL`", "2024-02-22",
   "redis cache invalidation keys",
   "Need to clear cached carrier data.",
   ["Run `redis-cli KEYS 'harbor:carriers:*' | xargs redis-cli DEL`."],
   "Keys are gone.",
   status="retired", when="2024-12-12",
   why="KEYS blocked production Redis for 4 seconds; replaced by invalidate-cache-namespace-scan-unlink.", conf=0.4)

rb("alembic-multiple-heads", "Resolve Alembic \"Multiple head revisions are present\"", "2024-04-11",
   "alembic migrations merge heads ci",
   "CI or `alembic upgrade head` fails with `Multiple head revisions are present for given argument 'head'` after two migration PRs merged.",
   ["Pull main and run `alembic heads` to list the heads.",
    "If neither migration has been deployed, rebase your migration: set its `down_revision` to the other head.",
    "If both are already deployed somewhere, create a merge revision: `alembic merge -m 'merge heads' <rev1> <rev2>`.",
    "Run `alembic upgrade head` against a local DB and `pytest backend/tests/migrations` before pushing."],
   "`alembic heads` prints exactly one revision and the migration CI job passes.",
   root_cause="Two PRs created migrations from the same parent revision.", conf=0.9)

rb("migration-waiting-for-lock-timeout", "Migration hangs waiting for a lock: set lock_timeout and retry", "2024-07-30",
   "migrations postgres locks alembic deploys lock_timeout",
   "The migration job of a deploy has been running for minutes; `pg_stat_activity` shows the ALTER TABLE `waiting` on a lock.",
   ["Find the blocker: `SELECT pid, query, state, xact_start FROM pg_stat_activity WHERE pid = ANY(pg_blocking_pids(<migration_pid>));`.",
    "If the blocker is an idle-in-transaction session or a long report query, terminate it with `pg_terminate_backend(pid)`.",
    "Make sure the migration sets `SET lock_timeout = '5s'` (our `env.py` does this by default) so it fails fast instead of queueing other queries behind it.",
    "Re-run the deploy; the migration job is safe to retry."],
   "Migration job completes and no queries are stuck behind it (`pg_locks` has no waiting rows).",
   root_cause="ALTER TABLE needs an ACCESS EXCLUSIVE lock; while it waits, every new query on the table queues behind it.",
   files="backend/migrations/env.py", conf=0.9)

rb("create-index-concurrently-alembic", "Create indexes CONCURRENTLY in an Alembic migration", "2025-07-29",
   "alembic migrations postgres index concurrently",
   "You need a new index on a large table (shipments, tracking_events, audit_events).",
   ["Use `with op.get_context().autocommit_block(): op.create_index(..., postgresql_concurrently=True)`.",
    "Add `if_not_exists=True` so a retried migration does not fail.",
    "If a previous attempt failed, drop the INVALID index first (`SELECT indexrelid::regclass FROM pg_index WHERE NOT indisvalid`).",
    "Connect directly to RDS (not PgBouncer) for the migration job."],
   "`\\d shipments` shows the index without INVALID.",
   symptoms=["ActiveSqlTransaction: CREATE INDEX CONCURRENTLY cannot run inside a transaction block"], conf=0.9)

rb("saml-login-clock-skew", "SAML login fails with \"Response has expired\" (NotOnOrAfter clock skew)", "2024-09-19",
   "auth saml sso login clock-skew okta azure-ad",
   "A tenant reports SSO login failing; harbor-auth logs `OneLogin_Saml2_ValidationError: Could not validate timestamp: expired`.",
   ["Check the tenant's SAML connection in the admin UI and look at the last failed assertion in `saml_login_attempts`.",
    "Compare `NotOnOrAfter` / `IssueInstant` with our server time; more than 60s drift means the IdP clock is off or the assertion lifetime is very short.",
    "Our tolerance is set by `SAML_ALLOWED_CLOCK_DRIFT` (default 120s). Raising it up to 300s per tenant is acceptable.",
    "Ask the customer IT to check NTP on ADFS (Okta/Azure AD are never skewed)."],
   "The user can log in and `saml_login_attempts` shows `status=success`.",
   symptoms=["Response has expired", "Could not validate timestamp", "SSO redirect loop"], conf=0.85)

rb("rotate-tenant-saml-certificate", "Rotate a tenant's SAML IdP signing certificate", "2025-04-15",
   "auth saml certificate rotation sso enterprise",
   "Customer IT announces an IdP certificate rollover, or logins fail with `Signature validation failed`.",
   ["Get the new IdP metadata XML (or the new certificate) from the customer.",
    "In the admin UI open the tenant's SAML connection and add the new certificate as 'secondary' so both are accepted.",
    "After the customer switches, remove the old certificate.",
    "The `saml-cert-expiry` daily job warns 30 days before any stored certificate expires."],
   "Test login via the 'Test SSO' button succeeds with the new certificate.",
   symptoms=["Signature validation failed. SAML Response rejected"], conf=0.85)

rb("rotate-jwt-signing-keys", "Rotate JWT signing keys (JWKS) without logging users out", "2025-08-20",
   "auth jwt jwks key-rotation security tokens",
   "Scheduled quarterly rotation, or suspected key compromise.",
   ["Generate a new RSA key: `python -m harbor_auth.keys generate --kid <yyyy-mm>`; it is stored in Secrets Manager.",
    "Publish it in JWKS as inactive (`keys publish`); wait 1 hour so all services refresh their JWKS cache.",
    "Activate it for signing (`keys activate <kid>`); old tokens still verify with the old key.",
    "After 24 hours (max refresh window) remove the old key from JWKS. For a compromise, remove immediately and accept forced re-logins."],
   "`curl https://auth.harbor.io/.well-known/jwks.json` lists the new kid and new tokens carry it in the header.",
   files="services/auth/harbor_auth/keys.py", conf=0.9)

rb("respond-to-leaked-api-key", "Respond to a leaked customer API key", "2025-07-08",
   "auth api-keys security incident secrets-scanning",
   "GitHub secret scanning notifies us of an `hbr_live_` key in a public repo, or a customer reports a leak.",
   ["Look up the key by its last 4 characters and prefix in the admin UI to identify the tenant.",
    "Revoke it immediately (`Revoke` in the admin UI); revocation is effective within 60 seconds (cache TTL).",
    "Check `api_request_log` for usage of that key from unknown IPs in the last 30 days.",
    "Email the tenant admin with the template 'API key exposed' and ask them to create a new key."],
   "Requests with the old key return 401 `api_key.revoked`.",
   conf=0.9)

rb("replay-failed-stripe-webhooks", "Replay failed Stripe webhooks", "2024-11-21",
   "stripe webhooks billing replay",
   "Stripe dashboard shows failed webhook deliveries (e.g. during an outage), or invoices are `paid` in Stripe but `open` in Harbor.",
   ["List failed events: `stripe events list --delivery-success=false --limit 100` (Stripe CLI, prod restricted key).",
    "Our handler is idempotent by `event.id` (table `stripe_events`), so resending is safe: `stripe events resend <evt_id>`.",
    "For many events use `python -m harbor.billing.stripe_sync replay --since 2024-11-20T00:00Z`.",
    "Check `stripe_events` for rows with `status=failed` and look at the error column."],
   "No failed deliveries remain in the Stripe dashboard and invoice statuses match.",
   files="backend/harbor/billing/webhooks.py", conf=0.9)

rb("stripe-signatureverificationerror", "Stripe webhooks failing with `SignatureVerificationError`", "2025-03-04",
   "stripe webhooks signature billing errors",
   "All Stripe webhooks return 400 and Sentry shows `stripe.error.SignatureVerificationError: No signatures found matching the expected signature for payload`.",
   ["Check that `STRIPE_WEBHOOK_SECRET` matches the endpoint's signing secret (each endpoint has its own `whsec_`); it was rotated in the dashboard?",
    "Make sure the handler verifies the raw request body (`await request.body()`), not re-serialized JSON; a middleware that parses JSON breaks the signature.",
    "Check for proxy changes (gzip, body rewriting) at the ingress.",
    "After fixing, replay failed events (see replay-failed-stripe-webhooks)."],
   "Webhook deliveries return 200 in the Stripe dashboard.",
   root_cause="In March 2025 a new request-logging middleware consumed and re-encoded the body.", conf=0.9)

rb("stripe-usage-records-missing", "Stripe invoice missing shipment usage: re-report usage records", "2026-10-24",
   "stripe billing usage metered invoices celery",
   "A customer's draft invoice shows fewer shipments than the Harbor usage page, or the `billing-usage-report` monitor alerts on a failed hour.",
   ["Find the gap: `python -m harbor.billing.usage audit --tenant <id> --period 2026-10`.",
    "Re-report the missing hours: `python -m harbor.billing.usage report --tenant <id> --from <ts> --to <ts>`; it uses idempotency keys `usage:<tenant>:<hour>` so duplicates are ignored by Stripe.",
    "Draft invoices are finalized 1 hour after period end; if already finalized, create a one-off invoice item instead and tell finance."],
   "The audit command reports no gaps and the Stripe draft invoice quantity matches.",
   root_cause="Hourly usage job failed silently during the broker Redis OOM incident.", conf=0.8)

rb("kafka-consumer-lag-shipment-events", "Consumer lag alert on `shipments.shipment.status_changed.v1`", "2025-01-09",
   "kafka consumer-lag events tracking webhooks",
   "Datadog monitor 'kafka lag > 50k for tracking-webhooks consumer group' fires; customers report delayed tracking webhooks.",
   ["Check lag per partition: `kafka-consumer-groups --bootstrap-server $MSK --describe --group tracking-webhooks`.",
    "If one partition lags: look for a poison message in consumer logs (`Failed to process event` with the same offset repeating).",
    "Poison messages are sent to the DLQ topic after 5 attempts; if the consumer predates that logic, skip the offset (see reset-kafka-consumer-offsets).",
    "If all partitions lag: scale the `events-consumer` deployment up to the partition count (24)."],
   "Lag trending down in the Datadog Kafka dashboard; webhook delivery latency back under 1 minute.",
   symptoms=["tracking webhooks delayed", "consumer lag alert"], conf=0.85,
   upd="2026-10-19", changes=[("2026-10-19", "Partition count raised from 12 to 24.")])

rb("reset-kafka-consumer-offsets", "Reset a Kafka consumer group's offsets", "2025-01-09",
   "kafka offsets consumer-group replay",
   "Need to replay events (bug fix in consumer) or skip a poison message.",
   ["Stop the consumer deployment: `kubectl scale deploy/events-consumer --replicas=0`.",
    "Dry run: `kafka-consumer-groups --group <g> --topic <t> --reset-offsets --to-datetime 2025-01-08T00:00:00.000 --dry-run`.",
    "Execute with `--execute`. To skip one message use `--shift-by 1` on that partition (`<topic>:<partition>`).",
    "Scale the consumer back up. Consumers are idempotent by `event_id`, replays are safe."],
   "`--describe` shows the new offsets and the consumer processes without errors.",
   conf=0.85)

rb("outbox-relay-stuck", "Outbox relay stuck: domain events not published to Kafka", "2025-02-20",
   "kafka outbox events relay postgres",
   "`outbox_events` rows with `sent_at IS NULL` older than 5 minutes (monitor `outbox_backlog`).",
   ["Check relay logs: `kubectl logs deploy/outbox-relay`. Common causes: MSK auth failure after IAM change, or a row with a payload that fails Avro serialization.",
    "For serialization failures the relay marks rows `failed` after 10 attempts; inspect them with `SELECT id, topic, last_error FROM outbox_events WHERE status='failed'`.",
    "Fix the schema or payload and reset `status='pending'` for those rows.",
    "Restart the relay (`kubectl rollout restart deploy/outbox-relay`). Only one replica runs (advisory lock)."],
   "Backlog metric returns to 0.", conf=0.8)

rb("opensearch-reindex-alias-swap", "Reindex the shipments index with zero downtime (alias swap)", "2025-02-13",
   "opensearch search reindex alias mapping",
   "A mapping change (new analyzer, new field type) requires a reindex of `shipments`.",
   ["Create the new index `shipments_v<N+1>` with the new mapping from `services/search/mappings/`.",
    "Start dual-writing: set `SEARCH_WRITE_INDEXES=shipments_vN,shipments_vN+1` on the search indexer and restart it.",
    "Run `_reindex` from vN to vN+1 with `slices=auto` and `wait_for_completion=false`; poll the task.",
    "Compare document counts, then atomically move the `shipments` alias to vN+1 with one `_aliases` call.",
    "Keep vN for 7 days, then delete it and stop dual-writing."],
   "Alias `shipments` points to the new index; search smoke tests pass; counts match within 0.1%.",
   files="services/search/mappings/shipments.json", conf=0.85)

rb("opensearch-cluster-yellow", "OpenSearch cluster yellow or red after a node replacement", "2026-05-26",
   "opensearch search cluster shards health",
   "Cluster health monitor shows yellow/red, often after AWS blue/green domain updates.",
   ["`GET _cluster/health` and `GET _cat/shards?v&h=index,shard,prirep,state,unassigned.reason`.",
    "For yellow (replicas unassigned) wait for the blue/green to finish; check `_cluster/allocation/explain` if it lasts > 1h.",
    "Red with disk watermark: free space by deleting old `shipments_v*` indexes or scaling storage in Terraform.",
    "Search API keeps serving from primaries; red means partial results, so post in #status."],
   "`_cluster/health` is green.", conf=0.8)

rb("postgres-too-many-connections", "\"FATAL: too many connections\" / PgBouncer pool exhausted", "2024-09-26",
   "postgres pgbouncer connections rds database",
   "Errors `FATAL: sorry, too many clients already` or PgBouncer `no more connections allowed (max_client_conn)`.",
   ["Check PgBouncer: `SHOW POOLS;` on the admin console (cl_waiting > 0 means waiting clients).",
    "Look for idle-in-transaction sessions in RDS: `SELECT pid, state, xact_start, query FROM pg_stat_activity WHERE state = 'idle in transaction'`.",
    "Something connecting directly to RDS (ad-hoc scripts, migrations running in parallel) bypasses the pool; find it by `application_name`.",
    "Do not raise `max_connections` in RDS as a fix; raise pool size only after checking CPU."],
   "`cl_waiting` is 0 and connection errors stop.", conf=0.85)

rb("find-and-kill-blocking-queries", "Find and kill blocking queries in Postgres", "2025-09-09",
   "postgres locks queries performance pg_stat_activity",
   "API latency spike with many requests waiting; Datadog shows lock waits on RDS.",
   ["Run `SELECT pid, pg_blocking_pids(pid), wait_event_type, state, query_start, left(query, 120) FROM pg_stat_activity WHERE cardinality(pg_blocking_pids(pid)) > 0;`.",
    "Identify the root blocker (a pid that blocks others but is not itself blocked).",
    "Try `pg_cancel_backend(pid)` first, then `pg_terminate_backend(pid)`.",
    "Record the query in the incident doc; long report queries should move to the replica."],
   "No rows returned by the blocking query and latency recovers.", conf=0.85)

rb("integrityerror-duplicate-shipment-external-ref", "IntegrityError duplicate key on `shipments_tenant_external_ref_key` during imports", "2025-03-11",
   "postgres integrityerror imports csv shipments duplicate",
   "Import jobs fail with `sqlalchemy.exc.IntegrityError: duplicate key value violates unique constraint \"shipments_tenant_external_ref_key\"`.",
   ["Check whether the customer re-uploaded the same file: compare `import_jobs.file_sha256` with previous jobs.",
    "The importer should use `INSERT ... ON CONFLICT (tenant_id, external_ref) DO UPDATE`; make sure the tenant is not on the legacy importer.",
    "If the CSV itself contains duplicate references, the import report lists them; ask the customer to fix or enable 'merge duplicates' for the job.",
    "Re-run only failed chunks: `python -m harbor.imports requeue <job_id> --failed-only`."],
   "Job completes with 0 failed rows or the duplicates are reported to the customer.",
   root_cause="Legacy importer did a plain INSERT per row; retries after a worker crash re-inserted already committed chunks.",
   conf=0.85, upd="2026-10-21",
   changes=[("2026-10-21", "Test `test_import_duplicate_refs` now covers the ON CONFLICT path.")])

rb("exports-stale-read-replica-lag", "CSV exports show stale data: check read replica lag", "2026-07-28",
   "postgres read-replica replication-lag exports reports",
   "Customer says a shipment they just updated is missing or old in an export.",
   ["Check `ReplicaLag` in CloudWatch / Datadog `aws.rds.replica_lag`.",
    "If lag > 30s, look for long-running queries on the replica causing replay conflicts (`max_standby_streaming_delay`).",
    "For urgent exports, run with `--use-primary` (needs on-call approval during business hours)."],
   "Replica lag < 1s and the re-run export contains the change.", conf=0.8)

rb("rollback-bad-production-deploy", "Roll back a bad production deploy", "2024-11-28",
   "deploys rollback helm kubernetes incident release",
   "Error rate or latency alerts right after a release, or a critical bug found in production.",
   ["Announce in #incidents and pause the release train.",
    "Run the 'Rollback' GitHub workflow with the service name; it runs `helm rollback <release> 0` (previous revision) for api, workers and auth.",
    "Check whether the release contained a migration. With expand/contract the previous release works on the new schema; do NOT run alembic downgrade.",
    "If a LaunchDarkly flag caused it, turn the flag off instead of rolling back.",
    "Open an incident doc and create a follow-up ticket for the fix."],
   "`helm history <release>` shows the rollback revision deployed, and error rate is back to baseline in Datadog.",
   files=".github/workflows/rollback.yml", conf=0.9)

rb("production-deploy-rollback-ko", "운영 배포 롤백 절차 (helm rollback + DB 마이그레이션 확인)", "2025-02-18",
   "배포 롤백 운영 helm 장애 deploy rollback",
   "운영 배포 직후 5xx 에러율 급증, 지연 증가, 또는 치명적 버그가 발견된 경우.",
   ["#incidents 채널에 롤백 진행을 공지하고 릴리스 트레인을 중지한다.",
    "GitHub Actions의 'Rollback' 워크플로를 서비스 이름으로 실행한다 (내부적으로 `helm rollback <release> 0`).",
    "해당 릴리스에 DB 마이그레이션이 있었는지 확인한다. expand/contract 원칙상 이전 버전도 새 스키마에서 동작하므로 `alembic downgrade`는 실행하지 않는다.",
    "LaunchDarkly 플래그 문제라면 롤백 대신 플래그를 끈다.",
    "서울 시간 기준 야간이면 EU 온콜에게 인수인계한다."],
   "`helm history`에 롤백 리비전이 배포되어 있고 Datadog 에러율이 평소 수준으로 돌아오면 완료.",
   symptoms=["배포 후 5xx 증가", "p95 지연 급증"], conf=0.85,
   upd="2026-10-15", changes=[("2026-10-15", "Argo Rollouts 카나리 도입 예정 내용 메모 추가.")])

rb("pods-crashloopbackoff-after-deploy", "Pods in CrashLoopBackOff after a deploy", "2025-10-09",
   "kubernetes crashloopbackoff pods deploys eks helm",
   "`kubectl get pods -n harbor` shows CrashLoopBackOff for a new ReplicaSet; Helm upgrade times out.",
   ["`kubectl describe pod <pod>` for events (image pull, probe failures, OOMKilled).",
    "`kubectl logs <pod> --previous` for the crash reason; the usual suspects are a missing env var (ExternalSecret not synced) or an ImportError at startup.",
    "Check `kubectl get externalsecret -n harbor`; `SecretSyncedError` means the Secrets Manager key is missing.",
    "If it cannot be fixed quickly, roll back (see rollback-bad-production-deploy)."],
   "All pods Running and Ready, Helm release status `deployed`.", conf=0.85)

rb("terraform-state-lock-stuck", "Terraform state lock stuck (\"Error acquiring the state lock\")", "2025-08-12",
   "terraform state lock dynamodb infra",
   "`terraform plan/apply` fails with `Error acquiring the state lock: ConditionalCheckFailedException` and nobody else is running Terraform.",
   ["Check the lock info printed (Who, Created). Ask in #infra whether someone is applying.",
    "Check GitHub Actions for a cancelled `terraform-apply` run; cancelled runs leave the lock behind.",
    "If you are sure it is stale: `terraform force-unlock <LOCK_ID>` from the same environment directory.",
    "Run `terraform plan` to make sure state is consistent."],
   "Plan runs without lock errors.", conf=0.9)

rb("clear-github-actions-cache", "Clear a poisoned GitHub Actions cache", "2026-08-27",
   "ci github-actions cache dependencies",
   "CI fails with errors that do not reproduce locally, e.g. old `node_modules` or a broken uv cache after a lockfile change.",
   ["List caches: `gh cache list --repo harbor/harbor --key node-`.",
    "Delete the suspicious key(s): `gh cache delete <key>` or `gh cache delete --all` for a branch.",
    "Cache keys must include the lockfile hash (`hashFiles('**/uv.lock')`); fix the workflow if they do not.",
    "Re-run the failed job."],
   "Job passes with a fresh cache miss followed by a cache save.",
   files=".github/workflows/ci.yml", conf=0.8)

rb("ci-no-space-left-on-device", "CI fails with \"No space left on device\" during Docker builds", "2026-02-10",
   "ci github-actions docker disk runners",
   "Docker build steps on GitHub-hosted runners fail with `no space left on device`.",
   ["Add the `free-disk-space` step (removes Android SDK, .NET, Haskell) before the build; it frees ~30GB.",
    "Use `docker buildx` with `--cache-to type=gha,mode=max` instead of loading intermediate images.",
    "For the backend image, make sure `.dockerignore` excludes `web/node_modules` and `mobile/`."],
   "The build completes; `df -h` in the step shows > 10GB free.", conf=0.8)

rb("vite-build-javascript-heap-out-of-memory", "Vite build fails with \"JavaScript heap out of memory\" in CI", "2026-01-22",
   "web vite build ci node memory",
   "`npm run build` in the web job fails with `FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory`.",
   ["Set `NODE_OPTIONS=--max-old-space-size=6144` for the build step (runners have 7GB).",
    "Check for a new giant dependency with `npx vite-bundle-visualizer`; the last time it was a full `lodash` import and source maps of ag-grid.",
    "Make sure `build.sourcemap` is `hidden`, not `true`, for production builds."],
   "Build completes in CI.", conf=0.8)

rb("sentry-source-maps-missing", "Sentry shows minified stack traces: source maps not uploaded", "2025-01-16",
   "sentry source-maps web release ci",
   "Web errors in Sentry show `index-3f2a.js:1:48213` instead of TypeScript files.",
   ["Check the release in Sentry: Artifacts tab should list `.map` files for the release name (git SHA).",
    "The upload runs in the web deploy workflow via `@sentry/vite-plugin`; it needs `SENTRY_AUTH_TOKEN` and the same `release` as the SDK init.",
    "Make sure the release name in `web/src/sentry.ts` comes from `import.meta.env.VITE_RELEASE`, set to the git SHA.",
    "Re-run the upload for an existing release with `sentry-cli sourcemaps upload --release <sha> dist/`."],
   "A new error shows the original TypeScript file and line.", conf=0.85)

rb("sentry-quota-error-storm", "Sentry quota burned by an error storm", "2026-04-14",
   "sentry quota errors observability rate-limit",
   "Sentry email 'You have used 80% of your error quota' mid-month, usually one issue with millions of events.",
   ["Find the issue with most events in the last 24h.",
    "Add a spike protection / inbound filter for it, or drop it in `before_send` if it is expected (e.g. client disconnects).",
    "If it is a real bug, fix it; meanwhile set the issue's rate limit in project settings.",
    "Ask the Sentry admin (platform lead) for on-demand budget only if errors in other projects are being dropped."],
   "Event rate back to normal in the Stats page.", conf=0.75)

rb("ios-push-notifications-stopped", "iOS push notifications stopped for the driver app (APNs)", "2026-04-09",
   "mobile push-notifications ios apns expo driver-app",
   "Drivers on iOS stop receiving new assignment notifications; Android works.",
   ["Check Expo push receipts: errors `InvalidCredentials` mean the APNs key is invalid or revoked.",
    "Verify the APNs key in `eas credentials` for the production profile; re-upload the .p8 key from the Apple developer account (team ID in 1Password 'Apple Developer').",
    "If `DeviceNotRegistered`, the token is stale; the app re-registers on next launch.",
    "Send a test push with `npx expo-push-test <token>`."],
   "Test push arrives on an iOS device and receipts show `ok`.", conf=0.8)

rb("rollback-eas-update", "Roll back a bad EAS Update (OTA) of the driver app", "2026-10-04",
   "mobile eas expo ota rollback driver-app",
   "A JS-only OTA update to the `production` channel causes crashes or a broken flow for drivers.",
   ["Run `eas update:rollback --channel production` and pick the previous update group; or republish the last good one with `eas update:republish --group <id>`.",
    "Check crash-free sessions in Sentry release health for the update id.",
    "If the problem needs native code, OTA cannot fix it: submit a hotfix build and use the min-version gate in `/v1/app-config`."],
   "New app launches download the previous update and crash-free rate recovers above 99.5%.", conf=0.8)

rb("eas-android-build-duplicate-class", "EAS Android build fails with Gradle \"Duplicate class\" errors", "2026-04-28",
   "mobile android gradle eas build expo",
   "EAS build log: `Execution failed for task ':app:checkReleaseDuplicateClasses'. Duplicate class com.google.android.gms...`.",
   ["Usually two libraries pull different Play Services versions; check recent `package.json` changes.",
    "Pin versions via the `expo-build-properties` plugin or a config plugin that adds `resolutionStrategy`.",
    "Run `npx expo prebuild --clean` locally and `./gradlew app:dependencies` to find the conflict."],
   "EAS build completes and the app installs on a test device.", conf=0.75)

rb("celery-beat-duplicate-periodic-tasks", "Celery beat runs periodic tasks twice after a deploy", "2024-09-12",
   "celery beat duplicates periodic-tasks deploys",
   "Customers get duplicate daily summary emails after a deploy.",
   ["Check whether two `beat` pods were running at the same time (`kubectl get pods -l app=beat`).",
    "Set the beat deployment strategy to `Recreate` so the old pod stops before the new one starts.",
    "Delete the extra pod manually if it is still running."],
   "Only one beat pod; next run sends a single email.",
   status="retired", when="2025-05-06",
   why="Obsolete since RedBeat (redbeat-celery-beat-scheduler) holds a lock; duplicates can no longer happen.", conf=0.5)

rb("purge-stuck-celery-queue", "Drain or purge a stuck Celery queue", "2024-10-17",
   "celery queues purge redis workers backlog",
   "A queue has a huge backlog of tasks that are useless or harmful (e.g. a runaway retry loop enqueued 2M webhook tasks).",
   ["Stop the producer first (feature flag or scale the producing deployment to 0).",
    "Inspect: `celery -A harbor.worker inspect active_queues` and `redis-cli -h $REDIS_BROKER_HOST LLEN webhooks`.",
    "Purge only the affected queue: `celery -A harbor.worker purge -Q webhooks -f`. Never purge `default` without asking billing owners, it contains invoice tasks.",
    "If tasks must be kept, move them with `python -m harbor.worker.tools requeue --from webhooks --to webhooks_slow --filter <task_name>`."],
   "Queue length back to normal and workers processing new tasks.", conf=0.85,
   upd="2026-10-11", changes=[("2026-10-11", "Check broker memory (OOM command not allowed) before purging.")])

rb("celery-long-tasks-prefetch", "Long Celery tasks block short ones: set prefetch multiplier to 1", "2025-08-26",
   "celery prefetch workers latency queues worker_prefetch_multiplier",
   "Short label tasks wait minutes although workers look idle; some workers have many reserved tasks.",
   ["Run `celery -A harbor.worker inspect reserved` to see tasks reserved but not started.",
    "Set `worker_prefetch_multiplier=1` for queues with long tasks (imports) and keep `acks_late=True`.",
    "Make sure long tasks are routed to the `imports` queue, not `default`."],
   "`inspect reserved` shows at most one reserved task per process; label latency p95 < 10s.",
   files="backend/harbor/worker/celery_app.py", conf=0.85)

rb("carrier-outage-label-failures", "Carrier API outage: label purchases failing", "2025-03-27",
   "carriers outage labels circuit-breaker incident",
   "Spike of `CarrierUnavailable` errors and the circuit breaker for a carrier is open (Datadog `carrier.breaker.open`).",
   ["Confirm on the carrier status page / developer portal.",
    "Post the customer-facing status message in Statuspage ('Label creation delayed for <carrier>').",
    "Label tasks are retried with backoff for 2 hours; nothing needs to be requeued unless the outage is longer.",
    "If it lasts > 2h, run `python -m harbor.labels requeue-failed --carrier <code> --since <ts>` after recovery.",
    "Suggest customers use rate shopping to another carrier in the meantime."],
   "Breaker closed and failed label count returns to 0.", conf=0.85)

rb("fedex-api-401-token-refresh", "FedEx API returns 401: refresh carrier OAuth credentials", "2026-09-08",
   "carriers fedex oauth 401 credentials",
   "All FedEx requests fail with 401 `NOT.AUTHORIZED.ERROR`.",
   ["Carrier OAuth tokens are cached in Redis under `harbor:carriers:fedex:token:<account>`; delete it to force a refresh.",
    "If refresh fails, the client secret was likely rotated on the FedEx developer portal; update `harbor/prod/carriers/fedex` in Secrets Manager.",
    "Restart the carrier workers so ExternalSecret changes are picked up."],
   "A test rate quote for FedEx succeeds in the admin UI.", conf=0.8)

rb("econnreset-carrier-api-nat-idle-timeout", "`ECONNRESET` / `ConnectionResetError` from the DHL API after idle connections", "2026-03-31",
   "carriers dhl econnreset connection-reset nat httpx keepalive",
   "Sporadic `httpx.RemoteProtocolError` / `ConnectionResetError: [Errno 104] Connection reset by peer` on the first request after a quiet period; the carrier proxy (Node) logs `ECONNRESET`.",
   ["This is the AWS NAT gateway dropping idle TCP connections after 350s while our pool keeps them.",
    "Set the httpx client `keepalive_expiry=60` (Python) and `keepAliveMsecs`/`freeSocketTimeout=60000` in the Node carrier proxy agent.",
    "Make sure the request is covered by `retry_with_backoff` (GET/quote calls are)."],
   "No ECONNRESET errors over 24h in Sentry.",
   root_cause="NAT gateway idle timeout (350s) is shorter than the connection pool keepalive.", conf=0.85)

rb("korean-pdf-label-font-broken", "한글 PDF 라벨/송장 폰트 깨짐 (□□□ 표시) 해결", "2024-07-04",
   "pdf 폰트 한글 라벨 weasyprint labels fonts",
   "한국 고객 라벨이나 송장 PDF에서 한글이 네모(□)로 표시되거나 빈칸으로 나오는 경우.",
   ["`labels` 워커 이미지에 Noto Sans CJK KR 폰트가 있는지 확인: `kubectl exec deploy/worker-labels -- fc-list | grep -i 'Noto Sans CJK'`.",
    "템플릿 CSS의 `font-family`에 `'Noto Sans CJK KR'`가 첫 번째로 지정되어 있는지 확인한다.",
    "베이스 이미지를 바꾼 경우 `fonts-noto-cjk` 패키지가 빠졌을 수 있으니 Dockerfile을 확인하고 다시 빌드한다.",
    "캐시된 PDF는 `python -m harbor.documents regenerate --shipment <id>`로 다시 생성한다."],
   "다시 생성한 PDF에서 한글 주소와 이름이 정상 표시되면 완료.",
   root_cause="슬림 베이스 이미지로 변경하면서 CJK 폰트 패키지가 빠졌다.",
   files="backend/Dockerfile backend/harbor/documents/templates/label.html", conf=0.85)

rb("yamato-label-issue-error", "ヤマト運輸API: 送り状発行エラー時の対応", "2026-10-28",
   "ヤマト運輸 送り状 carriers yamato labels エラー",
   "日本テナントでヤマト運輸の送り状発行が失敗し、`YamatoApiError`がSentryに出ている場合。",
   ["エラーコードを確認する。`E0101`系は住所不備なので、配送先の郵便番号と住所の整合性を`harbor.addresses.validate()`で確認する。",
    "`E0500`系はヤマト側の障害。ヤマトB2クラウドのお知らせを確認し、復旧後に`python -m harbor.labels requeue-failed --carrier yamato`を実行する。",
    "認証エラーの場合はSecrets Managerの`harbor/prod-apne1/carriers/yamato`を確認する。",
    "顧客サポートには日本語テンプレート「送り状発行遅延のお知らせ」で連絡する。"],
   "再実行した送り状がPDFで発行され、Sentryのエラーが止まれば完了。",
   symptoms=["YamatoApiError", "送り状PDFが生成されない"], conf=0.75)

rb("production-incident-first-response-ja", "本番障害発生時の初動対応手順", "2025-04-24",
   "障害対応 インシデント on-call pagerduty 本番",
   "PagerDutyで本番アラートを受けた場合、または顧客から大規模な障害報告があった場合。",
   ["15分以内にPagerDutyでAcknowledgeし、Slackの#incidentsにインシデントチャンネルを作成する(`/incident new`)。",
    "影響範囲(テナント数、機能、リージョン)を確認し、重大度SEV1〜SEV3を決める。",
    "直近のデプロイが原因なら迷わずロールバックする(rollback-bad-production-deployを参照)。",
    "SEV1/SEV2ではStatuspageを更新し、30分ごとに状況を共有する。",
    "収束後、48時間以内にポストモーテムを書く。"],
   "アラートが解消し、Statuspageが'Resolved'になっていること。", conf=0.8)

rb("gbk-csv-import-garbled", "客户上传GBK/GB18030编码的CSV导入后出现乱码", "2026-03-17",
   "csv 导入 编码 乱码 gbk gb18030 imports",
   "上海仓库客户用Excel导出的CSV导入后，收件人姓名和地址显示为乱码，或导入任务报`UnicodeDecodeError`。",
   ["在`import_jobs`中查看`detected_encoding`字段；Excel中文版默认导出GBK/GB18030而不是UTF-8。",
    "对该租户设置`import_default_encoding=gb18030`，然后用`python -m harbor.imports requeue <job_id>`重新导入。",
    "建议客户在Excel中选择“CSV UTF-8（逗号分隔）”格式导出。"],
   "重新导入后中文姓名和地址显示正常。",
   symptoms=["UnicodeDecodeError: 'utf-8' codec can't decode byte", "中文乱码"], conf=0.75)

rb("shift-jis-csv-import-garbled", "Japanese CSV imports garbled: Shift_JIS / CP932 encoding", "2025-05-29",
   "csv imports encoding shift_jis cp932 japanese unicodedecodeerror",
   "Japanese customers' imports fail with `UnicodeDecodeError` or names show as mojibake (e.g. `ç\u0081«`).",
   ["Excel in Japan saves CSV as CP932 by default. Check `import_jobs.detected_encoding`.",
    "Set the tenant setting `import_default_encoding=cp932` (not `shift_jis`: CP932 includes NEC/IBM extension characters like ① and ㈱).",
    "Requeue the job: `python -m harbor.imports requeue <job_id>`."],
   "Imported names and addresses display correctly in the shipment list.", conf=0.85)

rb("restore-soft-deleted-shipment", "Restore a soft-deleted shipment for a customer", "2026-09-17",
   "shipments soft-delete support restore",
   "Support ticket: customer deleted a shipment by mistake (within 400 days).",
   ["Find it: `SELECT id, deleted_at, deleted_by FROM shipments WHERE tenant_id = :t AND external_ref = :ref`.",
    "Restore through the admin endpoint `POST /admin/shipments/{id}/restore` so the audit log and search index are updated; do not UPDATE by hand.",
    "If deleted more than 400 days ago it was hard-deleted; only the audit log and S3 Parquet archive remain."],
   "Shipment visible again in the customer's list and search.", conf=0.85)

rb("handle-personal-data-deletion-request", "Handle a GDPR / PIPA personal data deletion request", "2026-01-29",
   "privacy gdpr pipa deletion pii compliance",
   "A data subject or tenant admin requests erasure of consignee personal data.",
   ["Create a ticket in the Privacy project and verify the requester via the tenant admin.",
    "Run `python -m harbor.privacy erase --tenant <id> --email <email> --dry-run`, review the affected rows, then run without `--dry-run`.",
    "The command anonymizes consignee name, phone, email and address in shipments, OpenSearch and S3 documents; billing records keep only tenant-level data.",
    "For KR/JP tenants run it in the regional deployment (ap-northeast-2 / ap-northeast-1).",
    "Reply within 30 days (GDPR) / 10 days (PIPA) using the template."],
   "Search for the email returns nothing and the privacy ticket is closed with the erase report attached.",
   conf=0.85)

rb("rds-storage-full", "RDS storage nearly full", "2026-02-18",
   "postgres rds storage disk database",
   "CloudWatch `FreeStorageSpace` < 10% alarm on harbor-prod.",
   ["Storage autoscaling should kick in; check whether `max_allocated_storage` in Terraform was reached.",
    "Find the biggest relations: `SELECT relname, pg_size_pretty(pg_total_relation_size(relid)) FROM pg_statio_user_tables ORDER BY 2 DESC LIMIT 20`.",
    "Usual culprits: `outbox_events` partitions not dropped, `idempotency_keys` cleanup job failing, WAL retained by an inactive replication slot (`pg_replication_slots`).",
    "Raise `max_allocated_storage` through Terraform if the growth is legitimate."],
   "FreeStorageSpace back above 25%.", conf=0.8)

rb("transaction-id-wraparound-warning", "Transaction ID wraparound warning: manual VACUUM FREEZE", "2026-06-23",
   "postgres vacuum wraparound autovacuum xid",
   "Datadog monitor on `age(datfrozenxid)` > 1.2 billion, or logs `WARNING: database \"harbor\" must be vacuumed within ... transactions`.",
   ["Find tables with the oldest xid: `SELECT relname, age(relfrozenxid) FROM pg_class WHERE relkind='r' ORDER BY 2 DESC LIMIT 10`.",
    "Check that autovacuum is not blocked by long transactions or idle-in-transaction sessions (kill them).",
    "Run `VACUUM (FREEZE, VERBOSE) <table>;` during low traffic, one table at a time, directly on RDS (not through PgBouncer).",
    "Consider lowering `autovacuum_freeze_max_age` for tracking_events."],
   "age(datfrozenxid) drops below 200M.", conf=0.8)

rb("pgbouncer-prepared-statement-does-not-exist", "\"prepared statement does not exist\" errors behind PgBouncer", "2026-10-18",
   "postgres pgbouncer psycopg prepared-statements errors",
   "Sporadic `psycopg.errors.InvalidSqlStatementName: prepared statement \"_pg3_0\" does not exist` or `DuplicatePreparedStatement` under load.",
   ["PgBouncer is in transaction pooling mode; server-side prepared statements do not survive across transactions.",
    "Make sure the engine is created with `connect_args={\"prepare_threshold\": None}` (psycopg 3) in `harbor.db.engine`.",
    "Check if a new service or script created its own engine without that setting (grep for `create_engine(`).",
    "Alternatively upgrade PgBouncer to >= 1.21 with `max_prepared_statements` once the platform team approves."],
   "No more prepared statement errors in Sentry for 24h.",
   root_cause="A new analytics script created an engine without disabling prepared statements.",
   files="backend/harbor/db/engine.py", conf=0.85)

rb("importerror-circular-import-shipments-billing", "`ImportError: cannot import name ... (most likely due to a circular import)` between harbor.shipments and harbor.billing", "2025-04-10",
   "python importerror circular-import shipments billing",
   "App or tests fail at startup with `ImportError: cannot import name 'Shipment' from partially initialized module 'harbor.shipments.models'`.",
   ["Find the cycle: usually `harbor.billing.usage` imports `harbor.shipments.models` at module level while `harbor.shipments.services` imports `harbor.billing`.",
    "Move type-only imports under `if TYPE_CHECKING:` and use string annotations.",
    "For runtime needs, import inside the function or depend on `harbor.shipments.api` (the public interface module) instead of models.",
    "Run `python -c 'import harbor.app'` and `lint-imports` (import-linter contracts) locally."],
   "App starts and import-linter contracts pass in CI.", conf=0.85)

rb("pydantic-v2-validation-error-shape", "Clients broke after Pydantic v2: validation error shape changed", "2025-08-07",
   "pydantic validationerror api errors fastapi migration",
   "Customer integrations or the web app fail to parse 422 responses after the Pydantic v2 upgrade.",
   ["v2 `ValidationError.errors()` has `type` values like `missing` / `string_type` instead of `value_error.missing`, and adds `url` and `input`.",
    "Our problem+json handler maps them to stable codes in `harbor.api.errors.VALIDATION_CODE_MAP`; add missing types there.",
    "Never return `input` to clients (it may contain PII).",
    "Add a contract test in `tests/api/test_error_format.py`."],
   "422 responses match the documented format and the contract test passes.", conf=0.85)

rb("reset-local-dev-environment", "Reset the local development environment", "2024-03-21",
   "local-dev docker-compose setup database seed",
   "Local stack is broken: migrations fail, stale volumes, ports in use.",
   ["`docker compose down -v` to remove containers and volumes (Postgres, both Redis, OpenSearch, Kafka).",
    "Check `docker-compose.override.yml` for personal overrides that may conflict (it is gitignored).",
    "`docker compose up -d`, then `make migrate` and `make seed` (creates tenant 'Acme Freight' and 500 shipments).",
    "Frontend: `cd web && npm ci && npm run dev`."],
   "http://localhost:5173 loads and you can log in as `dev@acme.test`.",
   files="docker-compose.yml docker-compose.override.yml Makefile", conf=0.85)

rb("new-developer-laptop-setup", "New developer laptop setup", "2024-02-01",
   "onboarding local-dev setup tooling",
   "A new engineer joins, or you reinstall your machine.",
   ["Install Docker Desktop (or OrbStack), `uv`, Node via `fnm` using `.nvmrc`, and the AWS CLI with SSO (`aws configure sso`, profile `harbor-dev`).",
    "Clone the monorepo and run `make bootstrap` (installs pre-commit hooks, Python and Node deps).",
    "Ask in #platform for access to the GitHub team, Sentry, Datadog, LaunchDarkly and 1Password vaults.",
    "Follow reset-local-dev-environment to start the stack."],
   "`make test-quick` passes and the local web app loads.", conf=0.8,
   upd="2025-07-18", changes=[("2025-07-18", "Replaced Poetry steps with uv.")])

rb("cert-manager-certificate-not-renewing", "cert-manager certificate not renewing (ingress TLS)", "2026-06-09",
   "kubernetes tls certificates cert-manager ingress letsencrypt",
   "Alert: certificate for `api.harbor.io` expires in < 14 days.",
   ["`kubectl describe certificate -n harbor api-tls` and the related `CertificateRequest` / `Order` / `Challenge`.",
    "DNS-01 challenges failing usually means the Route53 IAM role for cert-manager lost permissions (check IRSA annotation).",
    "Delete the failed `Order` to retry after fixing."],
   "Certificate `Ready=True` with a new `notAfter` date.", conf=0.75)

rb("rotate-rds-master-password", "Rotate the RDS application password", "2025-01-30",
   "postgres rds secrets rotation security secrets-manager",
   "Quarterly rotation or after someone left the team who had the password.",
   ["Rotation uses Secrets Manager's rotation Lambda (alternating users `harbor_app_a` / `harbor_app_b`), so no downtime.",
    "Trigger: `aws secretsmanager rotate-secret --secret-id harbor/prod/db/app`.",
    "External Secrets syncs within 5 minutes; PgBouncer reads `userlist.txt` from the synced secret and reloads.",
    "Verify the old user still works until the next rotation; never rotate twice within an hour."],
   "App connects successfully and the secret's `AWSCURRENT` version changed.", conf=0.8)

rb("eks-cluster-minor-upgrade", "EKS cluster minor version upgrade", "2026-10-08",
   "kubernetes eks upgrade terraform karpenter",
   "EKS version approaching end of standard support (upgrade every ~6 months).",
   ["Read the Kubernetes deprecation guide for the target version and run `pluto detect-helm -o wide` for removed APIs.",
    "Upgrade staging first: bump `cluster_version` in `infra/terraform/envs/staging/eks.tf` and apply.",
    "Upgrade add-ons (vpc-cni, coredns, kube-proxy, ebs-csi) to versions compatible with the new minor.",
    "Roll nodes: Karpenter drift replaces nodes automatically; watch PodDisruptionBudgets for workers.",
    "Repeat for prod on a Tuesday morning KST, not during the release train."],
   "`kubectl version` shows the new server version and all nodes are on the new AMI.",
   files="infra/terraform/envs/prod/eks.tf", conf=0.8)

rb("quarantine-flaky-test", "Quarantine a flaky test", "2025-04-29",
   "testing flaky-tests pytest quarantine ci",
   "A test fails intermittently on main and blocks merges.",
   ["Confirm it is flaky: it passes on re-run of the same SHA, or fails only with certain pytest-randomly seeds.",
    "Mark it `@pytest.mark.quarantine(ticket=\"HBR-1234\")` (Playwright: `test.fixme` with the ticket id); quarantined tests run in a separate non-blocking CI job.",
    "Create the ticket with the failure log and seed, assign it to the owning team (CODEOWNERS).",
    "Quarantine must not exceed 14 days; the weekly flaky report lists overdue tests."],
   "Main is green and the test appears in the quarantine job output.", conf=0.85,
   upd="2026-10-09", changes=[("2026-10-09", "Quarantine job now runs per xdist worker; seed printed per worker.")])

rb("reproduce-random-order-test-failure", "Reproduce a random-order test failure with the pytest-randomly seed", "2025-05-08",
   "testing pytest pytest-randomly flaky-tests seed",
   "A backend test fails in CI but passes locally.",
   ["Copy the seed from the CI log line `Using --randomly-seed=1234567`.",
    "Run locally: `pytest -p randomly --randomly-seed=1234567 backend/tests/<module>`.",
    "Bisect test order with `pytest --randomly-seed=... -x` and `pytest-randomly`'s `--randomly-dont-reorganize` to check order-dependence.",
    "Typical causes: module-level caches (`functools.lru_cache` on settings), time not frozen, leftover Redis keys from a test without the `redis_clean` fixture."],
   "The failure reproduces locally, then passes after the fix with the same seed.", conf=0.85)

rb("debug-playwright-trace-viewer", "Debug a failing Playwright test with the trace viewer", "2026-02-19",
   "web e2e playwright testing debugging ci",
   "A Playwright test fails in CI.",
   ["Download the `playwright-report` artifact from the CI run; traces are recorded on first retry.",
    "Open it: `npx playwright show-trace trace.zip` and step through actions, network and console.",
    "Prefer `getByRole` locators and web-first assertions (`await expect(...).toBeVisible()`) over `waitForTimeout`.",
    "Run locally in UI mode: `npx playwright test e2e/checkout.spec.ts --ui`."],
   "Test passes locally and in CI three times in a row.", conf=0.8)

rb("customer-not-receiving-webhooks", "Customer says they are not receiving tracking webhooks", "2026-10-30",
   "webhooks customers support tracking delivery",
   "Support ticket: 'we stopped getting webhooks'.",
   ["Open the tenant's webhook endpoints in the admin UI; endpoints are auto-disabled after 3 days of consecutive failures.",
    "Check `webhook_deliveries` for recent status codes: 401/403 usually means their firewall or signature check; timeouts mean their endpoint is slow (> 10s).",
    "If the endpoint is disabled, ask them to fix it and re-enable; missed events can be replayed with `python -m harbor.webhooks replay --endpoint <id> --since <ts>`.",
    "Also check consumer lag on the tracking webhooks group (kafka-consumer-lag-shipment-events)."],
   "New deliveries show 2xx for the endpoint.", conf=0.85)

rb("customer-hitting-rate-limit-429", "Customer hitting 429 Too Many Requests on the public API", "2026-10-12",
   "api rate-limiting 429 customers support",
   "Customer reports `429 Too Many Requests` or Datadog shows one API key throttled constantly.",
   ["Look at their traffic in Datadog (`api.ratelimit.throttled` by `api_key_id`); usually polling /v1/tracking in a tight loop.",
    "Suggest webhooks instead of polling and `Retry-After`-aware retries.",
    "Temporary raise: set `rate_limit_override` (requests/min) on the API key in the admin UI with an expiry date; max 5,000 without engineering lead approval."],
   "Throttled count for the key drops to near zero.", conf=0.8)

rb("on-call-handover-checklist", "On-call handover checklist (APAC <-> EU)", "2026-01-06",
   "on-call handover pagerduty incidents",
   "End of your on-call shift (20:00 KST / 20:00 CET).",
   ["Post in #oncall: open incidents, alerts that fired and were silenced, and anything deployed in your shift.",
    "List running manual operations (reindex, backfill, data fix) with their commands and where to check progress.",
    "Hand over PagerDuty override if someone is covering for you.",
    "Make sure silences in Datadog have an expiry."],
   "Next on-call acknowledged the handover message.", conf=0.8)

rb("ship-hotfix-outside-release-train", "Ship a hotfix outside the weekly release train", "2025-09-30",
   "release hotfix deploys cherry-pick",
   "A SEV1/SEV2 bug in production cannot wait for the next Tuesday release.",
   ["Merge the fix to `main` first (with tests).",
    "Run the 'Hotfix' workflow with the current release tag and the fix commit SHA; it cherry-picks onto `release/<tag>` and builds `<tag>-hotfix.N`.",
    "Deploy to staging, run smoke tests, then promote to prod (needs one approval).",
    "Announce in #releases."],
   "Hotfix tag deployed and the bug verified fixed in prod.", conf=0.85)

rb("launchdarkly-kill-switch", "Disable a misbehaving feature in production with a LaunchDarkly kill switch", "2026-05-07",
   "feature-flags launchdarkly incident kill-switch",
   "A newly released feature is causing errors but the rest of the release is fine.",
   ["Find the flag key in the PR or in `harbor/flags.py` / `web/src/lib/flags.ts`.",
    "In LaunchDarkly prod, turn targeting off (serves the off variation) and add a comment with the incident link.",
    "Backend caches flag values for 30s; web clients pick up changes via streaming."],
   "Errors stop within a minute; Sentry issue volume drops.", conf=0.85)

rb("s3-presigned-upload-403-signaturedoesnotmatch", "Presigned S3 upload returns 403 `SignatureDoesNotMatch` from the driver app", "2026-05-19",
   "s3 uploads presigned mobile 403 aws",
   "POD photo uploads fail with 403 and S3 error `SignatureDoesNotMatch`.",
   ["The client must send exactly the fields and `Content-Type` that were signed; React Native fetch adds `; charset=utf-8` for some types.",
    "Use presigned POST (form fields) rather than PUT from the mobile app.",
    "Check the device clock: presigned URLs expire after 15 minutes and skewed clocks make them look expired (`Request has expired`).",
    "The offline queue requests a fresh URL if the stored one is older than 10 minutes."],
   "Upload succeeds and the POD appears on the shipment.", conf=0.8)

rb("eta-model-retrain-or-rollback", "Retrain or roll back the ETA prediction model", "2026-03-24",
   "eta machine-learning lightgbm model predictions",
   "ETA accuracy dashboard shows MAE above 0.8 days for a week, or a new model made predictions worse.",
   ["Models are versioned in S3 `harbor-ml/eta/<version>/`; the active version is `ETA_MODEL_VERSION` in the worker config.",
    "To roll back, set `ETA_MODEL_VERSION` to the previous version and restart the `eta-scorer` worker.",
    "To retrain: run the `eta-train` GitHub workflow with the date range; it writes metrics to the PR comment.",
    "Only promote if MAE improves on the last 4 weeks holdout."],
   "Accuracy dashboard recovers within a day.", conf=0.75)

rb("nightly-settlement-batch-rerun-ko", "야간 정산 배치 실패 시 재실행 방법", "2025-03-20",
   "정산 배치 야간 celery billing settlement 재실행",
   "매일 새벽 3시(KST) 실행되는 `nightly_settlement` 배치가 실패했다는 PagerDuty 알림을 받은 경우.",
   ["Celery Flower 또는 Datadog에서 `harbor.billing.settlement.run_nightly` 태스크의 에러 로그를 확인한다.",
    "원인을 해결한 뒤 `python -m harbor.billing.settlement run --date 2025-03-19`로 해당 날짜만 다시 실행한다. 배치는 멱등하므로 중복 정산되지 않는다.",
    "오전 9시 전까지 완료되지 않으면 재무팀(#finance-ops)에 지연을 공유한다.",
    "운송사별 정산 파일(CJ대한통운, 한진)이 누락되었으면 SFTP 수신 폴더를 먼저 확인한다."],
   "`settlement_runs` 테이블에 해당 날짜가 `completed` 상태로 기록되면 완료.", conf=0.8)

rb("opensearch-nori-user-dictionary-update", "OpenSearch nori 사용자 사전 업데이트 (검색 안 되는 한국어 단어)", "2026-03-05",
   "검색 nori 사전 opensearch search korean 형태소",
   "고객이 '물류센터명'이나 브랜드명 같은 한국어 단어로 검색했는데 결과가 나오지 않는 경우 (형태소 분석기가 단어를 잘못 분리).",
   ["`_analyze` API로 해당 단어가 어떻게 토큰화되는지 확인한다: `POST shipments/_analyze {\"analyzer\": \"ko_nori\", \"text\": \"...\"}`.",
    "`services/search/dictionaries/nori_user_dict.txt`에 단어를 추가하고 PR을 올린다.",
    "Amazon OpenSearch에서는 사전 파일을 패키지로 업로드하고 도메인에 연결해야 하므로 배포 후 인덱스를 다시 연다(또는 reindex).",
    "검색 스모크 테스트에 해당 단어를 추가한다."],
   "`_analyze` 결과에 단어가 하나의 토큰으로 나오고 검색 결과가 표시되면 완료.",
   files="services/search/dictionaries/nori_user_dict.txt", conf=0.75)

rb("edi-214-status-updates-missing", "Missing EDI 214 status updates from an LTL carrier", "2026-01-20",
   "edi x12 stedi carriers tracking 214",
   "Shipments for an EDI carrier stay 'in transit' with no tracking events for more than 24 hours.",
   ["Check the Stedi dashboard for inbound 214 transactions from the carrier and any translation errors.",
    "If Stedi received them but we did not, check the `stedi-webhooks` endpoint logs and replay from Stedi.",
    "If nothing arrived, the carrier's AS2/SFTP connection is down; contact the carrier's EDI team (contacts in the carrier sheet)."],
   "Tracking events appear for the affected shipments.", conf=0.7)

rb("audit-events-partition-missing", "Inserts into `audit_events` fail: monthly partition missing", "2026-02-02",
   "postgres partitioning audit-log pg_partman",
   "Errors `no partition of relation \"audit_events\" found for row` at the start of a month.",
   ["pg_partman's `run_maintenance_proc()` is scheduled via pg_cron; check `cron.job_run_details` for failures.",
    "Run it manually: `CALL partman.run_maintenance_proc();` directly on RDS.",
    "Verify `premake` is at least 3 so future partitions exist ahead of time."],
   "`\\d+ audit_events` lists partitions for the next 3 months.", conf=0.8)

rb("rotate-ecs-task-iam-keys", "Rotate IAM access keys used by ECS tasks", "2024-02-15",
   "ecs iam aws secrets rotation",
   "Quarterly IAM key rotation for ECS services.",
   ["Create a new access key for the `harbor-ecs` IAM user.",
    "Update the task definition environment and redeploy services.",
    "Delete the old key after 24 hours."],
   "Services healthy with the new key.",
   status="archived", when="2024-12-01",
   why="ECS was decommissioned; EKS uses IRSA roles instead of static keys.", conf=0.6)

rb("restart-celery-workers-nightly", "Restart Celery workers nightly to work around memory leak", "2024-04-04",
   "celery memory-leak workers restart cron",
   "Worker memory grows steadily over the day.",
   ["A Kubernetes CronJob runs `kubectl rollout restart deploy/worker` at 04:00 KST."],
   "Worker memory resets after the restart.",
   status="retired", when="2025-02-03",
   why="Replaced by `worker_max_memory_per_child` and the streaming CSV reader; the nightly restart CronJob was removed.", conf=0.5)

# ---------------------------------------------------------------------------
# Constraints
# ---------------------------------------------------------------------------

con("stripe-webhooks-must-be-idempotent", "Stripe webhooks must be idempotent", "2024-10-22",
    "stripe webhooks idempotency billing",
    "technical",
    "Every Stripe webhook handler must be safe to receive the same event multiple times and out of order: record `event.id` in `stripe_events` with a unique constraint and skip already processed events; re-fetch the object from Stripe instead of trusting event order.",
    ["Stripe retries deliveries for up to 3 days and may send duplicates.", "Non-idempotent handlers double-credited two customers in 2024."],
    "high", files="backend/harbor/billing/webhooks.py", conf=0.95)

con("stripe-api-version-pinned-2023", "Stripe API version pinned to 2023-10-16", "2024-03-14",
    "stripe api-version billing",
    "policy",
    "The Stripe client is pinned to API version 2023-10-16; do not change it without a migration plan.",
    ["Unplanned upgrades change webhook payloads."],
    "medium", status="retired", when="2026-10-05",
    why="Replaced by stripe-api-version-pin after the upgrade to 2026-09-30.", conf=0.6)

con("stripe-api-version-pin", "Stripe API version is pinned; upgrade only with a tested migration", "2026-10-05",
    "stripe api-version billing upgrades webhooks",
    "policy",
    "`stripe.api_version` is pinned in `harbor.billing.stripe_client` (currently 2026-09-30.basil) and the webhook endpoint uses the same version. Upgrades need a PR that reviews the Stripe changelog, runs the billing contract tests against test mode and updates both places together.",
    ["Webhook payload shapes depend on the endpoint's API version.", "Mismatched versions broke invoice.paid parsing during the last upgrade attempt."],
    "high", files="backend/harbor/billing/stripe_client.py", conf=0.9)

con("never-log-tokens-or-authorization-headers", "Never log Authorization headers, tokens, API keys or cookies", "2024-04-18",
    "security logging auth tokens secrets structlog",
    "policy",
    "Request logging must redact `Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`, `Harbor-Signature` and any field named `*token*`, `*secret*` or `password`. The structlog `redact_processor` enforces this; do not bypass it with print or logging.getLogger.",
    ["Logs are shipped to Datadog and retained 30 days; a leaked token there is a security incident."],
    "high", files="backend/harbor/logging.py", conf=0.95)

con("no-pii-in-logs-or-sentry", "No consignee PII in logs, Sentry events or analytics", "2024-05-09",
    "privacy pii logging sentry gdpr pipa",
    "policy",
    "Consignee names, phone numbers, emails and street addresses must not appear in logs, Sentry events, Datadog tags or product analytics. Log shipment ids instead. Sentry `send_default_pii=False` and the `before_send` scrubber must stay enabled.",
    ["GDPR, Korean PIPA and Japanese APPI obligations.", "Deletion requests cannot reach logs."],
    "high", files="backend/harbor/observability/sentry.py", conf=0.95,
    upd="2026-10-10", changes=[("2026-10-10", "Added Datadog tags and product analytics (PostHog) to the scope.")])

con("redis-cache-keys-must-have-ttl", "Every Redis cache key must have a TTL", "2025-04-08",
    "redis cache ttl expiry",
    "technical",
    "Writes to the cache cluster must set an expiry from the TTL table in `harbor.cache.ttl`; `cache.set()` without `ttl=` raises in tests and a CI lint rule flags raw `redis.set` calls.",
    ["Keys without TTL filled the cache and caused eviction storms (May 2025)."],
    "medium", files="backend/harbor/cache/client.py", conf=0.9)

con("cache-redis-not-durable", "The cache Redis is not durable: never store data that cannot be recomputed", "2025-03-12",
    "redis cache durability elasticache data-loss",
    "technical",
    "`harbor-cache` has no persistence and uses allkeys-lru; anything in it can vanish at any time. Sessions, idempotency keys, job state and rate-limit overrides must live in Postgres (or the broker cluster for Celery).",
    ["A failover or eviction silently loses data stored only in the cache."],
    "high", conf=0.9)

con("celery-task-payload-size-limit", "Celery task arguments must be small: pass ids, max 64KB", "2024-08-22",
    "celery tasks payload serialization broker redis",
    "technical",
    "Task arguments are JSON-serialized into the broker Redis; keep them under 64KB. Pass database ids or S3 keys, never file contents, DataFrames or ORM objects.",
    ["Large payloads inflated broker memory and slowed every queue."],
    "medium", conf=0.85)

con("migrations-backward-compatible-previous-release", "Migrations must be backward compatible with the previous release", "2024-03-05",
    "migrations alembic deploys zero-downtime rollback",
    "policy",
    "Any migration merged to main must leave the database usable by the currently deployed release: no dropping or renaming columns/tables still read by it, no new NOT NULL column without a default. CI runs the previous release's test suite against the migrated schema.",
    ["Rolling deploys run two versions at once.", "Rollbacks never run downgrade migrations."],
    "high", files="backend/migrations/ .github/workflows/migration-compat.yml", conf=0.95)

con("no-table-rewrites-during-business-hours", "No table-rewriting migrations on large tables during business hours", "2024-07-31",
    "migrations postgres locks deploys shipments",
    "policy",
    "Migrations that rewrite or fully scan large tables (shipments, tracking_events, audit_events, invoices) - e.g. changing a column type, adding a volatile default, VALIDATE CONSTRAINT without NOT VALID first - must run in the Sunday 02:00-05:00 KST window with on-call present.",
    ["Locks on shipments block bookings for all tenants."],
    "high", workarounds=["Add constraints as NOT VALID and validate separately.", "Create indexes CONCURRENTLY."], conf=0.9)

con("pgbouncer-no-session-level-features", "No session-level Postgres features through PgBouncer", "2024-09-24",
    "postgres pgbouncer transaction-pooling advisory-locks prepared-statements",
    "technical",
    "Because PgBouncer runs in transaction pooling mode, application code must not use session state: no plain `SET` (use `SET LOCAL`), no session advisory locks (use `pg_advisory_xact_lock`), no LISTEN/NOTIFY, no server-side prepared statements, no temp tables across transactions.",
    ["Session state leaks to other clients or disappears between transactions."],
    "high", workarounds=["Jobs needing session features connect directly with `DATABASE_DIRECT_URL`."], conf=0.9)

con("no-read-after-write-from-replica", "Do not read your own writes from the read replica", "2024-10-29",
    "postgres read-replica replication-lag consistency",
    "technical",
    "Replica lag is usually under a second but reaches 30s during vacuum or bulk imports; code paths that write and then read (API handlers, Celery tasks) must use the primary session.",
    ["Stale reads caused 'shipment not found' right after creation in an early export feature."],
    "medium", conf=0.85)

con("no-manual-aws-console-changes-prod", "No manual AWS console changes in production", "2024-01-25",
    "aws terraform infra policy change-management",
    "policy",
    "All production infrastructure changes go through Terraform PRs and the CI apply job. Console access in prod is read-only except for the break-glass role, and any emergency change must be back-ported to Terraform within 24 hours.",
    ["Drift caused a failed apply that reverted a hotfix security group rule."],
    "high", conf=0.9)

con("deploy-freeze-friday-afternoon", "No production deploys after Friday 15:00 KST or on public holidays", "2024-05-23",
    "deploys release policy freeze",
    "policy",
    "Production deploys (including hotfixes below SEV2) are not allowed from Friday 15:00 KST until Monday 09:00 KST, nor on Korean/Japanese/German public holidays. SEV1 fixes need the incident commander's approval.",
    ["Weekend on-call is thin; bad Friday deploys caused two weekend incidents."],
    "medium", conf=0.85)

con("peak-season-code-freeze-2026", "Peak season code freeze: 2026-11-20 to 2026-12-02", "2026-10-26",
    "release freeze peak-season black-friday deploys",
    "policy",
    "No production deploys, migrations or infrastructure changes between 2026-11-20 and 2026-12-02 (Black Friday / Cyber Monday peak). Only SEV1 fixes with VP Engineering approval.",
    ["Shipment volume triples; any incident hits all large customers at once."],
    "high", expires="2026-12-03", conf=0.9)

con("prod-db-access-break-glass", "Production database access only through the audited break-glass role", "2024-06-13",
    "postgres security access production sso audit",
    "policy",
    "Humans connect to production Postgres only via `make prod-psql`, which assumes the break-glass IAM role, requires a ticket id and logs the session. Read-only by default; writes need a second engineer on the call.",
    ["SOC 2 requirement.", "Data fixes must be traceable."],
    "high", conf=0.9)

con("opensearch-mapping-field-limit", "OpenSearch shipments mapping: 1,000 field limit, no dynamic customer fields", "2025-01-23",
    "opensearch search mapping custom-fields limits",
    "limitation",
    "The `shipments` index uses `dynamic: strict` and the default `index.mapping.total_fields.limit` of 1,000. Customer custom fields are indexed as a flattened `custom_fields` object, so they only support exact match, not full text.",
    ["Dynamic mapping of custom fields hit the field limit and rejected documents.", "Full-text search on custom fields is not possible."],
    "medium", workarounds=["Promote commonly searched custom fields to first-class fields."], conf=0.85)

con("search-is-eventually-consistent", "Search results lag writes by a few seconds; never use search for read-after-write", "2024-09-05",
    "opensearch search consistency indexing kafka",
    "technical",
    "Shipments reach OpenSearch via Kafka and the indexer, typically within 2-5 seconds. Code must not query the search service right after creating or updating a shipment; use Postgres by id instead.",
    ["Creation flows that redirected to a search page showed empty results."],
    "medium", conf=0.85)

con("avro-schemas-additive-only", "Avro event schemas: only add optional fields with defaults; never rename or delete", "2024-12-03",
    "kafka avro schema-registry compatibility events",
    "policy",
    "Within a topic version, schema changes may only add fields with defaults. Renames, type changes and deletions require a new `.v<N+1>` topic and a migration period of both topics.",
    ["Consumers in other teams deploy on their own schedule."],
    "high", files="schemas/avro/", conf=0.9)

con("kafka-max-message-size", "Kafka messages must stay under 1MB", "2026-04-16",
    "kafka msk message-size events limits",
    "limitation",
    "MSK `max.message.bytes` is 1MB. Events must not embed documents, images or full tracking histories; include ids and S3 keys instead.",
    ["Producers fail with `MessageSizeTooLargeError`; the outbox relay marks such rows failed."],
    "medium", conf=0.85)

con("carrier-api-rate-limits", "Carrier API rate limits (FedEx, UPS, DHL) are per account and shared by all tenants", "2025-01-02",
    "carriers rate-limits fedex ups dhl api quotas",
    "limitation",
    "FedEx allows ~1,400 requests per 10 seconds, UPS 250/s, DHL Express 250 calls/day on the default plan per account. Tenants using Harbor's master accounts share these limits, so bulk rate shopping must go through the throttled `rates` queue.",
    ["Bulk quoting from one tenant can get everyone throttled (HTTP 429) by the carrier."],
    "high", workarounds=["Large tenants should bring their own carrier account credentials."], conf=0.8)

con("yamato-api-maintenance-window", "ヤマト運輸APIは毎日深夜のメンテナンス時間帯に利用できない", "2025-06-05",
    "ヤマト運輸 メンテナンス carriers yamato api 制限",
    "limitation",
    "ヤマトB2クラウドAPIは毎日2:00〜5:00(JST)および月1回の日曜終日メンテナンス中は送り状発行ができない。この時間帯の送り状タスクはキューに保持し、5:05以降に自動再実行する。",
    ["深夜に出荷する倉庫の送り状が朝まで発行されない。", "メンテナンス中のリトライはエラー扱いにしてはいけない。"],
    "medium", conf=0.8)

con("ios-background-location-policy", "Driver app may only track background location during an active route", "2024-06-06",
    "mobile ios android location app-store privacy driver-app",
    "policy",
    "App Store review requires a clear justification for background location. The driver app starts background location only after the driver taps 'Start route' and stops it when the route is completed; the purpose string must mention delivery tracking.",
    ["Rejected once (Guideline 5.1.1) for tracking outside of routes."],
    "high", files="mobile/app.config.ts mobile/src/location/", conf=0.9)

con("eas-update-js-only", "EAS Update (OTA) can only ship JavaScript and assets, not native changes", "2024-04-30",
    "mobile expo eas ota react-native native-modules",
    "technical",
    "Changes to native modules, config plugins, permissions or the Expo SDK need a new binary through the stores. OTA updates are bound to a `runtimeVersion`; bump it whenever native code changes.",
    ["Shipping a JS bundle that expects a missing native module crashes on launch."],
    "high", conf=0.9)

con("driver-app-min-os-versions", "Driver app supports iOS 15+ and Android 9 (API 28)+", "2026-09-22",
    "mobile ios android support-matrix driver-app",
    "policy",
    "Minimum supported OS for the driver app is iOS 15 and Android 9. Many drivers use older company-issued Android phones, so Android support cannot be raised without checking the device report.",
    ["Libraries requiring newer OS versions cannot be adopted."],
    "medium", conf=0.85)

con("browser-support-matrix", "Web app supports Safari 15+ and the last two versions of Chrome, Edge and Firefox", "2025-12-18",
    "web browsers safari support-matrix css",
    "policy",
    "Warehouse workstations include older iPads with Safari 15. Avoid CSS/JS features not available there without fallbacks (e.g. `:has()`, container queries, `Array.prototype.findLast`) unless polyfilled.",
    ["Browserslist config drives transpilation and autoprefixer."],
    "medium", files="web/.browserslistrc", conf=0.85)

con("web-bundle-size-budget", "Web initial JS bundle budget: 350KB gzipped", "2025-03-13",
    "web performance bundle-size vite",
    "technical",
    "CI fails if the initial route chunk exceeds 350KB gzipped (size-limit). Heavy libraries (ag-grid, charts, PDF viewer) must be lazy-loaded per route.",
    ["Warehouse networks are slow; initial load was 9s at the Busan site."],
    "medium", files="web/.size-limit.json", conf=0.85)

con("python3-saml-blocks-python-312", "python3-saml/xmlsec blocks moving harbor-auth to Python 3.12", "2025-08-26",
    "python python312 saml xmlsec auth upgrade",
    "gap",
    "xmlsec wheels for Python 3.12 crash with lxml 5 on our base image, so harbor-auth and everything sharing its base image must stay on Python 3.11.",
    ["No Python 3.12 upgrade for any service until fixed."],
    "medium", status="retired", when="2026-10-20",
    why="xmlsec 1.3.14 fixed the issue; see python-312-upgrade.", conf=0.7)

con("github-actions-minutes-budget", "GitHub Actions budget: avoid macOS runners and keep CI under 50k minutes/month", "2026-03-03",
    "ci github-actions cost budget runners",
    "limitation",
    "The monthly Actions budget covers ~50k Linux minutes. macOS minutes cost 10x; iOS builds run on EAS, not Actions. Path filters must skip jobs for unaffected folders.",
    ["Jobs are cancelled by billing limits near month end if exceeded."],
    "low", conf=0.8)

con("korea-pii-no-cross-border-transfer", "한국 테넌트 수하인 개인정보 국외 이전 금지", "2025-06-24",
    "개인정보 pipa 국외이전 서울리전 korea privacy",
    "policy",
    "`data_region=kr` 테넌트의 수하인 이름, 전화번호, 주소는 서울 리전 밖으로 복사하거나 전송하면 안 된다. 로그, Sentry, 분석 도구, 외부 LLM API도 포함된다. 글로벌 리전에는 가명 ID와 집계 통계만 허용된다.",
    ["계약 위반 및 개인정보보호법 위반 위험.", "새 SaaS 도구를 도입할 때 국외 이전 동의 여부를 먼저 확인해야 한다."],
    "high", conf=0.9)

con("japan-appi-cross-border-consent", "日本テナントの個人データを国外に移転する場合は事前の同意と記録が必要", "2025-05-13",
    "個人情報 appi 越境移転 japan privacy 東京リージョン",
    "policy",
    "`data_region=jp`のテナントの荷受人データを東京リージョン外(米国のSaaSやLLM APIを含む)に送る場合、顧客との契約上の同意と移転先の記録が必要。同意がない場合は送らない。",
    ["新しい外部サービス導入時に法務確認が必要。"],
    "high", conf=0.85)

con("china-mainland-no-google-apis", "中国大陆的用户无法访问Google服务：地址校验和地图不能依赖Google API", "2026-01-13",
    "中国 google 地图 地址校验 addresses china",
    "limitation",
    "上海仓库和中国大陆的客户无法访问Google Maps与Google地址校验API。中国地址需要使用高德地图API做地理编码，前端地图组件在中国大陆要切换为高德。",
    ["中国用户看到空白地图。", "地址校验超时导致下单失败。"],
    "medium", workarounds=["按租户配置 `map_provider=amap`。"], conf=0.75)

con("new-subprocessor-requires-dpa", "New subprocessors need a DPA and 30 days' customer notice", "2025-02-19",
    "privacy gdpr vendors subprocessors legal compliance",
    "policy",
    "Any new third-party service that receives customer data (e.g. a new email provider, analytics or AI API) needs a signed DPA, a security review and must be added to the public subprocessor list 30 days before going live.",
    ["Shipping a feature that uses an unlisted vendor breaches enterprise contracts."],
    "high", conf=0.85)

con("no-customer-data-to-llm-apis", "No customer data to external LLM APIs without an approved DPA and region check", "2026-10-09",
    "llm ai privacy openai anthropic customer-data policy",
    "policy",
    "Features and internal tools must not send shipment, consignee or invoice data to external LLM APIs unless the provider is on the subprocessor list with zero-retention terms, and never for KR/JP tenants' personal data. Developer use of AI coding assistants on source code is allowed; pasting production data into them is not.",
    ["Legal exposure under customer DPAs, PIPA and APPI."],
    "high", conf=0.9)

con("soc2-quarterly-access-review", "Quarterly access review for production systems (SOC 2)", "2026-01-15",
    "security soc2 access-review compliance iam",
    "policy",
    "Every quarter the platform lead reviews who has access to AWS prod roles, GitHub admin, Stripe, Sentry, Datadog and the break-glass role, and removes unused access. Evidence goes to the compliance Drive folder.",
    ["Missing evidence fails the SOC 2 audit."],
    "medium", conf=0.85)

con("mfa-required-for-admins", "MFA is mandatory for tenant admins unless the tenant uses SSO", "2025-11-06",
    "auth mfa security admins sso totp",
    "policy",
    "Users with the `tenant_admin` or `billing_admin` role must enroll TOTP or WebAuthn; SSO tenants delegate MFA to their IdP. Support cannot disable MFA without identity verification.",
    ["Admins can create API keys and change billing."],
    "high", conf=0.9)

con("outbound-webhook-timeout-and-retries", "Outbound webhooks: 10s timeout, retries for 3 days, then the endpoint is disabled", "2024-08-13",
    "webhooks delivery retries timeout customers",
    "technical",
    "Customer endpoints must respond within 10 seconds with 2xx. Failed deliveries retry with exponential backoff for up to 3 days; after 3 days of consecutive failures the endpoint is disabled and the tenant admin is emailed.",
    ["Slow customer endpoints would otherwise tie up webhook workers."],
    "medium", conf=0.85)

con("thermal-label-format-4x6", "Shipping labels must be 4x6 inch at 203 dpi (PDF or ZPL)", "2025-12-23",
    "labels pdf zpl printers warehouses",
    "technical",
    "Warehouse thermal printers (Zebra) need 4x6 inch labels at 203 dpi. PDFs must not be scaled by the browser print dialog; tenants with Zebra printers get ZPL output.",
    ["Scaled labels fail carrier barcode scans."],
    "medium", conf=0.85)

con("hs-code-required-international", "International shipments require HS codes and declared values per line item", "2025-10-21",
    "customs international hs-code shipments validation",
    "policy",
    "Shipments crossing borders must have an HS code (at least 6 digits), description, quantity, value and origin country for each item; the API rejects booking otherwise with `customs.hs_code_required`.",
    ["Carriers reject labels and customs holds shipments without them."],
    "high", conf=0.9)

con("zero-decimal-currencies-stripe", "JPY and KRW are zero-decimal currencies: never multiply by 100 for Stripe", "2025-07-03",
    "stripe billing currency jpy krw money",
    "technical",
    "Stripe amounts are in the smallest unit of the currency, which for JPY and KRW is the whole yen/won. Always convert through `Money.to_stripe_amount()`; manual `* 100` charged a Tokyo customer 100x in staging.",
    ["Wrong invoice amounts for Japanese and Korean customers."],
    "high", files="backend/harbor/billing/money.py", conf=0.95)

con("warehouse-cutoff-times-local", "Warehouse cut-off times are in the warehouse's local time zone", "2024-04-25",
    "timezone warehouses cutoff scheduling datetime",
    "technical",
    "`warehouses.cutoff_time` is a local time-of-day interpreted in `warehouses.timezone` (IANA). Compute same-day eligibility with `zoneinfo`, never by comparing against UTC hours.",
    ["DST changes in Europe/US shift the UTC equivalent twice a year."],
    "medium", conf=0.85)

con("hazmat-shipments-manual-review", "Dangerous goods (hazmat) shipments need manual review before booking", "2026-08-04",
    "hazmat dangerous-goods shipments compliance carriers",
    "policy",
    "Shipments flagged with UN numbers or `dangerous_goods=true` go to the compliance review queue and cannot be auto-booked through the API; ground only, no air.",
    ["Regulatory fines and carrier account suspension."],
    "high", conf=0.85)

con("app-role-never-bypasses-rls", "The application DB role must never have BYPASSRLS", "2024-02-13",
    "postgres rls multi-tenancy security roles",
    "policy",
    "Only the `harbor_maintenance` role used by audited jobs may bypass row-level security. The API and worker roles must not, and tests assert `rolbypassrls = false` for them.",
    ["Cross-tenant data exposure."],
    "high", conf=0.9)

con("s3-buckets-block-public-access", "All S3 buckets block public access; documents only via short presigned URLs", "2024-03-07",
    "s3 security documents presigned aws",
    "policy",
    "Account-level S3 Block Public Access is on. Labels, invoices and POD photos are served only through presigned GET URLs valid for 15 minutes, generated after an authorization check.",
    ["Public buckets would expose consignee PII."],
    "high", conf=0.95)

con("block-images-with-critical-cves", "Container images with critical CVEs cannot be deployed to production", "2026-10-17",
    "security containers cve trivy ecr ci deploys",
    "policy",
    "The deploy workflow runs Trivy on the image; critical CVEs with a fix available block the production deploy. Exceptions need a security ticket with an expiry date.",
    ["Base images must be rebuilt weekly to pick up fixes."],
    "high", files=".github/workflows/deploy.yml", conf=0.85)

con("no-gpl-dependencies", "No GPL/AGPL dependencies in shipped code", "2025-08-19",
    "licenses dependencies legal ci",
    "policy",
    "A license check in CI (pip-licenses and license-checker) fails on GPL, AGPL and SSPL dependencies in backend, web and mobile production dependencies. LGPL needs legal approval.",
    ["Enterprise customers audit our dependency licenses."],
    "medium", conf=0.85)

con("ag-grid-enterprise-license-seats", "ag-grid Enterprise license covers only 4 developer seats", "2026-07-14",
    "web ag-grid license tables",
    "limitation",
    "Only the 4 named frontend developers may develop features using ag-grid Enterprise modules. Others can use community features; the license key must not be committed (it is injected at build time).",
    ["Unlicensed use is a contract violation."],
    "low", conf=0.8)

con("csv-import-size-limits", "CSV imports are limited to 1GB and 2 million rows per file", "2024-08-20",
    "csv imports limits uploads",
    "limitation",
    "The import endpoint rejects files over 1GB or with more than 2,000,000 data rows; larger datasets must be split or sent via the API.",
    ["Larger imports take hours and block the imports queue for others."],
    "medium", conf=0.85)

con("celery-results-expire-24h", "Celery task results expire after 24 hours", "2026-06-04",
    "celery results result-backend redis",
    "technical",
    "`result_expires` is 24h on the broker Redis. Do not store an `AsyncResult` id for later polling beyond a day; persist job state in Postgres (e.g. `import_jobs`).",
    ["Polling an expired id returns PENDING forever."],
    "low", conf=0.85)

con("alimtalk-template-preapproval", "알림톡 템플릿은 사전 승인된 문구만 발송 가능", "2026-10-16",
    "알림톡 카카오 템플릿 notifications 승인",
    "limitation",
    "카카오 알림톡은 사전 검수 승인된 템플릿과 정확히 일치하는 문구만 발송된다. 변수(#{수하인명}, #{송장번호})를 제외한 문구를 코드에서 바꾸면 발송이 실패하므로, 문구 변경은 2~3 영업일 전에 검수 요청해야 한다.",
    ["템플릿 불일치 시 알림톡 실패 후 SMS 대체 발송으로 비용 증가."],
    "medium", conf=0.8)

con("branch-protection-main", "`main` requires one approval, green CI and linear history", "2024-01-12",
    "git github branch-protection code-review ci",
    "policy",
    "Pushes to `main` need a PR with at least one CODEOWNERS approval, all required checks green and a squash merge. Force pushes and direct pushes are blocked for everyone, including admins.",
    ["Keeps main always deployable for the release train."],
    "medium", conf=0.9)

con("billing-coverage-gate", "Test coverage for harbor.billing must stay above 90%", "2026-05-21",
    "testing coverage billing ci pytest-cov",
    "policy",
    "The CI coverage gate fails if line coverage of `harbor.billing` drops below 90% (85% for the rest of the backend is only reported, not enforced).",
    ["Billing bugs are the costliest class of incidents."],
    "medium", files="backend/pyproject.toml", conf=0.85)

# ---------------------------------------------------------------------------
# Preferences
# ---------------------------------------------------------------------------

pref("prefer-pytest-fixtures-over-setup", "Prefer pytest fixtures over setUp methods", "2024-02-08",
     "testing pytest fixtures unittest python",
     "Test structure in the backend",
     "Write plain pytest functions with fixtures (in `conftest.py` or the module) instead of `unittest.TestCase` classes with `setUp`/`tearDown`.",
     "Fixtures compose, can be scoped (session/module/function) and make dependencies explicit in the test signature; TestCase classes do not work well with parametrize.",
     "strong",
     prefer=["def test_invoice_total(invoice_factory, tenant): ...", "@pytest.fixture\ndef tenant(db): return TenantFactory()"],
     avoid=["class TestInvoice(unittest.TestCase):\n    def setUp(self): ..."], conf=0.95)

pref("freeze-time-in-tests-with-time-machine", "Freeze time in tests with time-machine, never sleep", "2024-09-26",
     "testing time freezegun time-machine datetime flaky-tests",
     "Time-dependent tests",
     "Use the `time_machine.travel()` fixture/decorator (we moved from freezegun) for anything involving now(), ETAs, token expiry or cut-off times. Never use `time.sleep` in tests.",
     "Real time made ETA and cut-off tests fail around midnight UTC and on DST days; time-machine also patches C-level time functions and is faster than freezegun.",
     "strong",
     prefer=["@time_machine.travel('2025-03-30 01:30:00+00:00', tick=False)"],
     avoid=["time.sleep(2)", "datetime.utcnow() in assertions"], conf=0.9)

pref("pass-ids-not-orm-objects-to-celery", "Pass ids, not ORM objects, to Celery tasks", "2024-05-21",
     "celery tasks sqlalchemy serialization",
     "Celery task signatures",
     "Task arguments are primitive ids (and a tenant id); the task loads fresh state from the database inside its own session.",
     "ORM objects are stale by the time the task runs, are not JSON-serializable and can leak the request session across threads.",
     "strong",
     prefer=["generate_label.delay(shipment_id=str(shipment.id), tenant_id=str(tenant.id))"],
     avoid=["generate_label.delay(shipment)"], conf=0.9)

pref("redis-key-naming-convention", "Redis key naming: `harbor:<service>:<entity>:<id>[:<field>]`", "2024-06-20",
     "redis cache naming conventions keys",
     "Redis key names",
     "All keys start with `harbor:` followed by the owning service, entity and id, separated by colons, e.g. `harbor:rates:quote:<hash>` or `harbor:auth:jwks`. Use helpers in `harbor.cache.keys` instead of f-strings at call sites.",
     "Prefix-based SCAN invalidation, memory analysis by prefix, and no collisions between services.",
     "default",
     prefer=["keys.quote(tenant_id, request_hash)"], avoid=["f'quote_{tenant_id}_{h}'"],
     files="backend/harbor/cache/keys.py", conf=0.85)

pref("use-require-scope-dependency", "Use the `require_scope()` dependency for endpoint authorization", "2024-05-30",
     "auth fastapi authorization scopes dependencies api",
     "Authorization checks in FastAPI routers",
     "Declare authorization with `Depends(require_scope(\"shipments:write\"))` on the route instead of checking `request.state.user` inside the handler.",
     "Scopes become visible in the OpenAPI spec and a test enumerates routes to ensure none is missing a scope.",
     "strong",
     prefer=["@router.post('/shipments', dependencies=[Depends(require_scope('shipments:write'))])"],
     avoid=["if 'shipments:write' not in user.scopes: raise HTTPException(403)"],
     files="backend/harbor/api/deps.py", conf=0.9)

pref("invalidate-queries-after-mutations", "After mutations, invalidate queries instead of hand-editing the cache", "2024-08-01",
     "web tanstack-query react-query usequeryclient mutations cache",
     "Updating TanStack Query cache after mutations",
     "In `onSuccess` of `useMutation`, call `queryClient.invalidateQueries({ queryKey: shipmentKeys.lists() })` (from `useQueryClient()`). Use `setQueryData` only for optimistic updates that are rolled back on error.",
     "Manual `setQueryData` copies server logic into the client and drifts (totals, status transitions).",
     "default",
     prefer=["const queryClient = useQueryClient(); onSuccess: () => queryClient.invalidateQueries({ queryKey: shipmentKeys.detail(id) })"],
     avoid=["queryClient.setQueryData(['shipments'], old => [...old, newShipment])"], conf=0.85)

pref("query-key-factories", "Define TanStack Query keys with key factories per feature", "2025-07-17",
     "web tanstack-query query-keys typescript",
     "Query key structure",
     "Each feature exports a key factory, e.g. `shipmentKeys.all / lists() / list(filters) / detail(id)`, and hooks use it. No inline array keys.",
     "Consistent keys make invalidation by prefix reliable.",
     "default", prefer=["useQuery({ queryKey: shipmentKeys.detail(id), ... })"], avoid=["useQuery({ queryKey: ['shipment', id] })"],
     files="web/src/features/shipments/queryKeys.ts", conf=0.8)

pref("named-exports-only-typescript", "Named exports only in TypeScript; no default exports", "2024-07-11",
     "web typescript exports eslint conventions",
     "Module exports in web and mobile",
     "Use named exports everywhere except where a framework requires default exports (Expo Router screens, Storybook meta).",
     "Renames are caught by the compiler and auto-imports are consistent.",
     "default", prefer=["export function ShipmentTable() {}"], avoid=["export default function () {}"], conf=0.8)

pref("react-hook-form-with-zod", "Forms use React Hook Form with zodResolver", "2024-09-18",
     "web forms react-hook-form zod validation",
     "Form handling in the web app",
     "Build forms with `useForm({ resolver: zodResolver(schema) })`, reusing the generated zod schemas from the API client where possible.",
     "Client-side validation matches the backend and we avoid hand-written validation logic.",
     "default", conf=0.8)

pref("tailwind-over-css-modules", "Style with Tailwind utility classes; no new CSS modules", "2025-09-18",
     "web css tailwind styling design-system",
     "Styling in the web app",
     "Use Tailwind classes and `@harbor/ui` components; CSS modules are only kept in legacy screens until they are touched.",
     "One styling approach, design tokens from the Tailwind config.",
     "default", conf=0.75)

pref("type-hints-on-new-python-code", "Type hints on all new Python functions and methods", "2024-03-14",
     "python typing type-hints mypy",
     "Type annotations",
     "New or modified Python functions have full parameter and return type hints; use `X | None`, built-in generics (`list[str]`) and `collections.abc` types.",
     "mypy catches a large class of bugs and annotations document intent.",
     "strong", conf=0.85)

pref("no-bare-except", "Never swallow exceptions with bare `except:` or `except Exception: pass`", "2024-04-18",
     "python exceptions error-handling logging",
     "Exception handling",
     "Catch the narrowest exception type. If you must catch broadly (task boundaries), log with `log.exception(...)` and re-raise or convert to a domain error.",
     "Silent failures in the carrier sync hid an outage for two days.",
     "strong", prefer=["except httpx.TimeoutException as exc: raise CarrierUnavailable(...) from exc"], avoid=["except Exception:\n    pass"], conf=0.9)

pref("conventional-commit-pr-titles", "Conventional Commits for PR titles", "2024-01-19",
     "git commits pull-requests changelog conventions",
     "PR titles and squash commit messages",
     "PR titles follow Conventional Commits with a scope: `feat(billing): ...`, `fix(imports): ...`, `chore(deps): ...`. The squash commit uses the PR title.",
     "Release notes are generated from commit titles.",
     "default", prefer=["fix(auth): handle SAML clock skew for ADFS tenants"], avoid=["fixed stuff", "WIP"], conf=0.85)

pref("small-pull-requests", "Keep pull requests small (under ~400 changed lines)", "2024-02-29",
     "pull-requests code-review process",
     "PR size",
     "Split work into PRs under ~400 changed lines (generated code excluded). Use feature flags to merge incomplete features.",
     "Reviews across time zones take a day per round; small PRs get reviewed in one round.",
     "default", conf=0.8)

pref("structured-log-events", "Log events as snake_case event names with key-value context, not f-strings", "2024-04-23",
     "logging structlog observability conventions",
     "Log message style",
     "Use `log.info(\"label.generated\", shipment_id=..., carrier=...)`. Event names are stable, dotted and snake_case; variable data goes in keyword arguments.",
     "Datadog facets work on attributes; f-string messages cannot be grouped.",
     "default", prefer=["log.warning('carrier.quote_failed', carrier='ups', status=resp.status_code)"],
     avoid=["log.warning(f'UPS quote failed with {resp.status_code}')"], conf=0.85)

pref("pydantic-at-boundaries-dataclasses-inside", "Pydantic models at I/O boundaries, dataclasses for internal domain objects", "2026-02-05",
     "python pydantic dataclasses domain-model architecture",
     "Choosing between Pydantic and dataclasses",
     "Use Pydantic for API schemas, settings and parsing external payloads (carrier APIs, webhooks); use frozen dataclasses for internal value objects like `Money`, `Address`, `RateQuote`.",
     "Validation cost only where data enters the system; simpler, faster domain objects.",
     "default", conf=0.8)

pref("sqlalchemy-2-select-style", "SQLAlchemy 2.0 style queries: `select()` with `session.scalars()`", "2024-06-13",
     "sqlalchemy orm queries python database",
     "Query style",
     "Use `session.scalars(select(Shipment).where(...))` and `session.get()`; no legacy `session.query()` in new code.",
     "Legacy Query API is deprecated and not type-friendly.",
     "default", prefer=["stmt = select(Shipment).where(Shipment.tenant_id == tid)"], avoid=["session.query(Shipment).filter_by(tenant_id=tid)"], conf=0.85)

pref("thin-routers-service-layer", "Keep FastAPI routers thin; business logic in `services.py`", "2024-03-28",
     "fastapi architecture services routers python",
     "Where business logic lives",
     "Routers parse input, check authorization and call a function in `harbor.<domain>.services`; services do not import FastAPI and can be called from Celery tasks and scripts.",
     "Logic shared between API and workers; easier testing without HTTP.",
     "strong", conf=0.85)

pref("pin-terraform-module-versions", "Pin Terraform provider and module versions", "2024-02-15",
     "terraform infra versions modules providers",
     "Terraform versioning",
     "Providers use `~>` minor constraints with `.terraform.lock.hcl` committed; registry and git modules are pinned to exact versions/tags.",
     "Unpinned modules changed behaviour between plan and apply.",
     "strong", conf=0.85)

pref("terraform-resource-naming", "AWS resource naming: `harbor-<env>-<component>`", "2024-01-26",
     "terraform aws naming tags conventions",
     "Naming and tagging AWS resources",
     "Name resources `harbor-<env>-<component>` (e.g. `harbor-prod-cache`) and tag every resource with `env`, `service`, `owner` via provider default_tags.",
     "Cost allocation and finding things in the console.",
     "default", conf=0.8)

pref("code-review-comment-prefixes-ko", "코드 리뷰 코멘트에는 nit:/question:/blocker: 접두어를 붙인다", "2024-10-24",
     "코드리뷰 리뷰 code-review pull-requests 컨벤션",
     "코드 리뷰 코멘트 작성 방식",
     "리뷰 코멘트 앞에 `nit:`(사소함, 반영 선택), `question:`(질문), `suggestion:`(제안), `blocker:`(머지 전 반드시 수정)를 붙인다. blocker가 없으면 Approve 한다.",
     "서울·도쿄·베를린 간 시차 때문에 리뷰 왕복이 느리므로, 무엇이 필수인지 명확히 해서 한 번에 머지할 수 있게 한다.",
     "default", prefer=["nit: 변수명을 `shipment_ids`로 바꾸면 더 명확할 것 같아요", "blocker: 이 쿼리는 tenant_id 필터가 빠져 있습니다"],
     avoid=["이거 좀 이상한데요?"], conf=0.8)

pref("japanese-date-display-format", "日本向けUIの日付表示はYYYY/MM/DD形式、和暦は使わない", "2026-07-02",
     "日付 フォーマット i18n japan 表示",
     "日本語ロケール(ja)での日付・時刻の表示",
     "日付は`2025/06/17`、日時は`2025/06/17 14:05`(24時間表記、倉庫のタイムゾーン)で表示し、和暦(令和)は使わない。`Intl.DateTimeFormat('ja-JP')`を直接使わず、`formatDate()`ヘルパーを使う。",
     "顧客アンケートで西暦表記が好まれ、CSVエクスポートとの整合性も取れるため。",
     "default", prefer=["formatDate(shipment.deliveredAt, { locale: 'ja' })"], avoid=["令和7年6月17日"],
     files="web/src/lib/format.ts", conf=0.75)

pref("english-for-code-and-docs", "Write code, comments, commit messages and engineering docs in English", "2024-01-15",
     "conventions documentation language team",
     "Language of engineering artifacts",
     "Code identifiers, comments, commit messages, PR descriptions and docs in `docs/` are in English. Team-local runbooks may be in Korean or Japanese when the audience is only that office, with an English title.",
     "The team spans Seoul, Tokyo and Berlin; English is the common language.",
     "default", conf=0.85)

pref("httpx-with-explicit-timeouts", "Use httpx with explicit timeouts for outbound HTTP", "2024-03-26",
     "python http httpx requests timeouts carriers",
     "Outbound HTTP client",
     "Use a shared `httpx.Client` from `harbor.http.client()` with explicit `timeout=httpx.Timeout(10, connect=3)`; never call `requests` or httpx without a timeout.",
     "A carrier API that never answered blocked worker threads for hours.",
     "strong", avoid=["requests.get(url)"], conf=0.9)

pref("feature-folders-web", "Organize web code by feature: `src/features/<feature>/`", "2025-10-28",
     "web architecture folders react typescript",
     "Web app folder structure",
     "Each feature folder contains its components, hooks, query keys, api wrappers and tests (`src/features/shipments/...`). Shared code goes to `src/lib` or `@harbor/ui`.",
     "Related code is found in one place; ownership maps to folders.",
     "default", conf=0.8)

pref("testing-library-getbyrole", "Testing Library: query by role and label, not test ids", "2025-07-31",
     "web testing testing-library react accessibility",
     "Selectors in component and e2e tests",
     "Prefer `getByRole('button', { name: /book shipment/i })` and `getByLabelText`; use `data-testid` only when there is no accessible name.",
     "Tests mirror how users interact and catch accessibility regressions.",
     "default", conf=0.8)

pref("react-native-mmkv-over-asyncstorage", "Use react-native-mmkv instead of AsyncStorage in the driver app", "2024-10-01",
     "mobile react-native storage mmkv asyncstorage",
     "Local key-value storage in the driver app",
     "Use the `storage` wrapper around react-native-mmkv for settings and the upload queue index; AsyncStorage only in legacy code.",
     "MMKV is synchronous and much faster; AsyncStorage lost writes when the app was killed.",
     "default", conf=0.8)

pref("typescript-unknown-over-any", "Use `unknown` instead of `any` in TypeScript", "2024-07-11",
     "web typescript types eslint strict",
     "TypeScript types",
     "`strict` is on; `any` is an ESLint error (`@typescript-eslint/no-explicit-any`). Use `unknown` and narrow with zod or type guards.",
     "`any` silently disables checking in everything it touches.",
     "strong", conf=0.85)

pref("strenum-for-status-fields", "Use `StrEnum` for status and type fields", "2025-12-11",
     "python enums status models",
     "Representing statuses",
     "Statuses are `enum.StrEnum` subclasses (e.g. `ShipmentStatus.IN_TRANSIT = 'in_transit'`) stored as text with a CHECK constraint, not Postgres native enums.",
     "Native Postgres enums need migrations for new values and cannot drop values; StrEnum serializes cleanly to JSON.",
     "default", conf=0.8)

pref("error-codes-dotted-snake", "API error codes are `domain.reason` in snake_case", "2024-04-30",
     "api errors conventions problem-json",
     "Error code naming",
     "Every error raised to clients has a stable code like `shipment.not_found`, `customs.hs_code_required`, `auth.token_expired`, defined in `harbor.api.error_codes`.",
     "Customers branch on codes; messages may be translated.",
     "default", files="backend/harbor/api/error_codes.py", conf=0.85)

pref("settings-via-pydantic-settings", "Read configuration through `harbor.settings`, not `os.environ`", "2024-03-01",
     "config settings env-vars pydantic-settings python",
     "Accessing configuration and environment variables",
     "All configuration is declared on `harbor.settings.Settings` (pydantic-settings) with types and defaults, and accessed via `get_settings()`. Env vars use the `HARBOR_` prefix. No `os.environ[...]` or `os.getenv` outside settings.py.",
     "Missing or malformed env vars fail at startup instead of at 3am in a rarely used code path.",
     "strong", prefer=["get_settings().carrier_timeout_seconds"], avoid=["int(os.getenv('CARRIER_TIMEOUT', '10'))"],
     files="backend/harbor/settings.py", conf=0.9)

pref("adr-for-significant-decisions", "Record significant decisions as ADRs in docs/adr", "2024-02-02",
     "documentation adr decisions architecture",
     "Documenting architecture decisions",
     "Decisions that affect more than one team or are hard to reverse get a short ADR (`docs/adr/NNNN-title.md`: context, decision, consequences) linked from the PR.",
     "People in three offices need to understand why things are the way they are.",
     "default", conf=0.8)

pref("async-first-collaboration", "Async-first collaboration; meetings only in the Seoul/Tokyo-Berlin overlap", "2024-03-08",
     "team process meetings time-zones communication",
     "Meetings and communication across offices",
     "Default to written design docs and Slack threads. Synchronous meetings go in the overlap slot 16:00-18:00 KST/JST (09:00-11:00 CET) and are recorded with notes.",
     "Eight hours of time difference; nobody should routinely take calls at night.",
     "default", conf=0.8)

pref("fastapi-depends-for-db-session", "Get the DB session via `Depends(get_session)` in FastAPI", "2024-03-28",
     "fastapi sqlalchemy dependencies database sessions",
     "Database sessions in endpoints",
     "Endpoints receive `session: Session = Depends(get_session)`; the dependency sets the tenant (SET LOCAL) and commits or rolls back. Do not create sessions manually in routers.",
     "Guarantees tenant isolation and transaction handling in one place.",
     "strong", files="backend/harbor/api/deps.py", conf=0.85)

pref("pathlib-over-os-path", "Use pathlib instead of os.path", "2025-08-07",
     "python pathlib files ruff",
     "File path handling",
     "Use `pathlib.Path` for path manipulation; ruff's `PTH` rules are enabled.",
     "Cleaner, cross-platform code.",
     "soft", conf=0.7)

pref("one-migration-per-pr", "One Alembic migration per PR, with a descriptive imperative message", "2024-04-11",
     "alembic migrations pull-requests conventions",
     "Migration hygiene",
     "Each PR contains at most one migration, generated with an imperative message (`alembic revision -m \"add cutoff_time to warehouses\"`). Squash multiple local migrations before opening the PR.",
     "Fewer head conflicts and easier review and rollback reasoning.",
     "default", conf=0.8)

pref("test-naming-convention", "Name tests `test_<unit>_<expected_behaviour>`", "2025-10-15",
     "testing pytest naming conventions",
     "Test function names",
     "Test names describe the behaviour: `test_invoice_totals_round_once_per_invoice`, `test_quote_cache_expires_after_ttl`.",
     "Failing test names in CI explain the broken behaviour without opening the file.",
     "soft", conf=0.75)

pref("do-not-mock-the-database", "Do not mock the database in tests; use the real test Postgres", "2024-03-12",
     "testing mocks postgres sqlalchemy testcontainers",
     "Testing code that uses the database",
     "Use the Testcontainers Postgres and factories; mock only external systems (carriers, Stripe, S3) at the HTTP boundary.",
     "Mocked sessions hid broken queries and RLS problems.",
     "strong", conf=0.85)

pref("respx-for-http-mocking", "Mock outbound HTTP in tests with respx", "2025-09-25",
     "testing httpx respx mocking carriers",
     "Mocking external HTTP APIs",
     "Use respx routes (`respx_mock.post(FEDEX_RATE_URL).respond(json=...)`) with recorded fixtures in `tests/fixtures/carriers/`; no `unittest.mock.patch` on client methods.",
     "Tests exercise our real serialization and retry logic.",
     "default", conf=0.8)

pref("simplified-chinese-ui-glossary", "中文界面文案使用简体中文，术语以术语表为准", "2026-01-27",
     "中文 翻译 i18n 术语表 localization",
     "中文(zh-CN)界面文案和翻译",
     "新增中文文案统一使用简体中文，物流术语以Lokalise中的术语表为准（如“运单”而不是“订单号”，“签收”而不是“收货”）。",
     "上海仓库客户反馈术语不统一，同一个概念出现三种译法。",
     "default", conf=0.7)

pref("use-uv-run", "Use `uv run` instead of activating virtualenvs", "2026-10-07",
     "python uv tooling local-dev virtualenv",
     "Running Python tools locally and in scripts",
     "Run tools via `uv run pytest`, `uv run alembic upgrade head`; Makefile targets use `uv run` too.",
     "Always uses the locked environment; no 'wrong venv' bugs.",
     "soft", conf=0.7)

pref("ai-generated-code-review", "Treat AI-assisted code like any other code: review it and say so in the PR", "2026-10-29",
     "ai code-review pull-requests claude copilot process",
     "Using AI coding assistants",
     "AI assistants are fine for code and tests, but the author must understand and review every line; mention substantial AI-generated parts in the PR description. Never paste production data or secrets into prompts.",
     "Reviewers calibrate their attention, and it keeps us within the customer-data policy.",
     "default", conf=0.75)

pref("avoid-useeffect-for-data-fetching", "Do not fetch data in `useEffect`; use query hooks", "2026-10-23",
     "web react useeffect tanstack-query data-fetching hooks",
     "Data fetching in React components",
     "Fetch server data only through generated TanStack Query hooks or `useSuspenseQuery`; `useEffect` + `fetch` + `useState` patterns are rejected in review.",
     "Effects cause race conditions, double fetches in StrictMode and no caching.",
     "strong", avoid=["useEffect(() => { fetch('/v1/shipments').then(r => r.json()).then(setShipments) }, [])"], conf=0.85)

pref("freezegun-for-time-in-tests", "Use freezegun to freeze time in tests", "2024-02-08",
     "testing freezegun datetime",
     "Time-dependent tests",
     "Decorate time-dependent tests with `@freeze_time(...)` from freezegun.",
     "Deterministic tests around ETAs and token expiry.",
     "default", status="retired", when="2024-09-26",
     why="Replaced by freeze-time-in-tests-with-time-machine (time-machine also patches C-level time functions).", conf=0.5)

pref("black-line-length-88", "Format Python with black (line length 88)", "2024-01-15",
     "python black formatting",
     "Python formatting",
     "Run black with default settings.",
     "Standard formatter.",
     "default", status="retired", when="2024-07-02", why="Replaced by ruff format with line length 100.", conf=0.5)

pref("enzyme-for-react-component-tests", "Use Enzyme shallow rendering for React component tests", "2024-01-22",
     "web testing enzyme react",
     "React component tests",
     "Use Enzyme `shallow()` for unit tests.",
     "Fast tests.",
     "soft", status="retired", when="2024-05-07", why="Enzyme does not support React 18; replaced by Testing Library.", conf=0.4)

# ---------------------------------------------------------------------------
# Tech debt
# ---------------------------------------------------------------------------

td("legacy-redux-store-settings-pages", "Legacy Redux store still powers the settings and admin pages", "2024-07-30",
   "web redux tanstack-query zustand refactor state-management",
   "in_progress", "medium",
   "Settings, user management and carrier account pages still use the old Redux Toolkit store (`web/src/store/`) with hand-written thunks and cached API data, while the rest of the app uses TanStack Query.",
   "Pages work and are rarely changed; each migration needs UI regression testing.",
   impact=["Stale data after edits in settings (manual refresh needed).", "Two patterns to learn for new developers.", "Redux adds ~40KB to the bundle."],
   fix=["Migrate page by page to generated TanStack Query hooks.", "Delete slices as soon as no component selects from them."],
   ac=["`web/src/store/` deleted", "No `useSelector` / `useDispatch` imports remain"],
   files="web/src/store/ web/src/features/settings/", conf=0.85,
   upd="2025-11-04", changes=[("2025-11-04", "User management migrated; carrier accounts and billing settings remain.")])

td("rate-quote-cache-stampede", "Rate quote cache stampede when popular keys expire", "2025-06-17",
   "redis cache stampede rate-quotes carriers performance",
   "open", "high",
   "When a popular quote key (same lane, many users) expires, dozens of requests miss the cache at once and all call the carrier API, hitting carrier rate limits and causing latency spikes.",
   "TTL jitter (added Oct 2026) reduced but did not remove the problem; a proper fix needs a lock-based or stale-while-revalidate cache.",
   impact=["Carrier 429s during peak", "p99 quote latency spikes to 8s"],
   fix=["Single-flight lock per key in Redis (`SET NX PX`) with waiters polling.", "Or serve stale for up to 60s while one worker refreshes (early recomputation)."],
   files="backend/harbor/rates/cache.py", conf=0.85, upd="2026-10-14")

td("tracking-consumer-commits-before-processing", "Tracking consumer commits Kafka offsets before processing the event", "2025-02-04",
   "kafka consumer offsets at-least-once tracking data-loss",
   "open", "high",
   "The `tracking-ingest` consumer uses `enable.auto.commit=true`, so offsets are committed in the background even if processing later fails or the pod is killed; events can be lost.",
   "Fix requires making the handler idempotent first (duplicate tracking events would be inserted).",
   impact=["Occasional missing tracking events after deploys"],
   fix=["Add a unique constraint on (shipment_id, carrier_event_id).", "Disable auto commit and commit after successful processing in batches."],
   files="backend/harbor/tracking/consumer.py", conf=0.8)

td("legacy-edi-module-still-imported", "`harbor.legacy.edi` frozen but still imported by two carrier integrations", "2025-10-07",
   "edi legacy x12 stedi carriers cleanup",
   "open", "medium",
   "After moving to Stedi the old X12 parser is frozen, but Estes and Old Dominion integrations still call `harbor.legacy.edi.parse_214`.",
   "Those carriers have not been migrated to Stedi yet (contract pending).",
   fix=["Migrate both carriers to Stedi.", "Delete `harbor.legacy.edi` and its pydantic.v1 models."], conf=0.8)

td("pydantic-v1-compat-imports", "Remaining `pydantic.v1` compatibility imports in harbor.legacy", "2025-08-02",
   "pydantic migration legacy python",
   "open", "low",
   "`from pydantic.v1 import BaseModel` remains in 14 modules under `harbor.legacy` (EDI and old webhook schemas).",
   "Code is frozen and scheduled for deletion; migrating it would be wasted effort.",
   impact=["Pydantic 3 will drop the v1 namespace; blocks that upgrade."],
   ac=["`grep -r 'pydantic.v1' backend/harbor` returns nothing"], conf=0.85)

td("legacy-pandas-csv-importer", "Legacy pandas CSV importer still enabled for four tenants", "2024-08-20",
   "csv imports pandas memory celery legacy",
   "in_progress", "high",
   "Four tenants still have `use_legacy_reader=true` because their files use custom column mappings only the pandas importer supports. The legacy path loads whole files in memory and does plain INSERTs.",
   "The streaming importer lacked custom mapping support until mid-2025; migrating mappings needs customer confirmation.",
   impact=["Worker OOMs on large files", "Duplicate key IntegrityErrors on retries"],
   fix=["Port custom mappings to the streaming importer's mapping DSL.", "Migrate tenants one by one with support."],
   ac=["No tenant has use_legacy_reader=true", "`harbor/imports/legacy_pandas.py` deleted"], conf=0.85,
   upd="2026-10-21", changes=[("2026-03-10", "Four tenants migrated; six remaining."),
                              ("2026-10-21", "Two more tenants migrated with the ON CONFLICT writer; four remaining.")])

td("proration-logic-duplicated", "Proration logic duplicated between `harbor.billing.invoices` and `harbor.billing.usage`", "2025-01-15",
   "billing proration invoices stripe duplication",
   "open", "medium",
   "Mid-cycle plan changes are prorated in two places: our preview endpoint (`invoices.preview_proration`) and Stripe. Our copy drifted for annual plans and shows different numbers than the final invoice.",
   "Switching the preview to Stripe's upcoming invoice API requires changing the checkout UI flow.",
   impact=["Support tickets about preview vs invoice mismatch"],
   fix=["Use `stripe.Invoice.create_preview` for previews and delete our proration code."], conf=0.8)

td("shipments-table-bloat", "`shipments` table bloat from frequent status updates", "2026-03-12",
   "postgres bloat vacuum shipments performance fillfactor",
   "open", "medium",
   "Status updates rewrite full rows of a wide table (60 columns incl. JSONB); dead tuples reach 30% and autovacuum lags behind during peaks.",
   "Needs a schema change (moving volatile fields to a `shipment_state` table) that touches many queries.",
   impact=["Slower sequential scans and bigger backups", "Index bloat on status indexes"],
   fix=["Lower fillfactor to 80 to allow HOT updates.", "Split volatile columns (status, last_event_at, predicted_delivery_at) into a narrow table.", "Tune autovacuum_vacuum_scale_factor for shipments."], conf=0.75)

td("tracking-events-not-partitioned", "`tracking_events` is not partitioned (1.2B rows)", "2026-04-21",
   "postgres partitioning tracking performance storage",
   "open", "high",
   "`tracking_events` is a single 900GB table; deleting old events and vacuuming are slow, and index maintenance dominates write I/O.",
   "Partitioning an existing table requires a dual-write migration and a long backfill.",
   impact=["RDS storage growth ~40GB/month", "VACUUM takes > 12 hours"],
   fix=["Create a monthly-partitioned `tracking_events_p` table with pg_partman, dual-write, backfill by month, swap."],
   ac=["Old months can be detached and archived to S3"], conf=0.8)

td("playwright-checkout-flow-flaky", "Playwright e2e for the booking checkout flow is flaky", "2025-05-06",
   "web e2e playwright flaky-tests ci",
   "open", "medium",
   "`e2e/booking-checkout.spec.ts` fails ~8% of runs on CI: the rate selection step sometimes renders before quotes are loaded, and the test clicks the skeleton row.",
   "Quarantined; the fix needs a loading-state change in the RateTable component.",
   fix=["Expose an accessible `aria-busy` state on RateTable and wait for it.", "Mock carrier quotes with a deterministic fixture in e2e env."],
   files="web/e2e/booking-checkout.spec.ts web/src/features/booking/RateTable.tsx", conf=0.8)

td("backend-ci-too-slow", "Backend CI takes 25 minutes; tests need sharding", "2025-06-26",
   "ci github-actions pytest performance sharding",
   "in_progress", "high",
   "The backend test job runs 7,800 tests serially with one Postgres container and takes ~25 minutes, so PRs from Seoul reviewed in Berlin wait another cycle.",
   "pytest-xdist needs one database per worker; the Testcontainers setup was not built for that.",
   impact=["Slow feedback", "Developers skip running tests locally"],
   fix=["Use pytest-xdist with a template database cloned per worker (`CREATE DATABASE ... TEMPLATE`).", "Split into 4 shards in the Actions matrix by timing data."],
   ac=["Backend CI under 10 minutes p50"], conf=0.85,
   upd="2026-10-09", changes=[("2026-10-09", "xdist with per-worker template DB merged; sharding still TODO. Now ~14 minutes.")])

td("admin-legacy-session-cookies", "Internal /admin still uses legacy session cookies instead of harbor-auth tokens", "2025-12-04",
   "auth admin sessions cookies security",
   "open", "medium",
   "The internal admin UI (Jinja templates) authenticates with a Flask-style signed session cookie and a separate staff user table, not harbor-auth.",
   "Admin UI is being replaced by a React admin; not worth migrating the old one.",
   impact=["Separate staff password policy", "Offboarding requires two steps"],
   fix=["Finish the React admin behind harbor-auth staff SSO and delete the Jinja admin."], conf=0.8)

td("hardcoded-carrier-service-codes", "Carrier service codes hard-coded in if/elif chains", "2025-11-27",
   "carriers refactor code-quality rates",
   "open", "low",
   "`harbor.carriers.services.map_service_level()` is a 400-line if/elif chain mapping our service levels to carrier codes, duplicated in the label generator.",
   "Works; adding carriers is rare enough that nobody has prioritized it.",
   fix=["Move mappings to a table (`carrier_service_levels`) editable in admin."], conf=0.75)

td("search-fullwidth-halfwidth-normalization", "検索インデックスで全角・半角の正規化がされていない", "2025-03-06",
   "検索 全角 半角 正規化 opensearch icu japanese",
   "open", "medium",
   "`shipments`インデックスの参照番号(reference)やSKUフィールドでICU正規化(NFKC)をしていないため、「ＡＢＣ１２３」(全角)で検索すると「ABC123」(半角)の荷物がヒットしない。",
   "マッピング変更には全件リインデックスが必要で、次のリインデックスとまとめて対応する予定。",
   impact=["日本の顧客から「検索で見つからない」という問い合わせが月10件程度"],
   fix=["keywordフィールドに`icu_normalizer`(nfkc_cf)のnormalizerを追加する。", "クエリ側でも`unicodedata.normalize('NFKC', q)`を適用する。"],
   files="services/search/mappings/shipments.json", conf=0.8)

td("korean-address-jibun-road-duplicates", "한국 주소 지번/도로명 혼재로 동일 주소가 중복 저장됨", "2025-04-03",
   "주소 도로명 지번 정규화 addresses korea 중복",
   "open", "medium",
   "같은 수하인 주소가 지번 주소와 도로명 주소로 각각 저장되어 주소록에 중복이 생기고, 배송 경로 최적화에서 다른 위치로 취급된다.",
   "Juso API로 일괄 변환하려면 API 호출 한도 때문에 수 주가 걸리고, 고객 동의 없이 주소를 바꾸는 것에 대한 정책이 정해지지 않았다.",
   impact=["주소록 중복", "배차 시 같은 건물을 두 번 방문"],
   fix=["저장 시 Juso API로 도로명 주소와 건물관리번호를 함께 저장.", "건물관리번호 기준으로 중복 병합."],
   files="backend/harbor/addresses/kr.py", conf=0.75)

td("settings-lru-cache-test-order", "`get_settings()` lru_cache makes tests order-dependent", "2025-05-08",
   "testing settings lru_cache flaky-tests pytest",
   "open", "low",
   "`get_settings()` is wrapped in `functools.lru_cache`; tests that monkeypatch env vars without clearing the cache leak settings into later tests, which pytest-randomly exposes as random failures.",
   "A fixture workaround (`settings_override`) exists; removing the global cache touches many modules.",
   fix=["Provide settings via dependency injection and a `settings_override` fixture that calls `get_settings.cache_clear()` automatically."], conf=0.8)

td("celery-chord-results-not-expiring", "Celery chord results in the broker Redis never expire", "2026-10-11",
   "celery redis chord results broker memory",
   "resolved", "critical",
   "The billing usage job used a chord with `result_expires=None` overridden at task level, so `celery-task-meta-*` and chord counters accumulated in the broker Redis until it hit maxmemory (OOM command not allowed).",
   "Was fixed immediately after the incident; kept for history.",
   fix=["Removed the override; chord results now expire after 24h.", "Added a Datadog monitor on broker key count."],
   files="backend/harbor/billing/usage.py", conf=0.9, upd="2026-10-13")

td("pod-upload-queue-no-backoff", "Driver app POD upload queue retries without backoff", "2025-01-29",
   "mobile offline uploads battery retries driver-app",
   "open", "medium",
   "When offline, the proof-of-delivery upload queue retries every 5 seconds forever, draining battery on devices that are offline for hours.",
   "Needs NetInfo-based scheduling and background fetch changes that require a native release.",
   fix=["Exponential backoff up to 10 minutes.", "Trigger retries on NetInfo connectivity change."],
   files="mobile/src/pod/uploadQueue.ts", conf=0.8)

td("sentry-clientdisconnect-noise", "`ClientDisconnect` errors flood Sentry", "2026-01-08",
   "sentry noise errors fastapi starlette",
   "open", "low",
   "`starlette.requests.ClientDisconnect` is raised when mobile clients drop connections during uploads and is reported as an error (~200k events/month).",
   "Harmless, filtering it is trivial but nobody owns it.",
   fix=["Ignore ClientDisconnect in `before_send` and count it as a metric instead."], conf=0.8)

td("ups-integration-no-contract-tests", "UPS integration has no recorded contract tests", "2026-09-15",
   "carriers ups testing contract-tests respx",
   "open", "medium",
   "FedEx and DHL clients have respx tests with recorded responses; UPS has only manual tests against the sandbox, which is frequently down.",
   "UPS sandbox instability makes recording hard.",
   impact=["UPS API changes break label purchase without failing CI"],
   fix=["Record production-like responses and add respx fixtures.", "Nightly job against the sandbox that alerts but does not block."], conf=0.75)

td("ag-grid-in-main-bundle", "ag-grid is bundled in the main chunk", "2025-03-13",
   "web bundle-size ag-grid vite performance lazy-loading",
   "open", "medium",
   "ag-grid Enterprise (~300KB gz) is imported by a shared `DataTable` component used on the dashboard, so it lands in the initial chunk and breaks the bundle budget (currently waived).",
   "Dashboard redesign planned for Q1 2026 will replace the table.",
   fix=["Lazy-load `DataTable` with `React.lazy` per route.", "Use a lightweight table on the dashboard."], conf=0.8)

td("n-plus-one-shipments-list", "N+1 queries on GET /v1/shipments (latest tracking event)", "2024-12-10",
   "performance sqlalchemy n-plus-one api shipments",
   "resolved", "high",
   "The list endpoint lazy-loaded `shipment.latest_event` for each row, issuing 201 queries per page.",
   "Resolved by a `selectinload` and a denormalized `last_event_at` column.",
   fix=["selectinload(Shipment.latest_event)", "Add a test asserting query count with `assert_num_queries`."], conf=0.85,
   upd="2025-01-21")

td("datetime-utcnow-deprecated-calls", "~140 `datetime.utcnow()` calls must go before Python 3.12", "2026-10-20",
   "python datetime utcnow python312 timezone deprecation",
   "in_progress", "medium",
   "`datetime.utcnow()` returns naive datetimes and is deprecated in 3.12 (DeprecationWarning, errors under our `-W error` test config). It also bypasses our `AwareDateTime` guarantees.",
   "Found while preparing the Python 3.12 upgrade.",
   fix=["Replace with `datetime.now(UTC)`; ruff rule DTZ003 enabled to prevent regressions."],
   ac=["`ruff check --select DTZ` passes"], conf=0.85)

td("email-templates-duplicated-per-locale", "Transactional email templates copied per locale", "2026-07-21",
   "email templates i18n notifications duplication",
   "open", "low",
   "Each transactional email has three full HTML copies (`en`, `ko`, `ja`), so layout fixes must be made three times and often are not.",
   "Translation workflow for emails is not in Lokalise yet.",
   fix=["One MJML template per email with translation keys resolved from Lokalise."], conf=0.75)

td("terraform-monolithic-prod-state", "Prod Terraform is one huge state; plan takes 8 minutes", "2026-05-05",
   "terraform state infra refactor",
   "open", "medium",
   "`infra/terraform/envs/prod` manages ~1,900 resources in one state, so every plan refreshes everything, and unrelated changes conflict on the lock.",
   "Splitting state requires `terraform state mv` work and careful ordering.",
   fix=["Split into network, data (RDS/ElastiCache/OpenSearch/MSK), eks and apps stacks with remote state outputs."], conf=0.8)

td("services-not-on-helm-library-chart", "search and outbox-relay charts do not use the shared Helm library chart", "2026-06-30",
   "helm kubernetes deploys charts duplication",
   "open", "low",
   "Two charts were copied before the library chart existed and lack PDBs, standard labels and the ExternalSecret template.",
   "They deploy rarely.",
   fix=["Port both to `harbor-lib` chart."], conf=0.75)

td("mypy-type-ignores-shipments", "300+ `# type: ignore` comments in harbor.shipments", "2026-09-01",
   "python mypy typing shipments code-quality",
   "open", "low",
   "When mypy was enabled, `harbor.shipments` got blanket `# type: ignore` comments, hiding real issues (e.g. Optional addresses).",
   "Low risk day to day; fix opportunistically.",
   ac=["Fewer than 20 ignores, each with an error code"], conf=0.75)

td("idempotency-keys-cleanup-single-delete", "`idempotency_keys` cleanup runs one giant DELETE", "2026-02-17",
   "postgres cleanup idempotency performance locks",
   "open", "medium",
   "The nightly cleanup deletes ~3M rows with one DELETE, causing WAL spikes and replica lag. It failed twice and the table grew to 120GB.",
   "Workaround: cleanup runs at 03:00 KST.",
   fix=["Partition by day and drop partitions, or delete in batches of 10k with sleep."], conf=0.8)

td("driver-app-mixed-navigation", "Driver app mixes React Navigation 5 stacks with Expo Router", "2026-08-25",
   "mobile react-navigation expo-router refactor",
   "open", "low",
   "Older screens (settings, route history) use React Navigation 5 stacks mounted inside Expo Router, causing double headers and broken deep links.",
   "Needs QA on devices for every migrated screen.",
   fix=["Move remaining screens to file-based routes under `mobile/app/`."], conf=0.75)

td("missing-japanese-translations-silent-fallback", "Missing Japanese translations silently fall back to English", "2026-06-02",
   "i18n japanese translations web lokalise",
   "open", "medium",
   "When a key is missing in `ja`, react-i18next falls back to English with no report; Tokyo customers see mixed-language screens after each release.",
   "Translation turnaround is 2-3 days and releases are weekly.",
   fix=["CI check that fails if new keys lack ko/ja translations, with an override label.", "`saveMissing` reporting to Sentry in staging."], conf=0.8)

td("api-key-events-missing-from-audit-log", "API key creation and revocation are not written to the audit log", "2025-07-08",
   "audit-log api-keys security compliance",
   "open", "high",
   "harbor-auth does not emit audit events for API key create/revoke or SAML connection changes; SOC 2 auditors flagged it.",
   "harbor-auth has its own database; the audit log lives in the main backend.",
   fix=["Publish `auth.api_key.created.v1` events to Kafka and consume them into `audit_events`."], conf=0.85)

td("rate-limiter-fails-open", "API rate limiter fails open when the cache Redis is unavailable", "2026-10-11",
   "api rate-limiting redis resilience security",
   "open", "medium",
   "If `harbor-cache` is unreachable the token-bucket middleware lets all requests through; during the October cache failover one client sent 40k requests in a minute.",
   "Failing closed would turn a cache incident into a full API outage.",
   fix=["Fall back to a per-pod in-memory limiter with a lower limit when Redis is down."], conf=0.75)

td("webhook-retries-use-celery-countdown", "Webhook retries use Celery countdown (ETA tasks held in worker memory)", "2025-04-24",
   "celery webhooks retries countdown eta redis",
   "open", "medium",
   "Failed webhook deliveries are retried with `self.retry(countdown=...)` up to 3 days; ETA tasks sit in worker memory and in `unacked` on Redis, and are redelivered in bulk after visibility timeouts.",
   "A proper delayed-delivery table is a medium-sized project.",
   impact=["Duplicate deliveries after worker restarts", "Worker memory growth during customer outages"],
   fix=["Store pending retries in `webhook_deliveries` with `next_attempt_at` and poll with a beat task."], conf=0.8)

td("invoice-pdf-generated-in-request", "Invoice PDF is generated synchronously inside the API request", "2026-02-24",
   "billing pdf weasyprint performance api",
   "open", "medium",
   "`GET /v1/invoices/{id}/pdf` renders with WeasyPrint in the request thread; large invoices (5k lines) take 20s and tie up API workers.",
   "Rarely hit except by two large customers.",
   fix=["Render on invoice finalization in the labels worker and store in S3; the endpoint returns a presigned URL."], conf=0.8)

td("static-tokens-in-github-secrets", "Some workflows still use static tokens (Sentry, npm, Expo) in GitHub secrets", "2026-05-12",
   "ci github-actions secrets security tokens",
   "open", "medium",
   "AWS access uses OIDC, but `SENTRY_AUTH_TOKEN`, `NPM_TOKEN` and `EXPO_TOKEN` are long-lived org secrets with broad scopes.",
   "Vendors lack OIDC federation; rotation needs coordination.",
   fix=["Scope tokens to single projects and rotate quarterly.", "Move to environment-level secrets with required reviewers."], conf=0.75)

td("chinese-address-field-truncation", "中文地址字段长度不足导致地址被截断", "2026-04-07",
   "地址 截断 中文 addresses varchar schema",
   "open", "medium",
   "`addresses.line1`定义为varchar(100)，部分中国地址（含省市区、街道、小区、楼栋号）超过100个字符，导入时被截断，快递员无法找到收件人。",
   "修改列类型需要在shipments大表上做迁移，计划和下一次表拆分一起做。",
   fix=["将地址字段改为text并在应用层限制为500字符。", "导入时若超长给出警告而不是静默截断。"], conf=0.75)

td("jp-invoice-rounding-per-line", "請求書の消費税端数処理が明細行ごとになっている", "2025-09-30",
   "請求書 消費税 端数処理 インボイス制度 billing japan",
   "resolved", "high",
   "旧実装では明細行ごとに消費税を計算して切り捨てていたため、インボイス制度のルール(税率ごとに1請求書あたり1回の端数処理)に違反し、顧客側の計算と数円ずれていた。",
   "適格請求書フォーマット導入時に修正済み。履歴として残す。",
   fix=["税率ごとに合計してから1回だけ端数処理する`jp_tax_totals()`に置き換えた。"],
   files="backend/harbor/billing/invoices/jp.py", conf=0.85, upd="2025-11-12")

td("backend-docker-image-too-large", "Backend Docker image is 2.1GB and slows deploys and scale-up", "2026-10-05",
   "docker images performance deploys kubernetes",
   "open", "medium",
   "The single backend image includes LightGBM, WeasyPrint with all CJK fonts, build toolchains and test dependencies; image pulls take 60-90s on new nodes, slowing worker scale-up under Karpenter.",
   "Splitting images per workload complicates the Helm chart and CI.",
   fix=["Multi-stage build without compilers and test deps.", "Separate images for `labels` (fonts) and `eta-scorer` (ML deps).", "Use zstd compression and SOCI lazy loading."],
   files="backend/Dockerfile", conf=0.8)

td("stale-launchdarkly-flags", "About 40 stale LaunchDarkly flags still referenced in code", "2026-10-25",
   "feature-flags launchdarkly cleanup",
   "open", "low",
   "The flag audit found ~40 flags at 100% for more than 30 days (some since 2025) still evaluated in backend and web code.",
   "Each removal needs the owner to confirm; owners left for some flags.",
   fix=["Use LaunchDarkly code references to list call sites.", "Remove 10 flags per release train."], conf=0.8)

td("kafka-client-library-mix", "Two Kafka client libraries in use (confluent-kafka and aiokafka)", "2026-08-11",
   "kafka python libraries consistency",
   "open", "low",
   "The outbox relay and tracking consumer use confluent-kafka, the search indexer uses aiokafka; config, metrics and error handling differ.",
   "Search indexer works and is owned by one person.",
   fix=["Standardize on confluent-kafka with the shared `harbor.events.kafka` wrapper."], conf=0.75)

td("saml-single-connection-per-tenant", "Tenants are limited to a single SAML connection", "2026-07-07",
   "auth saml sso enterprise multi-idp",
   "open", "medium",
   "Two enterprise customers after acquisitions need two IdPs (Okta and Azure AD); the `saml_connections.tenant_id` unique constraint prevents this.",
   "Needs email-domain based IdP discovery on the login page.",
   fix=["Allow multiple connections with `email_domains`, route by domain at login."], conf=0.75)

td("ecs-task-definitions-shared-module", "Extract ECS task definitions into a shared Terraform module", "2024-03-15",
   "ecs terraform refactor",
   "open", "low",
   "Each ECS service copies ~200 lines of task definition.",
   "Lower priority than features.",
   status="archived", when="2024-11-20", why="ECS decommissioned after the move to EKS.", conf=0.6)

td("upgrade-cypress-to-13", "Upgrade Cypress to v13 to fix CI hangs", "2024-09-05",
   "web e2e cypress upgrade",
   "wont_fix", "low",
   "Cypress 12 hangs randomly on CI after the test run.",
   "Evaluating Playwright instead.",
   status="retired", when="2025-03-25", why="Cypress removed; e2e moved to Playwright.", conf=0.5)

td("alembic-history-too-long", "Alembic history has 600+ revisions; fresh database setup takes 4 minutes", "2026-08-18",
   "alembic migrations ci performance squash",
   "open", "low",
   "`alembic upgrade head` on an empty database replays 640 revisions, which slows Testcontainers startup and new developer setup; some old revisions import application models that no longer exist.",
   "Squashing requires a baseline revision and coordination with the regional (KR/JP) databases.",
   fix=["Create a baseline from `pg_dump --schema-only` at a release tag and start a new history branch.", "Never import application models in migrations."], conf=0.75)

td("tests-share-redis-without-cleanup", "Tests share one Redis database without cleanup between tests", "2025-05-08",
   "testing redis flaky-tests fixtures pytest",
   "in_progress", "medium",
   "Cache and rate-limiter tests use the real local Redis (db 0) and only some use the `redis_clean` fixture; leftover keys make tests pass or fail depending on order.",
   "Converting every test that touches Redis is tedious.",
   fix=["Autouse fixture that selects a per-worker Redis db and FLUSHDB after each test.", "Use fakeredis only for pure unit tests."],
   files="backend/tests/conftest.py", conf=0.8)

# ---------------------------------------------------------------------------
# Session summaries
# ---------------------------------------------------------------------------

ses("session-celery-oom-csv-import-investigation", "Session: investigated Celery worker OOMs on large CSV imports", "2024-08-13",
    "celery oom csv imports memory session",
    "Find out why worker-imports pods get OOMKilled when Acme Freight uploads their weekly 900MB CSV.",
    "success",
    ["Reproduced locally with a 900MB synthetic file and memray: pandas `read_csv` peaked at 6.1GB.",
     "Prototyped a streaming reader with `csv.DictReader` over S3 `iter_lines` processing 5,000-row chunks: peak 180MB.",
     "Wrote the decision record for chunked streaming imports."],
    ["Port custom column mappings to the streaming importer.", "Add `worker_max_memory_per_child` as a safety net."],
    key_changes=["backend/harbor/imports/csv_reader.py (new)", "backend/harbor/imports/tasks.py"], conf=0.9)

ses("session-debug-saml-login-acme", "Session: debugged SAML SSO login failures for an ADFS tenant", "2024-09-19",
    "auth saml sso adfs debugging session",
    "Fix 'Response has expired' SAML errors for Nordwind Logistics (ADFS).",
    "success",
    ["Found their ADFS server clock 3 minutes behind; assertions valid for only 60s.",
     "Made `SAML_ALLOWED_CLOCK_DRIFT` configurable per tenant (default 120s).",
     "Wrote the runbook for SAML clock skew."],
    ["Ask customer IT to fix NTP, then lower their drift back to default."], conf=0.85)

ses("session-stripe-metered-billing-rollout", "Session: rolled out Stripe metered billing for shipment volume", "2024-11-26",
    "stripe billing metered usage rollout session",
    "Move the first 20 tenants from seat pricing to metered shipment pricing.",
    "partial",
    ["Hourly usage reporting job with idempotency keys per tenant-hour.",
     "Webhook handlers for `invoice.created` and `invoice.finalized` made idempotent via `stripe_events`.",
     "Migrated 14 of 20 tenants."],
    ["Migrate the remaining 6 tenants after their contract renewal.", "Build the usage page in the web app."],
    blockers=["6 tenants have custom annual contracts that need finance sign-off."], conf=0.85)

ses("session-opensearch-cjk-reindex", "Session: added nori/kuromoji analyzers and reindexed shipments", "2025-02-13",
    "opensearch search nori kuromoji reindex session",
    "Improve Korean and Japanese search relevance for addresses and names.",
    "success",
    ["Added `.ko` (nori) and `.ja` (kuromoji) subfields to address and name fields.",
     "Reindexed 41M documents into `shipments_v7` with dual-write and alias swap in 3h20m.",
     "Wrote the alias swap reindex runbook."],
    ["Add ICU NFKC normalization for full-width/half-width characters in the next reindex.", "Delete shipments_v6 after 7 days."], conf=0.85)

ses("session-split-redis-cache-broker", "Session: split Redis into separate cache and broker clusters", "2025-03-11",
    "redis celery elasticache terraform session",
    "Stop cache evictions from dropping Celery tasks by splitting Redis.",
    "success",
    ["New Terraform module instance `harbor-prod-broker` (noeviction, Multi-AZ).",
     "Celery now uses `REDIS_BROKER_URL`; cache client uses `REDIS_CACHE_URL`.",
     "Drained the old queues and cut over during the Sunday window with no task loss."],
    ["Remove broker settings from the cache cluster parameter group.", "Add separate Datadog monitors for both clusters."],
    key_changes=["infra/terraform/envs/prod/elasticache.tf", "backend/harbor/settings.py", "docker-compose.yml"], conf=0.9)

ses("session-outbox-relay-implementation", "Session: implemented the transactional outbox and relay", "2024-11-14",
    "kafka outbox events relay session",
    "Stop losing `shipment.status_changed` events between DB commit and Kafka publish.",
    "success",
    ["`outbox_events` table partitioned by day.", "`harbor.events.publish()` now writes to the outbox inside the caller's transaction.",
     "Relay process with advisory lock so only one replica publishes."],
    ["Drop partitions older than 7 days via pg_partman.", "Migrate the billing events producer."], conf=0.85)

ses("session-vite-migration", "Session: migrated the web app from CRA to Vite", "2024-05-09",
    "web vite cra migration session",
    "Replace Create React App with Vite and Jest with Vitest.",
    "success",
    ["Renamed `REACT_APP_*` env vars to `VITE_*`.", "Converted 310 Jest tests to Vitest (mostly import changes).", "CI build time went from 6m to 55s."],
    ["Remove the `react-scripts` eject leftovers.", "Update the onboarding doc."], conf=0.85)

ses("session-playwright-migration", "Session: ported Cypress e2e suite to Playwright", "2025-04-02",
    "web e2e playwright cypress migration session",
    "Replace flaky Cypress tests with Playwright.",
    "partial",
    ["Ported 42 of 55 specs.", "Sharded CI run (4 shards) takes 6 minutes.", "Trace on first retry enabled."],
    ["Port the remaining billing and admin specs.", "Delete Cypress config and dependency."],
    in_progress=["booking-checkout.spec.ts still flaky (rate table loading state)."], conf=0.8)

ses("session-flaky-test-hunt", "Session: flaky backend test hunt with pytest-randomly", "2025-05-09",
    "testing flaky-tests pytest-randomly redis session",
    "Reduce backend CI flake rate (12% of runs) after enabling random test order.",
    "partial",
    ["Fixed 9 order-dependent tests (leaked settings cache, unfrozen time, leftover Redis keys).",
     "Added the `redis_clean` fixture and `settings_override` fixture.",
     "Quarantined 3 tests with tickets."],
    ["Make the Redis cleanup fixture autouse.", "Fix quarantined `test_eta_rollover_at_midnight`."],
    key_changes=["backend/tests/conftest.py"], conf=0.8)

ses("session-pydantic-v2-api-schemas", "Session: migrated harbor.api schemas to Pydantic v2", "2025-06-12",
    "pydantic fastapi migration schemas session",
    "Move all API request/response models to Pydantic v2.",
    "success",
    ["Ran bump-pydantic, then fixed `Config` -> `model_config`, validators -> `field_validator`.",
     "Updated the problem+json handler for the new `ValidationError.errors()` format.",
     "CSV import validation 6x faster in the benchmark."],
    ["Migrate harbor.legacy (or delete it).", "Announce the 422 format change to API customers."],
    key_changes=["backend/harbor/api/schemas/", "backend/harbor/api/errors.py"], conf=0.85)

ses("session-uv-migration", "Session: switched Python projects from Poetry to uv", "2025-07-16",
    "python uv poetry ci session",
    "Replace Poetry with uv in backend, auth and search.",
    "success",
    ["Converted pyproject files to PEP 621, generated `uv.lock`.", "CI install step went from 4m to 25s.", "Dockerfiles use `uv sync --frozen --no-dev`."],
    ["Update the new developer setup runbook."], conf=0.85)

ses("session-tokyo-region-setup", "セッション: 東京リージョン(ap-northeast-1)の環境構築", "2025-06-03",
    "東京リージョン terraform データ保管 japan session",
    "日本テナント用に東京リージョンの本番環境(RDS、S3、EKS)を構築する。",
    "partial",
    ["Terraformで`envs/prod-apne1`を作成し、RDS・S3・ElastiCacheを構築した。",
     "テナントの`data_region`に応じてDB接続先を切り替える`harbor.tenancy.regions`を実装した。"],
    ["EKSクラスタとHelmリリースの作成。", "リージョン別のAlembicマイグレーション実行をデプロイワークフローに追加する。"],
    blockers=["OpenSearchの東京リージョンのドメイン上限引き上げ申請中。"], conf=0.8)

ses("session-alimtalk-integration-ko", "세션: 카카오 알림톡 배송 알림 연동", "2026-10-17",
    "알림톡 카카오 알림 notifications session",
    "배송출발/배송완료/배송지연 알림을 카카오 알림톡으로 보내고 실패 시 SMS로 대체 발송한다.",
    "partial",
    ["`harbor.notifications.kakao` 클라이언트와 템플릿 3종 구현.", "실패 코드별 SMS(LMS) 대체 발송 로직 추가.", "스테이징에서 테스트 발송 성공."],
    ["배송지연 템플릿 검수 승인 대기 후 운영 반영.", "발송 결과 웹훅 수신 처리."],
    blockers=["배송지연 템플릿 카카오 검수 반려 (문구 수정 후 재요청)."], conf=0.8)

ses("session-broker-redis-oom-incident", "Session: broker Redis OOM incident and follow-ups", "2026-10-11",
    "redis celery broker oom incident session",
    "Resolve `OOM command not allowed` on the Celery broker Redis and find the cause.",
    "success",
    ["Found 9M `celery-task-meta-*` keys from the billing usage chord with expiry disabled.",
     "Deleted them with SCAN/UNLINK in batches; enqueueing recovered after 25 minutes.",
     "Removed the `result_expires=None` override and added a monitor on broker key count.",
     "Re-reported missing hourly Stripe usage."],
    ["Postmortem doc by Oct 14.", "Consider a separate result backend or disabling results for fire-and-forget tasks."], conf=0.9)

ses("session-python-312-upgrade-prep", "Session: preparing the Python 3.12 upgrade", "2026-10-21",
    "python python312 upgrade session",
    "Find and fix blockers for moving all services to Python 3.12.",
    "partial",
    ["Confirmed xmlsec 1.3.14 works with python3-saml on 3.12.", "CI matrix job for 3.12 added (non-blocking).",
     "Replaced 60 of ~140 `datetime.utcnow()` calls."],
    ["Replace the remaining utcnow calls.", "Rebuild worker base images.", "Switch in the November release train."],
    in_progress=["Fixing DeprecationWarnings in harbor.legacy imports."], conf=0.8)

ses("session-ci-xdist-template-db", "Session: parallel backend tests with pytest-xdist and template databases", "2026-10-09",
    "ci pytest xdist testcontainers performance session",
    "Cut backend CI time by running tests in parallel.",
    "partial",
    ["One Postgres container, one database per xdist worker cloned from a migrated template database.",
     "Backend CI from 25 to ~14 minutes."],
    ["Split into 4 shards in the Actions matrix using pytest-split timings.", "Make Redis per-worker db selection autouse."], conf=0.8)

ses("session-argo-rollouts-spike", "Session: spike on Argo Rollouts canaries for the API", "2026-10-07",
    "argo-rollouts canary kubernetes deploys session",
    "Evaluate Argo Rollouts canaries with Datadog analysis for the api deployment.",
    "success",
    ["Installed Argo Rollouts in staging via Helm.", "Converted the api Deployment to a Rollout with 10/50/100 steps.",
     "AnalysisTemplate queries Datadog for 5xx rate; a forced bad release was aborted automatically."],
    ["Write the proposal decision record.", "Decide how migrations interact with paused canaries."], conf=0.75)

ses("session-karpenter-trial", "Session: Karpenter trial on the staging EKS cluster", "2026-10-03",
    "karpenter eks autoscaling kubernetes session",
    "Compare Karpenter and Cluster Autoscaler for worker scale-up time and cost.",
    "success",
    ["Scale-up for 30 import worker pods: 95s with Karpenter vs 4m10s with Cluster Autoscaler.",
     "Spot NodePool for `imports`, on-demand for `api` and `labels`."],
    ["Roll out to prod after the peak season freeze.", "Add interruption handling (SQS) for spot."], conf=0.8)

ses("session-postgres-16-blue-green-rehearsal", "Session: rehearsed the PostgreSQL 16 blue/green upgrade on staging", "2026-10-26",
    "postgres rds upgrade blue-green session",
    "Rehearse the RDS blue/green switchover to PostgreSQL 16.",
    "partial",
    ["Added primary keys to `legacy_rate_cards` and `carrier_zone_map` (needed for logical replication).",
     "Staging switchover took 48 seconds of write downtime.",
     "PgBouncer reconnected automatically after DNS change."],
    ["Re-run the full test suite against PG16.", "Schedule prod switchover after the peak season freeze."],
    blockers=["pg_partman extension version on green must be upgraded first."], conf=0.8)

ses("session-eta-model-v3", "Session: trained and shipped ETA model v3", "2025-11-06",
    "eta machine-learning lightgbm session",
    "Improve LTL ETA accuracy with carrier holiday calendars.",
    "success",
    ["Added KR/JP/DE/US holiday features and per-terminal dwell times.", "MAE improved from 0.92 to 0.61 days on the 4-week holdout.", "Promoted v3 via `ETA_MODEL_VERSION`."],
    ["Monitor accuracy dashboard for 2 weeks.", "Document the retrain workflow."], conf=0.75)

ses("session-import-duplicate-refs-fix", "Session: fixed duplicate external_ref IntegrityErrors in imports", "2026-10-21",
    "imports integrityerror postgres csv session",
    "Stop import jobs from failing with IntegrityError on `shipments_tenant_external_ref_key` after retries.",
    "success",
    ["Streaming importer now uses `INSERT ... ON CONFLICT (tenant_id, external_ref) DO UPDATE`.",
     "Added `test_import_duplicate_refs` covering retried chunks and duplicates inside one file.",
     "Migrated two more tenants off the legacy pandas importer."],
    ["Migrate the last four legacy tenants.", "Show duplicate references in the import report UI."],
    key_changes=["backend/harbor/imports/writer.py", "backend/tests/imports/test_import_duplicate_refs.py"], conf=0.85)

ses("session-settings-pages-tanstack-migration", "Session: moved user management pages from Redux to TanStack Query", "2025-11-04",
    "web redux tanstack-query refactor session",
    "Migrate the settings > users pages off the legacy Redux store.",
    "partial",
    ["Replaced `usersSlice` with generated `useUsersQuery` / `useInviteUserMutation` hooks.", "Invalidation via query key factory after invite and role change."],
    ["Carrier accounts page next.", "Billing settings page after the portal redesign."], conf=0.8)

ses("session-cn-customs-single-window", "会话：中国单一窗口报关接口对接", "2025-11-05",
    "报关 海关 单一窗口 customs china session",
    "为上海仓库客户实现清单申报报文生成和单一窗口提交。",
    "partial",
    ["实现了申报报文生成和签名。", "在测试环境提交成功并收到回执。"],
    ["处理退单回执并在界面上显示原因。", "为HS编码缺失的订单增加校验提示。"],
    blockers=["生产环境的企业证书还在办理中。"], conf=0.7)

ses("session-jp-qualified-invoice", "セッション: インボイス制度対応の請求書PDF実装", "2025-10-02",
    "請求書 インボイス制度 pdf billing japan session",
    "日本テナント向けに適格請求書の要件を満たす請求書PDFを作る。",
    "success",
    ["登録番号、税率ごとの合計・消費税額を表示するテンプレート`invoice_jp.html`を作成。",
     "端数処理を税率ごとに1回に変更(`jp_tax_totals()`)。",
     "経理担当者のレビューでOKをもらった。"],
    ["既存の請求書を再発行するかどうかを経理と相談する。"], conf=0.8)

ses("session-api-rate-limiting", "Session: built the Redis token bucket rate limiter for the public API", "2025-04-23",
    "api rate-limiting redis lua session",
    "Protect the public API from one customer's polling traffic.",
    "success",
    ["Lua token bucket script (atomic refill + take) on the cache Redis.", "`RateLimit-Limit/Remaining/Reset` headers and 429 with Retry-After.", "Per-key overrides with expiry in the admin UI."],
    ["Decide fail-open vs fail-closed behaviour when Redis is down."], conf=0.85)

ses("session-leaked-api-key-response", "Session: handled a leaked customer API key found by GitHub secret scanning", "2025-07-08",
    "security api-keys incident session",
    "Respond to an `hbr_live_` key committed to a customer's public repo.",
    "success",
    ["Revoked the key within 12 minutes of the alert.", "No usage from unknown IPs found in the request log.", "Wrote the leaked API key runbook."],
    ["Add API key events to the audit log (tech debt).", "Automate revocation for secret-scanning alerts."], conf=0.85)

ses("session-offline-pod-queue", "Session: offline proof-of-delivery queue in the driver app", "2024-10-03",
    "mobile offline proof-of-delivery mmkv uploads session",
    "Let drivers complete deliveries without connectivity.",
    "success",
    ["Persistent upload queue with MMKV index and files in the document directory.", "Background upload via presigned S3 POST.", "Server accepts late POD events with original timestamps."],
    ["Add backoff to retries (battery).", "Show pending upload count in the UI."], conf=0.8)

ses("session-terraform-state-split-spike", "Session: spike on splitting the prod Terraform state", "2026-06-16",
    "terraform state refactor spike session",
    "Find out how hard it is to split the prod state into stacks.",
    "abandoned",
    ["Moved the network resources in a copy of the state with `terraform state mv`; took 3 hours for 140 resources."],
    ["Revisit after peak season; consider terraform `moved`/`import` blocks or Terragrunt."],
    blockers=["Too risky to do by hand before peak season; needs a scripted approach."], conf=0.7)

ses("session-graphql-spike", "Session: GraphQL gateway spike for dashboards", "2024-12-12",
    "api graphql spike session",
    "Evaluate Strawberry GraphQL for the dashboard widgets.",
    "abandoned",
    ["Prototype of three dashboard queries with Strawberry.", "Found tenant isolation and rate limiting would need a parallel implementation."],
    ["Build dedicated aggregate REST endpoints instead (see decision)."], conf=0.7)

ses("session-korean-label-font-fix", "세션: 한글 라벨 PDF 폰트 깨짐 수정", "2024-07-03",
    "pdf 폰트 한글 라벨 weasyprint session",
    "슬림 이미지 전환 후 한글 라벨이 네모로 나오는 문제 해결.",
    "success",
    ["Dockerfile에 `fonts-noto-cjk` 패키지 추가.", "라벨 템플릿 CSS의 font-family 순서 수정.", "영향받은 라벨 312건 재생성."],
    ["이미지 빌드 시 폰트 존재 여부를 확인하는 테스트 추가."], conf=0.8)

ses("session-ecs-to-eks-cutover", "Session: cut over api and workers from ECS to EKS", "2024-11-19",
    "ecs eks migration kubernetes session",
    "Move the remaining ECS services to EKS and decommission ECS.",
    "success",
    ["Switched ALB target groups to the EKS ingress.", "Scaled ECS services to zero and deleted them after 24h."],
    ["Delete ECS Terraform code."],
    status="archived", when="2025-06-01", why="Historical; ECS no longer exists.", conf=0.7)

ses("session-cypress-parallel-ci", "Session: tried Cypress parallelization in CI", "2024-09-10",
    "web e2e cypress ci session",
    "Make Cypress e2e faster with parallel runs.",
    "abandoned",
    ["Parallelization needs the paid Cypress Cloud plan."],
    ["Evaluate Playwright."],
    status="archived", when="2025-04-02", why="Cypress replaced by Playwright.", conf=0.6)

ses("session-wkhtmltopdf-font-debug", "Session: debugging CJK fonts in wkhtmltopdf labels", "2024-05-30",
    "pdf wkhtmltopdf fonts cjk session",
    "Fix broken Japanese characters in wkhtmltopdf labels.",
    "blocked",
    ["Qt WebKit build ignores fontconfig aliases for Noto CJK JP."],
    ["Evaluate WeasyPrint."],
    status="archived", when="2024-06-20", why="wkhtmltopdf replaced by WeasyPrint.", conf=0.6)

# ---------------------------------------------------------------------------
# Build and check
# ---------------------------------------------------------------------------

ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
ASCII_TAG_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
KIND_MINIMUMS = {
    "exact": 10, "paraphrase": 12, "word_form": 10, "identifier": 12, "prefix": 6, "typo": 8,
    "ko": 6, "ja": 5, "zh": 3, "mixed": 6, "silent": 24,
}
CATEGORY_TARGETS = {"decision": 80, "runbook": 70, "constraint": 50, "preference": 45,
                    "tech_debt": 45, "session_summary": 30}


def _finalize_changes() -> None:
    """Keep change dates inside [created_at, updated_at]."""
    for rec in MEMORIES:
        for ch in rec.get("changes", []):
            if ch["date"] > rec["updated_at"]:
                ch["date"] = rec["updated_at"]
            if ch["date"] < rec["created_at"]:
                ch["date"] = rec["created_at"]


def render(rec: dict) -> str:
    return json.dumps(rec, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def build() -> None:
    _finalize_changes()
    for folder in FOLDERS.values():
        d = MEMORY_DIR / folder
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
    for rec in MEMORIES:
        path = MEMORY_DIR / FOLDERS[rec["category"]] / f"{rec['id']}.json"
        path.write_text(render(rec), encoding="utf-8")
    print(f"wrote {len(MEMORIES)} memories to {MEMORY_DIR.relative_to(HERE.parent.parent)}")


def _valid_tag(tag: str) -> bool:
    if ASCII_TAG_RE.match(tag):
        return True
    if tag.isascii() or tag != tag.lower():
        return False
    return all(ch.isalnum() or ch in "._-" for ch in tag)


def _nonempty_str(v) -> bool:
    return isinstance(v, str) and v.strip() != ""


def _str_list(v, allow_empty=False) -> bool:
    return isinstance(v, list) and (allow_empty or len(v) > 0) and all(_nonempty_str(x) for x in v)


def _check_content(rec: dict, err) -> None:
    c, cat = rec["content"], rec["category"]
    opt_lists = {
        "decision": ["consequences"], "session_summary": ["in_progress", "blockers", "key_changes"],
        "runbook": ["symptoms"], "constraint": ["workarounds"], "tech_debt": ["impact", "suggested_fix", "acceptance_criteria"],
        "preference": [],
    }[cat]
    if cat == "decision":
        if c.get("status") not in ("proposed", "accepted", "deprecated", "superseded"):
            err("bad decision status")
        for k in ("context", "decision"):
            if not _nonempty_str(c.get(k)):
                err(f"missing {k}")
        if not _str_list(c.get("rationale")):
            err("bad rationale")
        for alt in c.get("alternatives", []):
            if not (_nonempty_str(alt.get("option")) and _nonempty_str(alt.get("rejected_reason"))):
                err("bad alternative")
    elif cat == "session_summary":
        if not _nonempty_str(c.get("goal")):
            err("missing goal")
        if c.get("outcome") not in ("success", "partial", "blocked", "abandoned"):
            err("bad outcome")
        for k in ("completed", "next_actions"):
            if not _str_list(c.get(k)):
                err(f"bad {k}")
    elif cat == "runbook":
        for k in ("trigger", "verification"):
            if not _nonempty_str(c.get(k)):
                err(f"missing {k}")
        if not _str_list(c.get("steps")):
            err("bad steps")
        for k in ("root_cause", "environment"):
            if k in c and not _nonempty_str(c[k]):
                err(f"empty {k}")
    elif cat == "constraint":
        if c.get("kind") not in ("limitation", "gap", "policy", "technical"):
            err("bad kind")
        if not _nonempty_str(c.get("rule")):
            err("missing rule")
        if not _str_list(c.get("impact")):
            err("bad impact")
        if c.get("severity") not in ("high", "medium", "low"):
            err("bad severity")
        if not isinstance(c.get("active"), bool):
            err("bad active")
        if "expires" in c and not re.match(r"^\d{4}-\d{2}-\d{2}$", c["expires"]):
            err("bad expires")
    elif cat == "tech_debt":
        if c.get("status") not in ("open", "in_progress", "resolved", "wont_fix"):
            err("bad tech_debt status")
        if c.get("priority") not in ("critical", "high", "medium", "low"):
            err("bad priority")
        for k in ("description", "reason_deferred"):
            if not _nonempty_str(c.get(k)):
                err(f"missing {k}")
    elif cat == "preference":
        for k in ("topic", "value", "reason"):
            if not _nonempty_str(c.get(k)):
                err(f"missing {k}")
        if c.get("strength") not in ("strong", "default", "soft"):
            err("bad strength")
        ex = c.get("examples")
        if ex is not None:
            if set(ex) != {"prefer", "avoid"} or not all(_str_list(ex[k], allow_empty=True) for k in ex):
                err("bad examples")
    for k in opt_lists:
        if k in c and not _str_list(c[k]):
            err(f"bad {k}")


def check() -> int:
    _finalize_changes()
    errors: list[str] = []
    meta = json.loads(META.read_text(encoding="utf-8"))
    now = meta["now"]
    window_start = (datetime.strptime(now, "%Y-%m-%dT%H:%M:%SZ") - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")

    by_id: dict[str, dict] = {}
    for rec in MEMORIES:
        def err(msg, _id=rec.get("id")):
            errors.append(f"{_id}: {msg}")
        rid = rec["id"]
        if rid in by_id:
            err("duplicate id")
        by_id[rid] = rec
        if not ID_RE.match(rid) or len(rid) > 80:
            err("bad id slug")
        if rec["category"] not in FOLDERS:
            err("bad category")
        if rec["schema_version"] != "1.0":
            err("bad schema_version")
        if not (1 <= len(rec["title"]) <= 120):
            err(f"title length {len(rec['title'])}")
        tags = rec["tags"]
        if not (1 <= len(tags) <= 12) or len(set(tags)) != len(tags) or not all(_valid_tag(t) for t in tags):
            err(f"bad tags {tags}")
        for k in ("created_at", "updated_at"):
            if not TS_RE.match(rec[k]):
                err(f"bad {k}")
        if not ("2024-01-01T00:00:00Z" <= rec["created_at"] <= rec["updated_at"] < now):
            err("dates out of order or range")
        if "confidence" in rec and not (0 <= rec["confidence"] <= 1):
            err("bad confidence")
        st = rec["record_status"]
        if st not in ("active", "retired", "archived"):
            err("bad record_status")
        for s, other in (("retired", "archived"), ("archived", "retired")):
            if st == s:
                if not (_nonempty_str(rec.get(f"{s}_reason")) and TS_RE.match(rec.get(f"{s}_at", ""))):
                    err(f"missing {s} fields")
                elif not (rec["updated_at"] <= rec[f"{s}_at"] < now):
                    err(f"{s}_at out of range")
            if f"{other}_at" in rec and st != other:
                err(f"unexpected {other}_at")
        if st == "active" and ("retired_at" in rec or "archived_at" in rec):
            err("active record with retired/archived fields")
        for ch in rec.get("changes", []):
            if not (rec["created_at"] <= ch["date"] <= rec["updated_at"]) or not _nonempty_str(ch["summary"]):
                err("bad change entry")
        if "changes" in rec and rec.get("times_updated") != len(rec["changes"]):
            err("times_updated mismatch")
        _check_content(rec, err)

    # files on disk must match the generated records exactly
    on_disk = {}
    for folder in FOLDERS.values():
        for p in sorted((MEMORY_DIR / folder).glob("*.json")):
            on_disk[(folder, p.stem)] = p
    expected_files = {(FOLDERS[r["category"]], r["id"]): r for r in MEMORIES}
    for key in set(on_disk) - set(expected_files):
        errors.append(f"stray file {key[0]}/{key[1]}.json")
    for key, rec in expected_files.items():
        p = on_disk.get(key)
        if p is None:
            errors.append(f"missing file {key[0]}/{key[1]}.json (run build_store.py)")
        elif p.read_text(encoding="utf-8") != render(rec):
            errors.append(f"stale file {key[0]}/{key[1]}.json (run build_store.py)")
        else:
            loaded = json.loads(p.read_text(encoding="utf-8"))
            if loaded["id"] != p.stem or FOLDERS[loaded["category"]] != p.parent.name:
                errors.append(f"id/folder mismatch {p}")
    if (MEMORY_DIR / "index.md").exists():
        errors.append("index.md must not exist")

    # prompts
    kinds = Counter()
    prompt_ids = set()
    n_expected = Counter()
    for n, line in enumerate(PROMPTS.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            errors.append(f"prompts.jsonl:{n}: blank line")
            continue
        p = json.loads(line)
        if list(p) != ["id", "prompt", "expected", "kind"]:
            errors.append(f"prompts.jsonl:{n}: keys {list(p)}")
        if p["id"] in prompt_ids or not re.match(r"^p\d{3}$", p["id"]):
            errors.append(f"prompts.jsonl:{n}: bad/duplicate id {p['id']}")
        prompt_ids.add(p["id"])
        if p["kind"] not in KIND_MINIMUMS:
            errors.append(f"{p['id']}: bad kind {p['kind']}")
        kinds[p["kind"]] += 1
        if len(p["prompt"]) < 10:
            errors.append(f"{p['id']}: prompt too short")
        if len(set(p["expected"])) != len(p["expected"]):
            errors.append(f"{p['id']}: duplicate expected ids")
        for mid in p["expected"]:
            if mid not in by_id:
                errors.append(f"{p['id']}: unknown memory {mid}")
            elif by_id[mid]["record_status"] != "active":
                errors.append(f"{p['id']}: expected memory {mid} is not active")
        if (p["kind"] == "silent") != (not p["expected"]):
            errors.append(f"{p['id']}: silent <=> empty expected violated")
        n_expected[len(p["expected"])] += 1
    for kind, minimum in KIND_MINIMUMS.items():
        if kinds[kind] < minimum:
            errors.append(f"kind {kind}: {kinds[kind]} < {minimum}")

    # report
    cats = Counter(r["category"] for r in MEMORIES)
    statuses = Counter(r["record_status"] for r in MEMORIES)
    recent = sum(1 for r in MEMORIES if r["updated_at"] >= window_start)
    recent_created = sum(1 for r in MEMORIES if r["created_at"] >= window_start)
    years = Counter(r["created_at"][:4] for r in MEMORIES)
    non_ascii = sum(1 for r in MEMORIES if not r["title"].isascii())
    print(f"memories: {len(MEMORIES)}")
    for cat in CATEGORY_TARGETS:
        print(f"  {cat:16} {cats[cat]:4}  (target ~{CATEGORY_TARGETS[cat]})")
    print(f"record_status: {dict(statuses)}")
    print(f"created per year: {dict(sorted(years.items()))}")
    print(f"updated within last 30 days: {recent} ({recent / len(MEMORIES):.0%}); created: {recent_created}")
    print(f"non-English titles: {non_ascii} ({non_ascii / len(MEMORIES):.0%})")
    print(f"prompts: {sum(kinds.values())}")
    for kind, minimum in KIND_MINIMUMS.items():
        print(f"  {kind:11} {kinds[kind]:4}  (min {minimum})")
    print(f"expected list sizes: {dict(sorted(n_expected.items()))}")
    if errors:
        print(f"\n{len(errors)} error(s):")
        for e in errors:
            print("  " + e)
        return 1
    print("OK")
    return 0


def main(argv: list[str]) -> int:
    if "--check" in argv:
        return check()
    build()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
