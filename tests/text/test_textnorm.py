"""The smart tokenizer: one test per rule."""
from __future__ import annotations

from hypothesis import given, strategies as st

from team_memory.base.config import deep_merge, load_config
from team_memory.text.textnorm import STOP_WORDS, fold, split_case, stop_words_for, stop_words_from, tokenize


def test_nfkc_and_casefold():
    assert tokenize("ＦＵＬＬ Width") == {"full", "width"}
    assert tokenize("STRASSE Straße") == {"strass"}  # casefold: ß -> ss, then the final e folds on both


def test_letters_and_digits_of_every_script():
    assert {"ação", "हिन्दी", "привет"} <= tokenize("ação हिन्दी привет")  # combining marks stay inside words
    assert "404" in tokenize("a 404 page")
    assert "über" in tokenize("Über")


def test_stop_words_and_single_characters_dropped():
    assert tokenize("how do I fix the thing") == {"fix"}
    assert tokenize("a b c") == set()
    assert tokenize("don't do it") == set()


def test_two_letter_words_kept():
    assert {"db", "ci"} <= tokenize("db ci")


def test_hangul_bigrams_plus_whole_run():
    assert tokenize("배포를 롤백") == {"배포를", "배포", "포를", "롤백"}


def test_kana_and_han_runs_split_by_script():
    toks = tokenize("デプロイの手順")
    assert {"デプロイ", "デプ", "プロ", "ロイ", "手順"} <= toks
    assert "の" not in toks and "イの" not in toks  # a lone kana drops; runs never span scripts


def test_chinese_bigrams():
    toks = tokenize("数据库迁移")
    assert toks == {"数据库迁移", "数据", "据库", "库迁", "迁移"}


def test_lone_han_character_kept():
    assert "型" in tokenize("型を使う")


def test_mixed_script_words_split_at_script_change():
    toks = tokenize("Redis를 써야")
    assert "redis" in toks and "써야" in toks


def test_identifiers_split_and_whole_kept():
    assert tokenize("ImportError") == {"importerror", "import", "error"}
    assert {"user_id", "user", "id", "userid"} <= tokenize("user_id")
    assert {"memory_retrieve.py", "memory", "retriev", "py"} <= tokenize("memory_retrieve.py")
    assert {"src/app/main.py", "src", "app", "main"} <= tokenize("src/app/main.py")
    assert {"pkg.mod.func", "pkg", "mod", "func"} <= tokenize("pkg.mod.func")
    assert {"user-service", "user", "servic"} <= tokenize("user-service")


def test_case_splitting():
    assert split_case("parseHTTPResponse") == ["parse", "HTTP", "Response"]
    assert split_case("HTTPServer") == ["HTTP", "Server"]
    assert split_case("oauth2Token") == ["oauth2", "Token"]
    assert split_case("lower") == ["lower"]


def test_snake_and_camel_meet():
    assert "importerror" in tokenize("import_error") & tokenize("ImportError")


def test_trailing_punctuation_is_not_part_of_an_identifier():
    assert tokenize("see retry.py.") == tokenize("retry.py")
    assert tokenize("(config)") == {"config"}


def test_suffix_folding_word_forms_meet():
    assert fold("fixing") == fold("fixed") == fold("fixes") == "fix"
    assert fold("policies") == fold("policy") == "policy"
    assert fold("caching") == fold("cache") == fold("cached") == fold("caches")
    assert fold("logging") == fold("logs") == fold("logged") == "log"
    assert fold("deployment") == fold("deploys") == fold("deploying") == "deploy"
    assert fold("migration") == fold("migrate") == fold("migrating")
    assert fold("processes") == fold("processing") == "process"
    assert fold("retries") == fold("retried") == fold("retry")


def test_folding_leaves_short_non_ascii_and_non_words_alone():
    assert fold("bus") == "bus" and fold("redis") == "redis" and fold("status") == "status"
    assert fold("ação") == "ação" and fold("v2") == "v2" and fold("sing") == "sing"


def test_folding_is_applied_to_both_sides_alike():
    assert tokenize("Fixing flaky tests") == tokenize("fixed flaky test")


def test_configurable_stop_words():
    assert "kafka" not in tokenize("kafka lag", stop_words_from(["Kafka"]))
    replaced = stop_words_from({"replace": ["lag"]})
    assert "the" not in replaced and tokenize("the lag", replaced) == {"the"}
    config = deep_merge(load_config(None), {"retrieval": {"stop_words": {"extra": ["harbor"]}}})
    assert stop_words_for(config) == STOP_WORDS | {"harbor"}
    assert stop_words_from("junk") == STOP_WORDS


@given(st.text(max_size=200))
def test_tokenize_never_fails_and_is_deterministic(text):
    toks = tokenize(text)
    assert toks == tokenize(text)
    assert all(t and t == t.casefold() for t in toks)
    assert not toks & STOP_WORDS


def test_neighbouring_plain_words_are_also_joined():
    from team_memory.text.textnorm import joined_pairs
    assert joined_pairs("rev c notes, no data: sleep current") == ["revc", "cnot", "nodata", "sleepcurrent"]
    # only spaces between two plain words: not across punctuation, lines, identifiers or CJK
    assert joined_pairs("notes, no") == [] and joined_pairs("src/app.py loader") == []
    assert joined_pairs("redis 캐시") == [] and joined_pairs("sleep\ncurrent") == []
    assert joined_pairs("sleep   current") == ["sleepcurrent"]


def test_a_cjk_stop_word_gives_no_bigrams_either():
    from team_memory.text.textnorm import token_groups
    assert token_groups("redis 캐시 어떻게 했지?") == [["redis"], ["캐시"], ["했지"]]
    assert not {"어떻", "떻게"} & tokenize("redis 캐시 어떻게 했지?")
