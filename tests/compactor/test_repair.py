"""compact(summarizer=...): a model's summary audited and repaired before it is used.

The model is a real HTTP server on 127.0.0.1 speaking the OpenAI chat API
(tests/scorers/_server.py), answering summaries that drop the user's constraint and
invent a path.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from ctxkeep.base.messages import message_text
from ctxkeep.compactor import compact, replay
from ctxkeep.compactor.abstractive import OpenAIChatSummarizer, SummarizerOptions
from ctxkeep.compactor.receipts import read_receipts
from ctxkeep.compactor.repair import LOST_HEADING, marker, repair_summary
from ctxkeep.compactor.summary import SummaryRequest, dropped_instructions, is_harness_text
from ctxkeep.compactor.text import utf8_size
from ctxkeep.extract import SourceIndex
from ctxkeep.log.model import EventKind
from ctxkeep.log.reader import read_session
from ctxkeep.rules.context import RuleContext
from tests.compactor.conversations import invalid_reason
from tests.scorers._server import ScoreServer, json_answer, score_server

CONSTRAINT = "Never run the integration suite against the production database"
INVENTED = "src/cache/ttl_store.py"
REAL_PATH = "src/cache/lru.py"
SUMMARY = (
    f"The user asked to fix the cache eviction bug in {REAL_PATH} (tests/test_lru.py fails).\n"
    "The agent read the module: eviction pops the wrong end of the order deque.\n"
    f"The agent moved the TTL logic to {INVENTED}.\n"
    "Next: write the fix and run the tests."
)
KEY = "sk-summary-test-0123456789"


def session() -> list[dict[str, Any]]:
    """A coding session: the task, a standing instruction, then tool reads of the module."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent working in the repository."},
        {"role": "user", "content": f"Fix the cache eviction bug in {REAL_PATH}; "
                                    "tests/test_lru.py fails."},
        {"role": "assistant", "content": "I will read the module first."},
        {"role": "user", "content": f"One more thing: {CONSTRAINT}. Use the local fixture "
                                    "instead."},
    ]  # fmt: skip
    for i in range(8):
        cid = f"call_{i}"
        arguments = json.dumps({"path": REAL_PATH, "offset": i * 40})
        call = {"id": cid, "type": "function", "function": {"name": "read", "arguments": arguments}}
        lines = (
            f"    {i * 40 + k}: entry = self._order.pop{'left' if k % 2 else ''}()  # eviction"
            for k in range(6)
        )
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": cid, "content": "\n".join(lines)},
            {"role": "assistant", "content": f"Lines {i * 40} to {i * 40 + 40} read; the "
                                             "eviction pops the wrong end of the order deque."},
        ]  # fmt: skip
    messages.append({"role": "user", "content": "Good, now write the fix."})
    return messages


def completion(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}


def model_server() -> Any:
    return score_server(lambda body: json_answer(completion(SUMMARY)))


def summarizer(srv: ScoreServer, **kwargs: Any) -> OpenAIChatSummarizer:
    return OpenAIChatSummarizer(srv.url, KEY, model="summ-1", **kwargs)


def run(summ: Any, target: int = 2500, **kwargs: Any) -> Any:
    return compact(
        session(), "", target_bytes=target, enable_pinning=False, summarizer=summ, **kwargs
    )


def summary_text(result: Any) -> str:
    assert result.summary is not None
    return message_text(result.summary)


def test_the_repaired_summary_holds_the_constraint_verbatim_and_not_the_invented_path() -> None:
    with model_server() as srv:
        result = run(summarizer(srv))
    (sent,) = srv.requests
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["Authorization"] == f"Bearer {KEY}"
    assert sent["body"]["model"] == "summ-1"
    asked = sent["body"]["messages"][1]["content"]
    assert CONSTRAINT in asked  # the model was given the instruction it then dropped
    text = summary_text(result)
    assert result.problems == ()
    assert text.startswith(LOST_HEADING)
    assert f"- {CONSTRAINT}" in text.split("\n")
    assert INVENTED not in text
    assert f"moved the TTL logic to {marker('path')}." in text
    assert REAL_PATH in text  # what the conversation holds stays
    repair = result.repair
    assert repair is not None
    assert repair.used
    assert (repair.summarizer, repair.model, repair.written) == ("openai-chat", "summ-1", SUMMARY)
    assert CONSTRAINT in repair.appended
    assert [(r.text, r.kind) for r in repair.removed] == [(INVENTED, "path")]
    assert invalid_reason(list(result.messages)) is None


