from __future__ import annotations

import pytest

from ctxkeep.scorers import (
    Candidate,
    Score,
    Scorer,
    ScoreRequest,
    ScorerError,
    ScorerOptions,
    make_scorer,
    scorer_names,
)
from ctxkeep.scorers.base import reduce_level, reduce_probabilities
from ctxkeep.scorers.lexical import LexicalScorer, query_terms
from ctxkeep.scorers.recency import RecencyScorer


def _req(task: str, *texts: str) -> ScoreRequest:
    return ScoreRequest(task, "", tuple(Candidate(i, t, len(texts)) for i, t in enumerate(texts)))


def test_lexical_ranks_by_relevance_to_the_task() -> None:
    scores = LexicalScorer().score(
        _req(
            "fix the parser config loader",
            "ok sounds good",
            "the config loader crashes in the parser",
            "parser",
            "parsers and configs are not whole-word matches",
        )
    )
    values = [s.value for s in scores]
    assert values[1] == 1.0
    assert values[0] == 0.0
    assert values[3] == 0.0
    assert 0 < values[2] < 1
    assert all(s.confidence == 1.0 for s in scores)


def test_lexical_splits_identifiers_and_paths() -> None:
    scores = LexicalScorer().score(_req("parse_config", "see src/parse/config.py", "nothing"))
    assert scores[0].value == 1.0
    assert scores[1].value == 0.0


def test_lexical_matches_chinese_by_bigrams() -> None:
    scores = LexicalScorer().score(_req("修改配置加载", "配置文件加载失败", "今天天气很好"))
    assert scores[0].value == 1.0
    assert scores[1].value == 0.0


def test_lexical_with_text_whose_lowercase_is_longer() -> None:
    # "İ".lower() is two characters: offsets must still map matches to their message.
    scores = LexicalScorer().score(_req("parser", "İİİ nothing", "the parser", "İ parser"))
    assert [s.value > 0 for s in scores] == [False, True, True]


def test_lexical_with_only_stop_words_scores_zero() -> None:
    assert query_terms("the of and") == ([], [])
    assert [s.value for s in LexicalScorer().score(_req("the", "the end"))] == [0.0]


def test_recency_scores_by_position() -> None:
    request = ScoreRequest("t", "", (Candidate(0, "a", 4), Candidate(3, "b", 4)))
    assert [s.value for s in RecencyScorer().score(request)] == [0.25, 1.0]


def test_probabilities_reduce_to_expected_value_and_peak() -> None:
    score = reduce_probabilities([0.0, 0.0, 0.5, 0.5, 0.0])
    assert score.value == pytest.approx(0.625)
    assert score.confidence == pytest.approx(0.5)
    assert reduce_probabilities([2, 2]).value == pytest.approx(0.5)  # normalised
    assert reduce_level(4).value == 1.0
    with pytest.raises(ScorerError):
        reduce_level(5)


def test_score_validity() -> None:
    assert Score(0.5, 1.0).is_valid()
    assert not Score(1.5, 1.0).is_valid()
    assert not Score(float("nan"), 1.0).is_valid()


def test_registry_builds_every_scorer_by_name() -> None:
    built_in = ("lexical", "recency", "http", "openai-chat")
    assert scorer_names()[:4] == built_in  # the registry is open: more may follow
    for name in built_in:
        scorer = make_scorer(name, ScorerOptions(url="http://127.0.0.1:9", key="k"))
        assert isinstance(scorer, Scorer)
        assert scorer.name == name
        assert "k" not in scorer.describe().values()
    with pytest.raises(KeyError, match="known: lexical"):
        make_scorer("nope")


def test_options_come_from_the_environment_after_explicit_values() -> None:
    env = {"CTXKEEP_SCORE_URL": "http://e", "CTXKEEP_SCORE_KEY": "K", "CTXKEEP_SCORE_TIMEOUT": "x"}
    options = ScorerOptions.from_env(url="http://given", environ=env)
    assert (options.url, options.key, options.timeout) == ("http://given", "K", 10.0)


@pytest.mark.parametrize(
    ("given", "value", "expected"),
    [(3.0, "7", 3.0), (None, "7", 7.0), (None, "", 10.0), (None, "x", 10.0), (None, "-1", 10.0),
     (0.0, "7", 10.0)],
)  # fmt: skip
def test_a_timeout_is_the_given_one_then_the_environments_then_the_default(
    given: float | None, value: str, expected: float
) -> None:
    from ctxkeep.compactor.abstractive import SummarizerOptions

    env_score = {"CTXKEEP_SCORE_TIMEOUT": value}
    env_summary = {"CTXKEEP_SUMMARY_TIMEOUT": value}
    assert ScorerOptions.from_env(timeout=given, environ=env_score).timeout == expected
    default = SummarizerOptions().timeout
    summary = SummarizerOptions.from_env(timeout=given, environ=env_summary).timeout
    assert summary == (default if expected == 10.0 else expected)
