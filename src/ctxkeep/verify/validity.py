"""Is a message list one the target API accepts? Exactly what is checked, per API.

Every API (``openai``, ``anthropic``, ``ctxkeep`` events):

- ``empty``: the list holds no message at all;
- ``not-a-message``: an item is not a mapping with a role (ctxkeep events: not a mapping
  with a ``type``);
- ``duplicate-call``: a tool call reuses the id of a call not yet answered;
- ``unanswered-call``: a tool call has no result where the API needs it;
- ``orphan-result``: a tool result answers no earlier call;
- ``duplicate-result``: a call is answered twice.

``openai`` (Chat Completions):

- ``unknown-role``: a role other than system, developer, user, assistant, tool;
- the results of an assistant message's ``tool_calls`` must be the ``tool`` messages that
  directly follow it, one per call: a result that comes later is
  ``result-not-adjacent``; a call still unanswered when another kind of message (or the
  end) comes is ``unanswered-call``.

``anthropic`` (Messages):

- ``unknown-role``: a role other than user and assistant (``system`` only leading, as
  callers that keep the system prompt in the list put it; later it is
  ``system-not-leading``);
- ``first-not-user``: the first conversation message is not a user message;
- ``same-role-twice``: two user or two assistant messages in a row;
- the ``tool_result`` blocks answering an assistant message's ``tool_use`` blocks must be
  in the very next (user) message: elsewhere they are ``result-not-adjacent``, missing
  there they are ``unanswered-call``.

``ctxkeep`` events (docs/formats.md section 5): a ``tool/result`` must follow its ``tool/call``
and every call must be answered; ``seq-order``: seqs must strictly increase.

Not checked: content-block order inside a message, message sizes, image or thinking-block
rules, tool schemas.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ctxkeep.base.messages import dialect_of, message_role, tool_call_ids, tool_result_ids

__all__ = [
    "Api",
    "SequenceProblem",
    "detect_api",
    "new_problems",
    "sequence_problems",
]

Api = Literal["openai", "anthropic", "ctxkeep"]

_OPENAI_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
_CONVERSATION_ROLES = frozenset({"user", "assistant"})


@dataclass(frozen=True, slots=True)
class SequenceProblem:
    """One reason the API would reject a message list.

    ``index`` is the position of the message at fault; ``subject`` is what the problem is
    about independently of positions (a call id, a role), so that the same problem can be
    recognised in a list before and after compaction.
    """

    code: str
    index: int
    subject: str
    detail: str

    def __str__(self) -> str:
        return f"message {self.index}: {self.detail}"


def detect_api(messages: Sequence[Any]) -> Api:
    """The API a list is written for, judged from its messages.

    Any Anthropic content block (tool_use, tool_result, thinking) means ``anthropic``; a
    list of ctxkeep events means ``ctxkeep``; anything else is read as ``openai``, the most
    lenient about role order. Plain role/content lists meant for Anthropic cannot be told
    apart: pass ``api="anthropic"`` to have the alternation checked.
    """
    dialects = {dialect_of(m) for m in messages}
    if "anthropic" in dialects:
        return "anthropic"
    if dialects == {"ctxkeep"}:
        return "ctxkeep"
    return "openai"


def sequence_problems(messages: Sequence[Any], api: Api) -> tuple[SequenceProblem, ...]:
    """Every reason ``api`` would reject ``messages`` (empty when it would accept them)."""
    if not messages:
        return (SequenceProblem("empty", 0, "", "the list holds no message"),)
    view = _View(messages)
    if api == "openai":
        found = _openai(view)
    elif api == "anthropic":
        found = _anthropic(view)
    else:
        found = _ctxkeep(messages)
    found.extend(_pairing(view))
    return tuple(sorted(set(found), key=lambda p: (p.index, p.code, p.subject)))


def new_problems(
    before: Sequence[SequenceProblem], after: Sequence[SequenceProblem]
) -> tuple[SequenceProblem, ...]:
    """The problems of ``after`` that ``before`` did not have (compared without positions).

    A compactor is not blamed for what was already wrong in its input: a call still
    pending at the end of the input, or a role order the caller's API evidently accepts.
    """
    known = {(p.code, p.subject) for p in before}
    return tuple(p for p in after if (p.code, p.subject) not in known)


class _View:
    """Roles and tool ids of each message, read once (the checks walk them twice)."""

    def __init__(self, messages: Sequence[Any]) -> None:
        self.messages = messages
        self.roles = [message_role(m) for m in messages]
        self.calls = [tool_call_ids(m) for m in messages]
        self.results = [tool_result_ids(m) for m in messages]


def _pairing(view: _View) -> list[SequenceProblem]:
    """Call/result pairing that holds for every API, wherever the result stands.

    A result answers the open call with its id. An id may be used again once its call
    has been answered (some model servers number calls per turn), not while it is open.
    """
    found: list[SequenceProblem] = []
    open_calls: dict[str, int] = {}
    called: set[str] = set()
    for index in range(len(view.messages)):
        for call_id in view.results[index]:
            if open_calls.pop(call_id, None) is not None:
                continue
            if call_id in called:
                found.append(
                    SequenceProblem(
                        "duplicate-result", index, call_id, f"tool call {call_id!r} answered twice"
                    )
                )
            else:
                found.append(
                    SequenceProblem(
                        "orphan-result",
                        index,
                        call_id,
                        f"tool result {call_id!r} answers no earlier tool call",
                    )
                )
        for call_id in view.calls[index]:
            if call_id in open_calls:
                found.append(
                    SequenceProblem(
                        "duplicate-call",
                        index,
                        call_id,
                        f"tool call id {call_id!r} used again before it was answered",
                    )
                )
            else:
                open_calls[call_id] = index
            called.add(call_id)
    found.extend(_unanswered(index, call_id) for call_id, index in open_calls.items())
    return found


def _unanswered(index: int, call_id: str) -> SequenceProblem:
    return SequenceProblem(
        "unanswered-call", index, call_id, f"tool call {call_id!r} has no result after it"
    )


def _not_a_message(index: int, message: Any) -> SequenceProblem:
    kind = type(message).__name__
    return SequenceProblem("not-a-message", index, kind, f"a {kind} is not a message")


def _openai(view: _View) -> list[SequenceProblem]:
    found: list[SequenceProblem] = []
    pending: dict[str, int] = {}  # calls of the last assistant message not yet answered
    seen_calls: set[str] = set()  # a result for a call never made is _pairing's orphan
    for index, message in enumerate(view.messages):
        role = view.roles[index]
        if role is None:
            found.append(_not_a_message(index, message))
            continue
        if role not in _OPENAI_ROLES:
            found.append(
                SequenceProblem("unknown-role", index, role, f"role {role!r} is not accepted")
            )
        if role == "tool":
            for call_id in view.results[index]:
                if pending.pop(call_id, None) is None and call_id in seen_calls:
                    found.append(_not_adjacent(index, call_id))
            continue
        found.extend(_unanswered(at, cid) for cid, at in pending.items())
        pending = dict.fromkeys(view.calls[index], index) if role == "assistant" else {}
        seen_calls.update(pending)
    found.extend(_unanswered(at, cid) for cid, at in pending.items())
    return found


def _anthropic(view: _View) -> list[SequenceProblem]:
    found: list[SequenceProblem] = []
    previous_role: str | None = None
    pending: dict[str, int] = {}  # tool_use ids the next message must answer
    seen_calls: set[str] = set()  # a result for a call never made is _pairing's orphan
    for index, message in enumerate(view.messages):
        role = view.roles[index]
        if role is None:
            found.append(_not_a_message(index, message))
            continue
        if role == "system":
            if previous_role is not None:
                found.append(
                    SequenceProblem(
                        "system-not-leading",
                        index,
                        role,
                        "a system message after the conversation started",
                    )
                )
            continue
        if role not in _CONVERSATION_ROLES:
            found.append(
                SequenceProblem("unknown-role", index, role, f"role {role!r} is not accepted")
            )
        if previous_role is None and role != "user":
            found.append(
                SequenceProblem(
                    "first-not-user", index, role, f"the conversation starts with {role!r}"
                )
            )
        if role == previous_role:
            found.append(
                SequenceProblem("same-role-twice", index, role, f"two {role} messages in a row")
            )
        for call_id in view.results[index]:
            if pending.pop(call_id, None) is None and call_id in seen_calls:
                found.append(_not_adjacent(index, call_id))
        found.extend(_unanswered(at, cid) for cid, at in pending.items())
        pending = dict.fromkeys(view.calls[index], index)
        seen_calls.update(pending)
        previous_role = role
    found.extend(_unanswered(at, cid) for cid, at in pending.items())
    return found


def _ctxkeep(messages: Sequence[Any]) -> list[SequenceProblem]:
    found: list[SequenceProblem] = []
    last_seq: int | None = None
    for index, event in enumerate(messages):
        if not isinstance(event, Mapping) or not isinstance(event.get("type"), str):
            found.append(_not_a_message(index, event))
            continue
        seq = event.get("seq")
        if isinstance(seq, int) and not isinstance(seq, bool):
            if last_seq is not None and seq <= last_seq:
                found.append(
                    SequenceProblem(
                        "seq-order", index, "seq", f"seq {seq} does not follow seq {last_seq}"
                    )
                )
            last_seq = seq
    return found


def _not_adjacent(index: int, call_id: str) -> SequenceProblem:
    return SequenceProblem(
        "result-not-adjacent",
        index,
        call_id,
        f"tool result {call_id!r} does not directly follow its call",
    )
