"""User text that does not arrive as a user message: feedback typed while rejecting a
tool call, and the user messages a summary quotes.

When a person rejects a tool call in Claude Code and types why, the harness records
the words inside the call's ``tool_result``, after a fixed preamble::

    The user doesn't want to proceed with this tool use. The tool use was rejected (eg.
    if it was a file edit, the new_string was NOT written to the file). To tell you how
    to proceed, the user said:
    we don't want if-else call site agent selection logic if we can help it

The template is recognised here, in the extract layer, so that every adapter's tool
results are read the same way; it stands at the head of the result (only the match at
the start is tried: tool output is the bulk of a log).
"""

from __future__ import annotations

import re

__all__ = ["quoted_user_messages", "rejection_feedback"]

_REJECTION = re.compile(
    r"\s*(?:Error:\s*)?The user doesn['’]t want to (?:proceed with|take) this (?:tool use|action)\b"
    r"[^\n]*?(?:the user said|user said|the user provided the following reason[^:]*):[ \t]*\n?",
    re.IGNORECASE,
)


def rejection_feedback(tool_result: str) -> tuple[int, str] | None:
    """``(offset, text)`` of what the user typed when rejecting a tool call, or None.

    ``tool_result[offset:]`` is the feedback, stripped of trailing space; None when the
    result is no rejection or the user typed nothing ("STOP what you are doing and wait
    for the user to tell you how to proceed").
    """
    if "The user doesn" not in tool_result[:40]:
        return None  # tool output is the bulk of a log: one look at its head
    match = _REJECTION.match(tool_result)
    if match is None:
        return None
    text = tool_result[match.end() :].rstrip()
    return (match.end(), text) if text.strip() else None


# Claude Code's summaries end with a numbered section that quotes every user message:
#     6. All user messages:
#        - "can we leave space of up to 3 parallel sessions ...?"
#        - "why are you using github for this...?" (when I tried to use gh api for Linear)
_QUOTES_HEADING = re.compile(
    r"^[ \t]*(?:\d{1,2}\.[ \t]*)?(?:\*\*|#+[ \t]*)?All user messages\b[^\n]*$", re.MULTILINE
)
_NEXT_SECTION = re.compile(r"^(?:\d{1,2}\.[ \t]+\S|#+[ \t]|\*\*\S)", re.MULTILINE)
_QUOTED_ITEM = re.compile(r"^[ \t]*[-*•][ \t]*(?:\[[^\]\n]*\][ \t]*)?[\"“]", re.MULTILINE)


def quoted_user_messages(summary: str) -> list[tuple[int, str]]:
    """``(offset, text)`` of each user message a summary quotes in its list of them.

    Claude Code's summaries list "All user messages" verbatim, in double quotes. When a
    log begins mid-session, that list is the only record of the messages typed before
    its first line, and of the instructions among them the next summary must carry.
    Only quoted items count: "(Invoked `/x` skill)" is the summary's own words.
    """
    heading = _QUOTES_HEADING.search(summary)
    if heading is None:
        return []
    following = _NEXT_SECTION.search(summary, heading.end() + 1)
    end = len(summary) if following is None else following.start()
    found: list[tuple[int, str]] = []
    for item in _QUOTED_ITEM.finditer(summary, heading.end(), end):
        line_end = summary.find("\n", item.end())
        line_end = end if line_end == -1 or line_end > end else line_end
        close = max(
            summary.rfind('"', item.end(), line_end), summary.rfind("”", item.end(), line_end)
        )
        if close > item.end():
            found.append((item.end(), summary[item.end() : close]))
    return found