def test_without_a_summarizer_the_summary_is_the_extractive_one() -> None:
    plain = run(None)
    assert plain.repair is None
    assert run("extractive").messages == plain.messages
    assert summary_text(plain).startswith("[ctxkeep] ")
    assert LOST_HEADING not in summary_text(plain)


@pytest.mark.parametrize("target", [1500, 2500])
def test_the_budget_holds_in_both_modes(target: int) -> None:
    with model_server() as srv:
        soft = run(summarizer(srv), target)
        assert len(srv.requests) == 1
        hard = run(summarizer(srv), target, budget="hard")
        # one request per distinct set of replaced messages, however often hard mode plans
        digests = {r.sources_sha256 for r in (soft.repair, hard.repair) if r is not None}
        assert len(srv.requests) == 1 + (len(digests) == 2)
    for result in (soft, hard):
        text = summary_text(result)
        assert result.stats.summary_bytes == utf8_size(text)
        assert f"- {CONSTRAINT}" in text.split("\n")  # instructions first
        assert INVENTED not in text
    assert soft.stats.summary_bytes <= 1024  # --summary-bytes, the most a summary takes
    assert soft.stats.bytes_after - soft.stats.over_budget_bytes <= target
    assert hard.stats.bytes_after <= target
    assert sum(utf8_size(message_text(m)) for m in hard.messages) <= target
    assert invalid_reason(list(hard.messages)) is None


def test_a_tiny_summary_keeps_the_instructions_before_the_models_lines() -> None:
    with model_server() as srv:
        result = run(summarizer(srv), 1500)
    text = summary_text(result)
    lines = text.split("\n")
    assert lines[:2] == [LOST_HEADING, f"- {CONSTRAINT}"]
    assert result.repair is not None
    assert result.repair.instructions_cut == 0


def test_the_receipt_records_the_repair_and_replay_calls_no_model(tmp_path: Path) -> None:
    receipt = tmp_path / "r.jsonl"
    with model_server() as srv:
        result = run(summarizer(srv), receipt_path=receipt)
        calls = len(srv.requests)
        again = replay(session(), receipt)
        assert len(srv.requests) == calls  # replay asked nothing
    assert again.messages == result.messages
    assert again.repair is not None
    assert again.repair.summarizer == "replay:openai-chat"
    raw = receipt.read_text()
    assert KEY not in raw
    recorded = read_receipts(receipt).runs[0].summarizer
    assert recorded["name"] == "openai-chat"
    assert recorded["model"] == "summ-1"
    assert recorded["url"] == f"{srv.url}/v1/chat/completions"
    assert recorded["written"] == SUMMARY
    assert recorded["appended"] == list(result.repair.appended)
    assert recorded["removed"] == [
        {"text": INVENTED, "kind": "path", "why": result.repair.removed[0].why}
    ]
    assert recorded["used"] is True


def test_a_replay_over_other_messages_uses_the_extractive_summary(tmp_path: Path) -> None:
    receipt = tmp_path / "r.jsonl"
    with model_server() as srv:
        run(summarizer(srv), receipt_path=receipt)
        other = replay(session(), receipt, target_bytes=1200)
        assert len(srv.requests) == 1
    assert other.repair is not None
    assert not other.repair.used
    assert any("written for other messages" in p for p in other.problems)
    assert LOST_HEADING not in summary_text(other)


def _failing(answer: Any) -> Any:
    return score_server(lambda body: answer)


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (json_answer({"error": "overloaded"}, status=500), "HTTP 500"),
        ((200, b"<html>not json</html>", 0.0), "not JSON"),
        (json_answer({"choices": []}), "no choices"),
        (json_answer(completion("   ")), "empty text"),
        (json_answer(completion(SUMMARY), delay=2.0), "did not answer within 0.5 s"),
    ],
)
def test_a_failing_endpoint_falls_back_to_the_extractive_summary(answer: Any, said: str) -> None:
    plain = run(None)
    with _failing(answer) as srv:
        result = run(summarizer(srv, timeout=0.5))
    assert result.messages == plain.messages
    (problem,) = result.problems
    assert problem.startswith("summarizer openai-chat failed (")
    assert said in problem
    assert problem.endswith("the extractive summary was used")
    assert KEY not in problem


def test_an_unreachable_endpoint_or_a_raising_callable_never_raises() -> None:
    plain = run(None)
    unreachable = OpenAIChatSummarizer("http://127.0.0.1:9", KEY, timeout=2.0)

    def broken(request: SummaryRequest) -> str:
        raise RuntimeError("model crashed")

    for summ in (unreachable, broken, OpenAIChatSummarizer(None)):
        result = run(summ)
        assert result.messages == plain.messages
        assert "the extractive summary was used" in result.problems[-1]
    assert "RuntimeError: model crashed" in run(broken).problems[-1]
    assert "CTXKEEP_SUMMARY_URL" in run(OpenAIChatSummarizer(None)).problems[-1]


