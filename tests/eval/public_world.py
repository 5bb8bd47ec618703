"""The public sets' stores: memories restating real projects' public decision records and docs, and the
questions a teammate would ask about them (see ``build_public.py`` and ``tests/eval/README.md``).

Each memory restates one record or document section in a few sentences of our own (the facts, names
and numbers are the source's; no passage is copied); the questions were written for these sets, in
words that avoid the memory's title. ``STORES``: ``{name: (source, MEMORIES, QUESTIONS)}`` with
``MEMORIES`` ``(id, category, date, title, tags, content)`` and ``QUESTIONS`` ``(kind, prompt, [ids])``.
"""
from __future__ import annotations

from platform_world import constraint, debt, decision, preference, runbook  # noqa: F401  (the same shapes)

# Words naming each store's subject: an ordinary prompt with one of them (or a tag word) is "same domain".
PLATFORM_DOMAIN = ("aws", "eks", "kubernetes", "k8s", "cluster", "node", "nodes", "terraform", "helm", "chart", "pod",
                   "ingress", "dns", "cdn", "iam", "irsa", "vpc", "subnet", "cidr", "alb", "nlb", "karpenter",
                   "autoscaling", "docker", "container", "image", "registry", "ecr", "secret", "deploy", "argo",
                   "prometheus", "grafana", "alert", "alertmanager", "metrics", "logging", "tls", "certificate",
                   "security", "egress", "fargate", "addon", "launch", "instance", "ec2", "kms", "route53", "cloud")

STORES: dict = {}
