"""User text that is not a user message: rejection feedback, quoted messages, choices."""

from __future__ import annotations

from ctxkeep.extract import rejection_feedback
from ctxkeep.extract.choices import chosen_labels, option_title
from ctxkeep.extract.user_text import quoted_user_messages

PREAMBLE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
    "it was a file edit, the new_string was NOT written to the file). To tell you how to "
    "proceed, the user said:\n"
)


def test_feedback_typed_while_rejecting_a_tool_call() -> None:
    text = PREAMBLE + "keep the retry count in a module constant"
    assert rejection_feedback(text) == (len(PREAMBLE), "keep the retry count in a module constant")
    assert rejection_feedback("Error: " + text) is not None  # as Claude Code logs it
    stop = (
        "The user doesn't want to proceed with this tool use. The tool use was rejected. "
        "STOP what you are doing and wait for the user to tell you how to proceed."
    )
    assert rejection_feedback(stop) is None  # nothing typed
    assert rejection_feedback("a test said: The user doesn't want to proceed") is None
    assert rejection_feedback(PREAMBLE + "   \n") is None


def test_the_messages_a_summary_quotes() -> None:
    summary = (
        "5. Problem Solving: done.\n\n"
        "6. All user messages:\n"
        '   - "use the interface, not a switch at each call site"\n'
        "   - (Invoked `/review` skill)\n"
        '   - [Next day] "why are you calling the REST API for this...?" (when I used curl)\n'
        '   - "keep the "legacy" flag as it is"\n\n'
        "7. Pending Tasks:\n"
        '   - "not a user message"\n'
    )
    quotes = [text for _, text in quoted_user_messages(summary)]
    assert quotes == [
        "use the interface, not a switch at each call site",
        "why are you calling the REST API for this...?",
        'keep the "legacy" flag as it is',
    ]
    for offset, text in quoted_user_messages(summary):
        assert summary[offset : offset + len(text)] == text
    assert quoted_user_messages("No such section.") == []


AGENT = """Two ways to do it:

1. **Token bucket per worker**: simple, no coordination
2. **Shared token bucket**: one bucket in Redis for all workers

Which do you prefer?"""


def test_a_choice_names_the_agent_s_option() -> None:
    assert chosen_labels("option 2 is fine") == ["2"]
    assert chosen_labels("let's go with the second one") == ["2"]
    assert chosen_labels("方案二就行") == ["2"]
    assert chosen_labels("Option B, please") == ["b"]
    assert option_title([AGENT], "2") == "Shared token bucket"
    assert option_title(["### Option B - keep a cache per user id\n"], "b") == (
        "keep a cache per user id"
    )
    assert option_title(["方案一：用锁\n方案二：用 singleflight 合并请求\n"], "2") == (
        "用 singleflight 合并请求"
    )


def test_the_latest_message_answers_first_and_questions_are_no_options() -> None:
    older = "### Option 3: Session header groups\n"
    latest = "## Scenario 3: With ending indicators\n\nQuestions:\n3. Should we cycle lanes?\n"
    assert option_title([latest, older], "3") == "With ending indicators"
    assert option_title(["Questions:\n3. Should we cycle lanes?\n", older], "3") == (
        "Session header groups"
    )
    assert option_title(["nothing here"], "1") is None