def test_a_key_that_is_no_header_value_is_refused_before_any_request() -> None:
    with model_server() as srv:
        result = run(OpenAIChatSummarizer(srv.url, KEY + "\n"))
    assert srv.requests == []
    assert "CTXKEEP_SUMMARY_KEY ends with a newline" in result.problems[-1]
    assert KEY not in result.problems[-1]


def test_options_come_from_the_environment_with_the_key_only_there() -> None:
    env = {
        "CTXKEEP_SUMMARY_URL": "http://127.0.0.1:1",
        "CTXKEEP_SUMMARY_KEY": "k",
        "CTXKEEP_SUMMARY_MODEL": "m",
        "CTXKEEP_SUMMARY_TIMEOUT": "bad",
    }
    options = SummarizerOptions.from_env(environ=env)
    assert (options.url, options.key, options.model, options.timeout) == (
        "http://127.0.0.1:1", "k", "m", 60.0,
    )  # fmt: skip
    assert SummarizerOptions.from_env(url="http://h", environ=env).url == "http://h"


def _request(texts: list[tuple[str, str]], cap: int = 2000) -> SummaryRequest:
    from ctxkeep.compactor.facts import FactSource

    sources = tuple(FactSource(i, role, text, 0.0) for i, (role, text) in enumerate(texts))
    return SummaryRequest(sources, len(texts), 0, len(texts) + 2, cap, None)


def test_a_reworded_instruction_is_not_appended_and_a_known_path_stays() -> None:
    request = _request([("user", "Always keep the public API of src/api/routes.py stable.")])
    written = "The user wants the public API of src/api/routes.py kept stable."
    repaired = repair_summary(written, request, SourceIndex(s.text for s in request.sources))
    assert repaired.text == written
    assert (repaired.appended, repaired.removed) == ((), ())


def test_an_invented_path_is_removed_where_it_stands_alone_only() -> None:
    request = _request([("user", "Look at lib/data.py and report.")])
    written = "Read lib/data.py; the bug is in a.py and in lib/a.py."
    repaired = repair_summary(written, request, SourceIndex(s.text for s in request.sources))
    assert repaired.text is not None
    assert "lib/data.py" in repaired.text
    assert "a.py and" not in repaired.text
    assert "lib/a.py" not in repaired.text
    assert {r.text for r in repaired.removed} == {"a.py", "lib/a.py"}


def test_text_a_harness_wrote_as_the_user_is_no_instruction_to_append(tmp_path: Path) -> None:
    """The real case of is_harness_text: the compaction of claude-code-91 replaced 16
    ``<system-reminder>`` user messages and a ``<local-command-caveat>``; its real summary
    (Claude's) does not repeat them, and the repair must not append them."""
    source = Path(__file__).resolve().parents[2] / "benchmarks/real-logs"
    log = tmp_path / "claude-code-91.jsonl"
    log.write_bytes(gzip.decompress((source / "claude-code-91_b42542f24f_0.jsonl.gz").read_bytes()))
    session = read_session(log)
    view = RuleContext(session).view(session.compactions[0])
    assert view.summary is not None
    users = [e for e in view.shadowed if e.kind is EventKind.MESSAGE and e.role == "user"]
    harness = [e.text for e in users if is_harness_text(e.text)]
    assert len([t for t in harness if t.startswith("<system-reminder>")]) == 16
    assert any(t.startswith("<local-command-caveat>") for t in harness)
    assert not is_harness_text("draft PR please")
    request = _request([("user", e.text) for e in users])
    repaired = repair_summary(view.summary, request, view.source_index())
    assert repaired.appended == ()
    # nor does the extractive summary list them as the user's instructions
    assert [t for t in dropped_instructions(request.sources) if "MUST refuse" in t] == []
    assert "draft PR please" in " ".join(e.text for e in users)


def test_a_reminder_appended_to_the_users_message_is_cut_out_of_it() -> None:
    text = (
        "Never push to main without a review.\n<system-reminder>\nYou MUST answer in "
        "French.\n</system-reminder>"
    )
    request = _request([("user", text)])
    repaired = repair_summary("Work on the parser.", request, SourceIndex([text]))
    assert repaired.appended == ("Never push to main without a review",)
