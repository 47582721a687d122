from __future__ import annotations

import math
from typing import Any

import pytest

from ctxkeep.scorers import Candidate, ScoreRequest, ScorerError, ScorerUnavailable
from ctxkeep.scorers.openai_chat import (
    OpenAIChatScorer,
    chat_endpoint,
    level_of_token,
    parse_completion,
)
from tests.scorers._server import json_answer, score_server


def _completion(content: str, top: list[tuple[str, float]] | None = None) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": content}}
    if top is not None:
        choice["logprobs"] = {
            "content": [
                {
                    "token": top[0][0],
                    "logprob": math.log(top[0][1]),
                    "top_logprobs": [{"token": t, "logprob": math.log(p)} for t, p in top],
                }
            ]
        }
    return {"choices": [choice]}


def _request(*texts: str) -> ScoreRequest:
    return ScoreRequest(
        "task", "Task: task", tuple(Candidate(i, t, 9) for i, t in enumerate(texts))
    )


def test_logprobs_of_level_words_are_the_answer() -> None:
    top = [("high", 0.6), ("crit", 0.2), ("Medium", 0.1), ("the", 0.1)]
    with score_server(lambda body: json_answer(_completion("high", top))) as srv:
        scores = OpenAIChatScorer(srv.url, None, model="m").score(_request("a", "b"))
    assert len(srv.requests) == 2  # one chat completion per message
    sent = srv.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["body"]["model"] == "m"
    assert sent["body"]["logprobs"] is True
    assert "Authorization" not in sent["headers"]
    # normalised over level words only: high 2/3, critical 2/9, medium 1/9
    expected = (2 / 3) * 0.75 + (2 / 9) * 1.0 + (1 / 9) * 0.5
    assert scores[0].value == pytest.approx(expected)
    assert scores[0].confidence == pytest.approx(2 / 3)


def test_without_logprobs_the_written_word_is_the_level() -> None:
    with score_server(lambda body: json_answer(_completion("Low."))) as srv:
        scores = OpenAIChatScorer(srv.url + "/v1", "k").score(_request("a"))
    assert srv.requests[0]["headers"]["Authorization"] == "Bearer k"
    assert (scores[0].value, scores[0].confidence) == (0.25, 1.0)


@pytest.mark.parametrize(
    "body",
    [
        {"choices": []},
        {"nothing": 1},
        _completion("I think it is relevant"),
        _completion(""),
        {"choices": [{"message": {"content": None}}]},
    ],
)
def test_completions_without_a_level_fail(body: Any) -> None:
    with score_server(lambda b: json_answer(body)) as srv, pytest.raises(ScorerError):
        OpenAIChatScorer(srv.url, None).score(_request("a"))


def test_server_errors_and_timeouts_fail() -> None:
    with (
        score_server(lambda b: json_answer({"error": "x"}, status=503)) as srv,
        pytest.raises(ScorerError, match="HTTP 503"),
    ):
        OpenAIChatScorer(srv.url, None).score(_request("a"))
    with (
        score_server(lambda b: json_answer(_completion("high"), delay=1.5)) as srv,
        pytest.raises(ScorerError, match="within"),
    ):
        OpenAIChatScorer(srv.url, None, timeout=0.3).score(_request("a"))


def test_no_url_is_unavailable() -> None:
    with pytest.raises(ScorerUnavailable):
        OpenAIChatScorer(None).score(_request("a"))


@pytest.mark.parametrize(
    ("url", "endpoint"),
    [
        ("http://h:8080", "http://h:8080/v1/chat/completions"),
        ("http://h:8080/v1/", "http://h:8080/v1/chat/completions"),
        ("http://h/v1/chat/completions", "http://h/v1/chat/completions"),
    ],
)
def test_chat_endpoint(url: str, endpoint: str) -> None:
    assert chat_endpoint(url) == endpoint


def test_level_tokens() -> None:
    assert level_of_token(" Critical") == 4
    assert level_of_token("med") == 2
    assert level_of_token("n") is None  # one letter begins too many words
    assert level_of_token("yes") is None
    assert parse_completion(_completion("none", [("none", 1.0)])).value == 0.0
