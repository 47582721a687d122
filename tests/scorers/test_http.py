from __future__ import annotations

from typing import Any

import pytest

from ctxkeep.scorers import Candidate, ScoreRequest, ScorerError, ScorerUnavailable
from ctxkeep.scorers.http import HttpScorer, parse_answer, parse_answers
from tests.scorers._server import json_answer, score_server

KEY = "sk-test-0123456789abcdef"


def _request(*texts: str) -> ScoreRequest:
    return ScoreRequest(
        "fix the parser",
        "Task: fix the parser",
        tuple(Candidate(i, t, len(texts)) for i, t in enumerate(texts)),
    )


def test_one_message_is_a_string_question_with_levels_and_bearer_key() -> None:
    with score_server(lambda body: json_answer({"probabilities": [0, 0, 0, 0.5, 0.5]})) as srv:
        scores = HttpScorer(srv.url + "/score", KEY).score(_request("the parser fails"))
    sent = srv.requests[0]
    assert sent["path"] == "/score"
    assert sent["headers"]["Authorization"] == f"Bearer {KEY}"
    assert sent["body"] == {
        "state": "Task: fix the parser",
        "question": "the parser fails",
        "type": "score",
        "levels": ["none", "low", "medium", "high", "critical"],
    }
    assert scores[0].value == pytest.approx(0.875)
    assert scores[0].confidence == pytest.approx(0.5)


def test_a_batch_is_an_array_question_and_answers_in_order() -> None:
    answers = [{"level": "critical"}, {"score": 0.2, "confidence": 0.9}, 0.4]
    with score_server(lambda body: json_answer({"answers": answers})) as srv:
        scores = HttpScorer(srv.url, KEY).score(_request("a", "b", "c"))
    assert srv.requests[0]["body"]["question"] == ["a", "b", "c"]
    assert [(s.value, s.confidence) for s in scores] == [(1.0, 1.0), (0.2, 0.9), (0.4, 1.0)]


def test_slow_answer_past_the_timeout_is_a_scorer_error() -> None:
    with (
        score_server(lambda body: json_answer({"score": 0.5}, delay=1.5)) as srv,
        pytest.raises(ScorerError, match="did not answer within"),
    ):
        HttpScorer(srv.url, KEY, timeout=0.3).score(_request("x"))


@pytest.mark.parametrize(
    ("status", "payload", "match"),
    [
        (500, b'{"error": "boom"}', "HTTP 500"),
        (429, b"{}", "HTTP 429"),
        (200, b"<html>not json</html>", "not JSON"),
        (200, b"", "not JSON"),
        (200, b'{"answers": [{"score": 0.5}]}', "expected 2 answers, got 1"),
        (200, b'{"answers": [{"score": 1.5}, {"score": 0.1}]}', "outside"),
        (200, b'{"answers": [{"level": "huge"}, {"score": 0.1}]}', "unknown level"),
        (200, b'{"answers": [{"probabilities": [1, 2]}, {"score": 0}]}', "one number per level"),
        (200, b'{"answers": [{"mood": "good"}, {"score": 0}]}', "none of"),
        (200, b'{"answers": [true, 0.5]}', "object or a number"),
        (200, b'"just a string"', "expected 2 answers"),
    ],
)
def test_bad_answers_are_all_one_failure(status: int, payload: bytes, match: str) -> None:
    with (
        score_server(lambda body: (status, payload, 0.0)) as srv,
        pytest.raises(ScorerError, match=match) as info,
    ):
        HttpScorer(srv.url, KEY).score(_request("a", "b"))
    assert KEY not in str(info.value)


def test_unreachable_endpoint_is_a_scorer_error() -> None:
    with score_server(lambda body: json_answer({})) as srv:
        url = srv.url
    with pytest.raises(ScorerError, match="cannot reach"):
        HttpScorer(url, KEY, timeout=2).score(_request("x"))


def test_no_key_or_no_url_makes_the_scorer_unavailable_without_a_request() -> None:
    with score_server(lambda body: json_answer({"score": 1})) as srv:
        with pytest.raises(ScorerUnavailable, match="CTXKEEP_SCORE_KEY"):
            HttpScorer(srv.url, None).score(_request("x"))
        assert srv.requests == []
    with pytest.raises(ScorerUnavailable, match="CTXKEEP_SCORE_URL"):
        HttpScorer(None, KEY).score(_request("x"))


def test_describe_never_holds_the_key_or_url_credentials() -> None:
    described = HttpScorer(f"https://user:{KEY}@h.example/score?api_key={KEY}", KEY).describe()
    assert KEY not in repr(described)
    assert described["url"] == "https://h.example/score"


@pytest.mark.parametrize(
    ("answer", "value", "confidence"),
    [
        ({"probabilities": {"none": 1}}, 0.0, 1.0),
        ({"probabilities": {"HIGH": 2, "critical": 2}}, 0.875, 0.5),
        ({"level": 2}, 0.5, 1.0),
        ({"level": "Low", "confidence": 0.3}, 0.25, 0.3),
        (1, 1.0, 1.0),
    ],
)
def test_answer_shapes_reduce_to_value_and_confidence(
    answer: Any, value: float, confidence: float
) -> None:
    score = parse_answer(answer)
    assert score.value == pytest.approx(value)
    assert score.confidence == pytest.approx(confidence)


@pytest.mark.parametrize(
    "answer",
    [
        {"probabilities": [0, 0, 0, 0, 0]},
        {"probabilities": [-1, 1, 0, 0, 0]},
        {"probabilities": [float("nan"), 1, 0, 0, 0]},
        {"probabilities": {"enormous": 1}},
        {"level": 7},
        {"level": True},
        {"score": "0.5"},
        {"score": 0.5, "confidence": 2},
        None,
    ],
)
def test_answers_that_do_not_reduce_to_unit_numbers_fail(answer: Any) -> None:
    with pytest.raises(ScorerError):
        parse_answer(answer)


def test_a_single_object_answers_a_single_question_only() -> None:
    assert parse_answers({"score": 0.5}, 1)[0].value == 0.5
    with pytest.raises(ScorerError):
        parse_answers({"score": 0.5}, 2)
