"""A memory met only by ordinary programming words is not recalled (``recall/relevance``)."""
from __future__ import annotations

import pytest

from helpers import record, write
from team_memory.base.config import load_config
from team_memory.derived.refresh import rebuild_index
from team_memory.recall.rank import rank

MEMORIES = [
    ("e2e", "End-to-end tests run in Playwright", ["testing", "playwright"]),
    ("zod", "API request types come from zod schemas", ["types", "zod", "api"]),
    ("s3", "Profile images live in S3", ["profile", "images", "s3"]),
    ("queue", "Billing retries go through the Redis queue", ["billing", "redis"]),
    ("helm", "Deploys use the Helm chart in infra/", ["helm", "deploy"]),
]


def _shown(memory_root, prompt: str) -> list:
    config = load_config(str(memory_root))
    return [h.entry["path"].rsplit("/", 1)[1][:-5] for h in rank(str(memory_root), config, prompt, 5)]


@pytest.mark.parametrize("cached", [False, True])
def test_an_ordinary_word_alone_recalls_nothing(memory_root, cached):
    for key, title, tags in MEMORIES:
        write(memory_root, record("decision", key, title, tags))
    if cached:
        rebuild_index(str(memory_root), load_config(str(memory_root)))
    assert _shown(memory_root, "write a test for the date parser") == []
    assert _shown(memory_root, "explain the type of this function") == []
    # a question about the memory's own words still gets it
    assert _shown(memory_root, "how do we run the playwright tests?")[:1] == ["e2e"]
    assert _shown(memory_root, "where do zod schemas live?")[:1] == ["zod"]
    assert _shown(memory_root, "where are profile images stored in s3?")[:1] == ["s3"]
