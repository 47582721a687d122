"""The compactor's own summary must not trip the auditor it is judged by."""

from __future__ import annotations

from typing import Any

import ctxkeep
from ctxkeep.extract import extract_identifiers
from ctxkeep.messages import message_text


def test_quote_labels_are_not_read_as_issue_numbers() -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    for k in range(40):
        messages.append({"role": "user", "content": f"step {k}: tidy the report table layout"})
        messages.append({"role": "assistant", "content": f"done with step {k} of the layout"})
    result = ctxkeep.compact(messages, "tidy the report table layout", target_bytes=1500)
    assert result.summary is not None
    summary = message_text(result.summary)
    assert "message " in summary
    invented = [i.text for i in extract_identifiers(summary) if i.kind == "issue"]
    assert invented == []
