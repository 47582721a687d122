"""compact() and replay(): segment -> protect -> score -> gate -> select -> summarise.

Both share :func:`_select_and_build`, so a replay at the original budget and threshold
makes exactly the original decisions. Neither ever raises: invalid options become
``problems`` on the result, and an unexpected error leaves the input untouched with the
error named in ``problems``.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import math
import operator
import os
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter, itemgetter
from typing import Any

from ctxkeep._gc import cyclic_gc_paused
from ctxkeep.compactor.pins import compile_pins, may_hold_constraints
from ctxkeep.compactor.receipts import (
    ReceiptFile,
    ReceiptRun,
    append_receipt,
    read_receipts,
    receipt_block,
)
from ctxkeep.compactor.result import (
    CompactionResult,
    CompactionStats,
    Decision,
    frozen_from_columns,
)
from ctxkeep.compactor.segment import Segments, Unit, group_units, read_segments
from ctxkeep.compactor.summary import (
    conversation_dialect,
    cut_utf8,
    summary_message,
    summary_text,
)
from ctxkeep.extract import extract_constraints
from ctxkeep.log.model import located
from ctxkeep.scorers import (
    Candidate,
    Score,
    Scorer,
    ScoreRequest,
    ScorerError,
    ScorerUnavailable,
    make_scorer,
)
from ctxkeep.scorers.lexical import LexicalScorer
from ctxkeep.scorers.recency import recency_score
from ctxkeep.tokens import count_tokens, estimate_tokens, token_method

__all__ = ["compact", "replay"]

_VALUE = attrgetter("value")
_CONFIDENCE = attrgetter("confidence")
_LAST = itemgetter(-1)

_GIVE_UP_AFTER = 3
"""Consecutive failed batches after which the scorer is not asked again this run."""
QUESTION_BYTES = 4000
"""The most of one message sent to a remote scorer."""
_SYSTEM_ROLES = frozenset({"system", "developer"})
_SUMMARY_CANDIDATES = 256
"""The most dropped messages the summary considers quoting (best first)."""


@dataclass(frozen=True, slots=True)
class _Settings:
    target_bytes: int | None
    target_tokens: int | None
    keep_recent: int
    batch_size: int
    min_confidence: float
    summary_bytes: int
    summary_role: str
    state_message_bytes: int
    pin_patterns: tuple[str, ...]
    enable_pinning: bool
    pin_flags: str

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass
class _Scoring:
    """What the scoring step produced (mutable while it runs)."""

    scores: dict[int, Score]
    scorer: str
    degraded_reason: str | None = None
    requests: int = 0
    failed_requests: int = 0
    scorer_tokens: int = 0


# --- option checking -----------------------------------------------------------------


def _opt_int(value: Any, name: str, default: int | None, problems: list[str]) -> int | None:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.append(f"{name}: expected a non-negative integer, got {value!r}; using {default}")
        return default
    return value


def _settings(options: Mapping[str, Any], problems: list[str]) -> _Settings:
    target_bytes = _opt_int(options["target_bytes"], "target_bytes", None, problems)
    target_tokens = _opt_int(options["target_tokens"], "target_tokens", None, problems)
    keep_recent = _opt_int(options["keep_recent"], "keep_recent", 4, problems)
    batch_size = _opt_int(options["batch_size"], "batch_size", 8, problems)
    summary_bytes = _opt_int(options["summary_bytes"], "summary_bytes", 1024, problems)
    state_bytes = _opt_int(options["state_message_bytes"], "state_message_bytes", 2000, problems)
    min_conf = options["min_confidence"]
    if (
        isinstance(min_conf, bool)
        or not isinstance(min_conf, int | float)
        or not math.isfinite(min_conf)
        or not 0.0 <= min_conf <= 1.0
    ):
        problems.append(f"min_confidence: expected a number in [0, 1], got {min_conf!r}")
        min_conf = 0.35
    role = options["summary_role"]
    if not isinstance(role, str) or not role:
        problems.append(f"summary_role: expected a role name, got {role!r}; using 'system'")
        role = "system"
    patterns = options["pin_patterns"]
    if isinstance(patterns, str):
        patterns = (patterns,)
    try:
        pin_patterns = tuple(patterns or ())
    except TypeError:
        problems.append("pin_patterns: expected a sequence of regex strings")
        pin_patterns = ()
    flags = options["pin_flags"]
    if not isinstance(flags, str):
        problems.append(f"pin_flags: expected letters of 'imsx', got {flags!r}")
        flags = "i"
    return _Settings(
        target_bytes=target_bytes,
        target_tokens=target_tokens,
        keep_recent=keep_recent if keep_recent is not None else 4,
        batch_size=max(1, batch_size or 1),
        min_confidence=float(min_conf),
        summary_bytes=summary_bytes if summary_bytes is not None else 1024,
        summary_role=role,
        state_message_bytes=state_bytes if state_bytes is not None else 2000,
        pin_patterns=pin_patterns,
        enable_pinning=bool(options["enable_pinning"]),
        pin_flags=flags,
    )


def _as_list(messages: Any, problems: list[str]) -> list[Any]:
    if isinstance(messages, str | bytes | bytearray | Mapping) or not isinstance(
        messages, Iterable
    ):
        problems.append(f"messages: expected a sequence of messages, got {type(messages).__name__}")
        return []
    try:
        return list(messages)
    except Exception as exc:  # a caller's iterator may raise anything
        problems.append(f"messages: could not be read ({type(exc).__name__}: {exc})")
        return []


# --- protect ---------------------------------------------------------------------------


def _protect(
    messages: Sequence[Any],
    segments: Segments,
    settings: _Settings,
    problems: list[str],
) -> list[str]:
    """Each message's own protection reason, or '' (system > recent > pinned).

    Paths, URLs and constraints pin a message that speaks in words (user, system, an
    assistant turn without tool calls); tool calls and results, and the words beside a
    call, are pinned only by traces and error codes (see :meth:`PinSet.pins_of`).
    """
    pins, pin_problems = compile_pins(
        settings.pin_patterns, enabled=settings.enable_pinning, flags=settings.pin_flags
    )
    problems.extend(pin_problems)
    n = len(segments)
    recent_from = max(0, n - settings.keep_recent)
    reasons = [""] * recent_from + ["recent"] * (n - recent_from)
    roles = segments.roles
    for i in compress(range(n), map(_SYSTEM_ROLES.__contains__, roles)):
        reasons[i] = "system"
    # Column by column (map, compress, filterfalse run in C): most messages go through.
    unpinned = list(itertools.filterfalse(reasons.__getitem__, range(recent_from)))
    texts = list(map(segments.texts.__getitem__, unpinned))
    # A message that makes or answers tool calls is tool traffic: the words beside a call
    # narrate it ("Let me read src/x.py"), so only failures pin it.
    traffic = zip(segments.calls, segments.results, segments.native_calls, strict=True)
    is_traffic = list(map(any, traffic))
    prose = [
        "" if is_traffic[i] or roles[i] == "tool" else text
        for i, text in zip(unpinned, texts, strict=True)
    ]
    found = pins.pins_of(texts, prose)
    for k in [k for k, pin in enumerate(found) if pin is not None]:
        reasons[unpinned[k]] = f"pinned:{found[k]}"
    if settings.enable_pinning:
        # The pin pattern sees a marker only where a sentence starts; a user's constraint
        # is also "错误信息必须保留行号" or "补充两点：禁止…" (subject first, after a
        # colon). The auditor's extractor, which judges survival, decides; it runs only
        # where one of its markers can be (may_hold_constraints).
        is_user = map("user".__eq__, map(roles.__getitem__, unpinned))
        users = [
            k for k in compress(range(len(unpinned)), is_user) if found[k] is None and prose[k]
        ]
        cued = may_hold_constraints([prose[k] for k in users])
        for k in compress(users, cued):
            if extract_constraints(prose[k]):
                reasons[unpinned[k]] = "pinned:constraint"
    return reasons


# --- score -----------------------------------------------------------------------------


def _state(task: str, segments: Segments, settings: _Settings) -> str:
    """The task and the latest messages, cut to ``state_message_bytes``."""
    parts = [f"Task: {task}"]
    n = len(segments)
    tail = range(max(0, n - settings.keep_recent), n) if settings.keep_recent else range(0)
    if tail:
        parts.append("Latest messages:")
        parts.extend(f"{segments.roles[i] or 'message'}: {segments.texts[i]}" for i in tail)
    return cut_utf8("\n".join(parts), settings.state_message_bytes)


def _resolve_scorer(scorer: Any, problems: list[str]) -> Scorer:
    if scorer is None:
        return make_scorer("lexical")
    if isinstance(scorer, str):
        try:
            return make_scorer(scorer)
        except KeyError as exc:
            problems.append(f"scorer: {exc.args[0]}; using lexical")
            return make_scorer("lexical")
    if isinstance(scorer, Scorer):
        return scorer
    problems.append(f"scorer: {type(scorer).__name__} is not a Scorer; using lexical")
    return make_scorer("lexical")


def _scorer_name(scorer: Scorer) -> str:
    name = getattr(scorer, "name", None)
    return name if isinstance(name, str) else type(scorer).__name__


def _score(
    scorer: Scorer,
    task: str,
    segments: Segments,
    to_score: Sequence[int],
    settings: _Settings,
    problems: list[str],
) -> _Scoring:
    n = len(segments)
    name = _scorer_name(scorer)
    result = _Scoring(scores={}, scorer=name)
    if not to_score:
        return result
    remote = bool(getattr(scorer, "remote", False))
    per_candidate = bool(getattr(scorer, "per_candidate", False))
    state = _state(task, segments, settings) if remote else task
    texts = list(map(segments.texts.__getitem__, to_score))
    if remote:
        texts = [cut_utf8(text, QUESTION_BYTES) for text in texts]
    size = settings.batch_size if remote else len(to_score)
    batches = [(k, min(k + size, len(to_score))) for k in range(0, len(to_score), size)]
    # The built-in lexical scorer reads the texts as they are: no Candidate per message.
    lexical = scorer if type(scorer) is LexicalScorer and not remote else None
    failed = consecutive = 0
    for number, (lo, hi) in enumerate(batches):
        indexes, batch_texts = to_score[lo:hi], texts[lo:hi]
        if consecutive >= _GIVE_UP_AFTER:
            # The endpoint is down or broken: asking on would cost a timeout per batch.
            result.scores.update(_by_recency(indexes, n))
            failed += 1
            continue
        calls = len(indexes) if per_candidate else 1
        try:
            if lexical is not None:
                scores = list(lexical.score_texts(task, batch_texts))
            else:
                batch = frozen_from_columns(Candidate, (indexes, batch_texts, [n] * len(indexes)))
                scores = list(scorer.score(ScoreRequest(task, state, batch)))
            if len(scores) != len(indexes):
                raise ScorerError(f"{len(scores)} scores for {len(indexes)} messages")
            # Each distinct object once: a scorer shares one Score for many messages.
            distinct = dict(zip(map(id, scores), scores, strict=True)).values()
            bad = [s for s in distinct if not isinstance(s, Score) or not s.is_valid()]
            if bad:
                raise ScorerError(f"score outside [0, 1]: {bad[0]!r}")
        except ScorerUnavailable as exc:
            problems.append(f"scorer {name}: {exc}; the whole run is scored by recency")
            result.degraded_reason = f"unavailable: {exc}"
            result.scores = dict(_by_recency(to_score, n))
            return result
        except Exception as exc:  # any failure of a caller's scorer takes the same path
            failed += 1
            consecutive += 1
            if remote:
                result.requests += calls
                result.failed_requests += calls
            problems.append(f"scorer {name}: batch {number + 1} failed: {exc}; scored by recency")
            result.scores.update(_by_recency(indexes, n))
            continue
        consecutive = 0
        if remote:
            result.requests += calls
            result.scorer_tokens += estimate_tokens(state) * calls + sum(
                map(estimate_tokens, batch_texts)
            )
        result.scores.update(zip(indexes, scores, strict=True))
    if failed == len(batches):
        result.degraded_reason = "every batch failed: the whole run is scored by recency"
    elif consecutive >= _GIVE_UP_AFTER:
        result.degraded_reason = (
            f"{_GIVE_UP_AFTER} batches failed in a row: {failed} of {len(batches)} batches "
            "scored by recency"
        )
    elif failed:
        result.degraded_reason = f"{failed} of {len(batches)} batches failed: scored by recency"
    return result


def _by_recency(indexes: Iterable[int], total: int) -> Iterator[tuple[int, Score]]:
    """(index, recency score) of each message: the fallback for a failed batch."""
    return ((i, recency_score(Candidate(i, "", total))) for i in indexes)


# --- select and build ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Budget:
    bytes: int | None
    tokens: int | None

    def exceeded_by(self, size_bytes: int, size_tokens: int) -> tuple[int, int]:
        over_b = max(0, size_bytes - self.bytes) if self.bytes is not None else 0
        over_t = max(0, size_tokens - self.tokens) if self.tokens is not None else 0
        return over_b, over_t


def _unit_reason(unit: Unit, own: Sequence[str]) -> str:
    """The first protection reason among the unit's members, or ''."""
    return next(filter(None, map(own.__getitem__, unit.members)), "")


def _message_reason(i: int, unit_reason: str, own: Sequence[str], alone: bool) -> str:
    if own[i] or alone:
        return own[i] or unit_reason
    return f"paired:{unit_reason}"


def _run_id(segments: Segments, settings: _Settings, task: str, scorer: str) -> str:
    digest = hashlib.sha256()
    hashes = segments.hashes
    for k in range(0, len(hashes), 1024):  # as one update per hash, in blocks of 64 KB
        digest.update("".join(hashes[k : k + 1024]).encode())
    digest.update(repr((settings.to_dict(), task, scorer)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:16]


def _needs_scoring(
    segments: Segments, units: Sequence[Unit], own: Sequence[str], budget: _Budget
) -> tuple[bool, list[int]]:
    """Whether anything must go, and the messages that may be scored (in order of their
    unit's first message: a remote scorer's batches follow the conversation)."""
    unsendable = [i for u in units if u.broken and not u.pending for i in u.members]
    sizes, tokens = segments.sizes, segments.tokens
    total_b = sum(sizes) - sum(map(sizes.__getitem__, unsendable))
    total_t = sum(tokens) - sum(map(tokens.__getitem__, unsendable))
    over = budget.exceeded_by(total_b, total_t)
    if over == (0, 0):
        return False, []
    return True, _to_score_order(units, own)


def _to_score_order(units: Sequence[Unit], own: Sequence[str]) -> list[int]:
    """The messages that may be scored, in order of their unit's first message: a message
    alone unless it is protected; a tool unit when none of its members is."""
    if not units:
        return [i for i, reason in enumerate(own) if not reason]
    in_unit = {i for u in units for i in u.members}
    owned = set(compress(range(len(own)), own))
    unit_at = {
        u.members[0]: u.members for u in units if not u.broken and owned.isdisjoint(u.members)
    }
    to_score: list[int] = []
    for i, reason in enumerate(own):
        if i in in_unit:
            members = unit_at.get(i)
            if members is not None:
                to_score.extend(members)
        elif not reason:
            to_score.append(i)
    return to_score


def _select_and_build(
    messages: Sequence[Any],
    segments: Segments,
    units: Sequence[Unit],
    own: Sequence[str],
    scoring: _Scoring,
    settings: _Settings,
    compaction_needed: bool,
    run_id: str,
    exact_tokens: bool,
    problems: list[str],
) -> CompactionResult:
    budget = _Budget(settings.target_bytes, settings.target_tokens)
    n = len(segments)
    sizes, tokens = segments.sizes, segments.tokens
    kept = [True] * n
    reason = [""] * n
    scores = scoring.scores
    min_confidence = settings.min_confidence
    forced_b = forced_t = 0
    # (value, last index, unit or None for a message alone, bytes, tokens) of every unit
    # that may be dropped
    candidates: list[tuple[float, int, Unit | None, int, int]] = []
    in_unit = {i for u in units for i in u.members}
    if not compaction_needed:
        reason = ["under-budget"] * n
    else:
        # Messages alone (most of them), a column at a time: protected, unsure, or
        # candidates.
        alone = list(itertools.filterfalse(in_unit.__contains__, range(n)))
        protected = list(compress(alone, map(own.__getitem__, alone)))
        free = list(itertools.filterfalse(own.__getitem__, alone)) if protected else alone
        free_scores = list(map(scores.__getitem__, free))
        sure = list(
            map(operator.le, itertools.repeat(min_confidence), map(_CONFIDENCE, free_scores))
        )
        unsure = list(compress(free, map(operator.not_, sure)))
        for i in protected:
            reason[i] = own[i]
        for i in unsure:
            reason[i] = "unsure"
        forced = protected + unsure
        forced_b += sum(map(sizes.__getitem__, forced))
        forced_t += sum(map(tokens.__getitem__, forced))
        chosen = list(compress(free, sure))
        candidates.extend(
            zip(
                map(_VALUE, compress(free_scores, sure)),
                chosen,
                itertools.repeat(None),
                map(sizes.__getitem__, chosen),
                map(tokens.__getitem__, chosen),
            )
        )
    multi = [u for u in units if len(u.members) > 1]
    # Tool units whose members carry no protection of their own: scored as a whole, a
    # column at a time (most units of an agent session); the others one by one below.
    owned = set(compress(range(n), own)) if compaction_needed else set()
    plain = [u for u in units if not u.broken and owned.isdisjoint(u.members)]
    for unit in units if len(plain) < len(units) else ():
        members = unit.members
        if unit.broken and not unit.pending:
            for i in members:
                kept[i], reason[i] = False, "orphan"
        elif compaction_needed and (unit.pending or not owned.isdisjoint(members)):
            unit_own = _unit_reason(unit, own)
            r = unit_own or "pending-call"
            for i in members:
                reason[i] = _message_reason(i, r, own, len(members) == 1) if unit_own else r
            forced_b += sum(map(sizes.__getitem__, members))
            forced_t += sum(map(tokens.__getitem__, members))
    if compaction_needed and plain:
        members_of = [u.members for u in plain]
        unit_b = list(map(sum, map(map, itertools.repeat(sizes.__getitem__), members_of)))
        unit_t = list(map(sum, map(map, itertools.repeat(tokens.__getitem__), members_of)))
        unit_scores = list(map(list, map(map, itertools.repeat(scores.__getitem__), members_of)))
        confidence = map(min, map(map, itertools.repeat(_CONFIDENCE), unit_scores))
        sure = list(map(operator.le, itertools.repeat(min_confidence), confidence))
        for unit in compress(plain, map(operator.not_, sure)):
            for i in unit.members:
                reason[i] = "unsure"
        not_sure = list(map(operator.not_, sure))
        forced_b += sum(compress(unit_b, not_sure))
        forced_t += sum(compress(unit_t, not_sure))
        candidates.extend(
            zip(
                map(max, map(map, itertools.repeat(_VALUE), compress(unit_scores, sure))),
                map(_LAST, compress(members_of, sure)),
                compress(plain, sure),
                compress(unit_b, sure),
                compress(unit_t, sure),
                strict=True,
            )
        )

    over_b, over_t = budget.exceeded_by(forced_b, forced_t)
    summary: Any | None = None
    summary_index: int | None = None
    summary_size = 0
    summary_body: str | None = None
    if compaction_needed:
        left_b = None if budget.bytes is None else budget.bytes - forced_b
        left_t = None if budget.tokens is None else budget.tokens - forced_t
        over = (over_b, over_t) != (0, 0)
        cap_b = (
            settings.summary_bytes if left_b is None else min(settings.summary_bytes, left_b // 4)
        )
        cap_t = None if left_t is None else left_t // 4
        avail_b = None if left_b is None else left_b - cap_b
        avail_t = None if left_t is None or cap_t is None else left_t - cap_t
        # By value, ties: newer first. (value, last index) is unique to a candidate, so
        # the tuples sort as their first two fields would, without building key tuples.
        candidates.sort(reverse=True)
        dropped: list[int] = []
        dropped_reason = "over-budget" if over else "budget"
        # Room left for kept units: unlimited without a target, none when over budget.
        room_b: float = -1 if over else math.inf if avail_b is None else avail_b
        room_t: float = -1 if over else math.inf if avail_t is None else avail_t
        for _value, last, group, ub, ut in candidates:
            if ub <= room_b and ut <= room_t:
                room_b -= ub
                room_t -= ut
                if group is None or len(group.members) == 1:
                    reason[last] = "selected"
                else:
                    for i in group.members:
                        reason[i] = "paired:selected"
            elif group is None or len(group.members) == 1:
                kept[last], reason[last] = False, dropped_reason
                dropped.append(last)
            else:
                for i in group.members:
                    kept[i], reason[i] = False, f"paired:{dropped_reason}"
                dropped.extend(group.members)
        if dropped and not over and cap_b > 0 and (cap_t is None or cap_t > 0):
            # Only the best few can be quoted within summary_bytes: no need to sort them
            # all. Best first: by value, ties by the newer (no two share an index).
            best = heapq.nlargest(
                _SUMMARY_CANDIDATES, zip([scores[i].value for i in dropped], dropped, strict=True)
            )
            text = summary_text(
                [segments[i] for _value, i in best],
                dropped_count=len(dropped),
                dropped_bytes=sum(map(sizes.__getitem__, dropped)),
                cap_bytes=cap_b,
                cap_tokens=cap_t,
            )
            if text is not None:
                first_dropped = min(dropped)
                summary_body = text
                summary_index = _summary_place(multi, kept, first_dropped)
                seq = (
                    messages[first_dropped].get("seq")
                    if isinstance(messages[first_dropped], Mapping)
                    else None
                )
                dialect = conversation_dialect(segments.dialects)
                summary = summary_message(text, dialect, settings.summary_role, seq)
                summary_size = len(text.encode("utf-8", "surrogatepass"))

    out = list(compress(messages, kept))
    if summary_index is not None:
        out.insert(summary_index, summary)
    unit_of = list(range(n))
    for u in multi:
        first = u.members[0]
        for i in u.members:
            unit_of[i] = first
    values = dict(zip(scores, map(_VALUE, scores.values()), strict=True))
    confidences = dict(zip(scores, map(_CONFIDENCE, scores.values()), strict=True))
    decisions = frozen_from_columns(
        Decision,
        (
            range(n),
            segments.hashes,
            segments.roles,
            sizes,
            tokens,
            list(map(values.get, range(n))),
            list(map(confidences.get, range(n))),
            kept,
            reason,
            unit_of,
        ),
    )
    counter = count_tokens if exact_tokens else estimate_tokens
    summary_tokens = counter(summary_body) if summary_body is not None else 0
    kept_count = sum(kept)
    stats = CompactionStats(
        messages_before=n,
        messages_after=len(out),
        bytes_before=sum(sizes),
        bytes_after=sum(compress(sizes, kept)) + summary_size,
        tokens_before=sum(tokens),
        tokens_after=sum(compress(tokens, kept)) + summary_tokens,
        kept=kept_count,
        dropped=n - kept_count,
        pinned=n - own.count("") - own.count("system") - own.count("recent"),
        protected=sum(map(bool, compress(own, kept))),
        over_budget_bytes=over_b,
        over_budget_tokens=over_t,
        summary_bytes=summary_size,
        scorer=scoring.scorer,
        degraded=scoring.degraded_reason is not None,
        degraded_reason=scoring.degraded_reason,
        requests=scoring.requests,
        failed_requests=scoring.failed_requests,
        scorer_tokens=scoring.scorer_tokens,
        token_method=token_method() if exact_tokens else "estimate",
    )
    return CompactionResult(
        messages=tuple(out),
        summary=summary,
        summary_index=summary_index,
        stats=stats,
        decisions=decisions,
        run_id=run_id,
        receipt_path=None,
        problems=tuple(problems),
    )


def _summary_place(units: Sequence[Unit], kept: Sequence[bool], first_dropped: int) -> int:
    """Where the summary goes in the output: at the first dropped message, moved past any
    kept tool unit that spans that place (a summary never splits a call from its result).
    """
    place = first_dropped
    moved = True
    while moved:
        moved = False
        for unit in units:
            members = unit.members
            if len(members) > 1 and kept[members[0]] and members[0] < place <= members[-1]:
                place = members[-1] + 1
                moved = True
    return sum(compress(itertools.repeat(1, min(place, len(kept))), kept))


# --- the public functions --------------------------------------------------------------


_SECRET_WORDS = ("key", "token", "secret", "password", "authorization", "auth")


def _safe_describe(scorer: Scorer) -> dict[str, Any]:
    """The scorer's self-description with anything that looks like a credential removed."""
    described: Any
    try:
        described = scorer.describe()
    except Exception:  # a caller's scorer may fail here too; the name is enough
        described = {}
    if not isinstance(described, Mapping):
        described = {}
    safe = {
        str(k): v
        for k, v in described.items()
        if not any(word in str(k).lower() for word in _SECRET_WORDS)
    }
    safe.setdefault("name", _scorer_name(scorer))
    return safe


def _untouched(messages: Any, why: str, problems: Sequence[str]) -> CompactionResult:
    """The input back, unchanged, with ``why`` as the last problem."""
    try:
        out = tuple(messages) if isinstance(messages, list | tuple) else ()
    except Exception:  # pragma: no cover - lists and tuples always convert
        out = ()
    stats = CompactionStats(
        messages_before=len(out),
        messages_after=len(out),
        bytes_before=0,
        bytes_after=0,
        tokens_before=0,
        tokens_after=0,
        kept=len(out),
        dropped=0,
        pinned=0,
        protected=0,
        over_budget_bytes=0,
        over_budget_tokens=0,
        summary_bytes=0,
        scorer="none",
        degraded=True,
        degraded_reason=why,
        requests=0,
        failed_requests=0,
        scorer_tokens=0,
        token_method="estimate",
    )
    return CompactionResult(
        messages=out,
        summary=None,
        summary_index=None,
        stats=stats,
        decisions=(),
        run_id="",
        receipt_path=None,
        problems=(*problems, why),
    )


def _internal_error(exc: Exception) -> str:
    return f"internal error ({type(exc).__name__}: {exc}): input unchanged"


def _with_receipt(
    result: CompactionResult,
    receipt_path: Any,
    scorer: Mapping[str, Any],
    settings: _Settings,
    task_hash: str,
) -> CompactionResult:
    """Append the run's receipt when it compacted something; problems never raise."""
    if receipt_path is None or not result.compacted:
        return result
    problems = list(result.problems)
    try:
        path = os.fspath(receipt_path)
        block = receipt_block(
            result.run_id,
            result.decisions,
            scorer=scorer,
            settings={**settings.to_dict(), "task_sha256": task_hash},
            stats=result.stats.to_dict(),
        )
        append_receipt(path, block)
    except (OSError, TypeError, ValueError) as exc:
        problems.append(f"receipt not written: {exc}")
        return _replace(result, receipt_path=None, problems=tuple(problems))
    return _replace(result, receipt_path=str(path), problems=tuple(problems))


def _replace(result: CompactionResult, **changes: Any) -> CompactionResult:
    from dataclasses import replace

    return replace(result, **changes)


def _task_text(task: Any, problems: list[str]) -> str:
    if isinstance(task, str):
        return task
    if task is None:
        return ""
    problems.append(f"task: expected a string, got {type(task).__name__}; using its str()")
    try:
        return str(task)
    except Exception:  # a caller's object may fail to print
        return ""


def compact(
    messages: Any,
    task: Any,
    *,
    target_bytes: int | None = None,
    target_tokens: int | None = None,
    keep_recent: int = 4,
    batch_size: int = 8,
    min_confidence: float = 0.35,
    summary_bytes: int = 1024,
    summary_role: str = "system",
    state_message_bytes: int = 2000,
    pin_patterns: Sequence[str] = (),
    enable_pinning: bool = True,
    pin_flags: str = "i",
    scorer: Scorer | str | None = None,
    receipt_path: str | os.PathLike[str] | None = None,
    run_id: str | None = None,
) -> CompactionResult:
    """Compact ``messages`` (OpenAI chat, Anthropic messages or ctxkeep events) for ``task``.

    Keeps system messages, the last ``keep_recent`` messages and pinned ones verbatim,
    scores the rest with ``scorer`` (a :class:`~ctxkeep.scorers.Scorer`, a registry name, or
    None for ``lexical``), keeps uncertain ones (confidence below ``min_confidence``), then
    keeps the most valuable tool units (ties: the newer) until ``target_bytes`` and/or
    ``target_tokens`` are spent, and puts an extractive summary where the first dropped
    message was. With no target nothing is dropped. Appends a receipt to ``receipt_path``
    when something was dropped. Never raises: see ``CompactionResult.problems``.
    """
    options = {
        "target_bytes": target_bytes,
        "target_tokens": target_tokens,
        "keep_recent": keep_recent,
        "batch_size": batch_size,
        "min_confidence": min_confidence,
        "summary_bytes": summary_bytes,
        "summary_role": summary_role,
        "state_message_bytes": state_message_bytes,
        "pin_patterns": pin_patterns,
        "enable_pinning": enable_pinning,
        "pin_flags": pin_flags,
    }
    problems: list[str] = []
    try:
        with cyclic_gc_paused():
            return _compact(messages, task, options, scorer, receipt_path, run_id, problems)
    except Exception as exc:  # the contract: never raise; the input comes back unchanged
        return _untouched(messages, _internal_error(exc), problems)


def _compact(
    messages: Any,
    task: Any,
    options: dict[str, Any],
    scorer: Any,
    receipt_path: Any,
    run_id: Any,
    problems: list[str],
) -> CompactionResult:
    settings = _settings(options, problems)
    msgs = _as_list(messages, problems)
    task_text = _task_text(task, problems)
    exact = settings.target_tokens is not None
    segments = read_segments(msgs, exact_tokens=exact)
    units = group_units(segments)
    own = _protect(msgs, segments, settings, problems)
    budget = _Budget(settings.target_bytes, settings.target_tokens)
    needed, to_score = _needs_scoring(segments, units, own, budget)
    chosen = _resolve_scorer(scorer, problems)
    scoring = (
        _score(chosen, task_text, segments, to_score, settings, problems)
        if needed
        else _Scoring({}, _scorer_name(chosen))
    )
    rid = (
        run_id
        if isinstance(run_id, str) and run_id
        else _run_id(segments, settings, task_text, scoring.scorer)
    )
    result = _select_and_build(
        msgs, segments, units, own, scoring, settings, needed, rid, exact, problems
    )
    task_hash = hashlib.sha256(task_text.encode("utf-8", "surrogatepass")).hexdigest()
    return _with_receipt(result, receipt_path, _safe_describe(chosen), settings, task_hash)


def _load_run(receipts: Any, run_id: str | None) -> tuple[ReceiptRun | None, list[str]]:
    if isinstance(receipts, ReceiptRun):
        return receipts, []
    file = receipts if isinstance(receipts, ReceiptFile) else read_receipts(receipts)
    notes = [f"{located(str(file.path), line)}: {reason}" for line, reason in file.problems]
    run = file.run(run_id)
    if run is None:
        wanted = f"run {run_id!r}" if run_id else "trusted run"
        notes.append(f"{file.path}: no {wanted} in the receipts")
    return run, notes


def _recorded_scores(run: ReceiptRun, segments: Segments) -> tuple[dict[int, Score], set[int]]:
    """Scores from the receipt, matched to messages by content hash (in order of
    occurrence, so repeated texts match their own records), and the unmatched indexes.
    """
    by_hash: dict[str, deque[Mapping[str, Any]]] = {}
    for record in run.records:
        digest = record.get("hash")
        if isinstance(digest, str):
            by_hash.setdefault(digest, deque()).append(record)
    scores: dict[int, Score] = {}
    unmatched: set[int] = set()
    for position, content_hash in enumerate(segments.hashes):
        queue = by_hash.get(content_hash)
        if not queue:
            unmatched.add(position)
            continue
        record = queue.popleft()
        value, confidence = record.get("score"), record.get("confidence")
        if value is None or confidence is None:
            continue
        score = Score(value, confidence)
        if score.is_valid():
            scores[position] = Score(float(value), float(confidence))
    return scores, unmatched


def replay(
    messages: Any,
    receipts: str | os.PathLike[str] | ReceiptFile | ReceiptRun,
    *,
    target_bytes: int | None = None,
    target_tokens: int | None = None,
    min_confidence: float | None = None,
    keep_recent: int | None = None,
    summary_bytes: int | None = None,
    run_id: str | None = None,
    receipt_path: str | os.PathLike[str] | None = None,
) -> CompactionResult:
    """Re-run the selection of a recorded run at another budget or threshold, no scorer call.

    Scores come from the receipt (the run ``run_id``, else the last trusted run), matched
    to ``messages`` by content hash, so the list may have changed since: a message the
    receipt does not know is scored by recency (and the result is marked degraded). Every
    setting not given here is the recorded run's; targets given here replace both recorded
    targets. Never raises; with no trusted run the input is returned unchanged.
    """
    problems: list[str] = []
    try:
        with cyclic_gc_paused():
            return _replay(
                messages, receipts, target_bytes, target_tokens, min_confidence, keep_recent,
                summary_bytes, run_id, receipt_path, problems,
            )  # fmt: skip
    except Exception as exc:  # the contract: never raise
        return _untouched(messages, _internal_error(exc), problems)


def _replay(
    messages: Any,
    receipts: Any,
    target_bytes: int | None,
    target_tokens: int | None,
    min_confidence: float | None,
    keep_recent: int | None,
    summary_bytes: int | None,
    run_id: str | None,
    receipt_path: Any,
    problems: list[str],
) -> CompactionResult:
    run, notes = _load_run(receipts, run_id)
    problems.extend(notes)
    msgs = _as_list(messages, problems)
    if run is None:
        return _untouched(msgs, "no trusted run to replay: input unchanged", problems)
    recorded = dict(run.settings)
    options: dict[str, Any] = {
        "target_bytes": recorded.get("target_bytes"),
        "target_tokens": recorded.get("target_tokens"),
        "keep_recent": recorded.get("keep_recent", 4),
        "batch_size": recorded.get("batch_size", 8),
        "min_confidence": recorded.get("min_confidence", 0.35),
        "summary_bytes": recorded.get("summary_bytes", 1024),
        "summary_role": recorded.get("summary_role", "system"),
        "state_message_bytes": recorded.get("state_message_bytes", 2000),
        "pin_patterns": recorded.get("pin_patterns", ()),
        "enable_pinning": recorded.get("enable_pinning", True),
        "pin_flags": recorded.get("pin_flags", "i"),
    }
    if target_bytes is not None or target_tokens is not None:
        options["target_bytes"], options["target_tokens"] = target_bytes, target_tokens
    for name, value in (
        ("min_confidence", min_confidence),
        ("keep_recent", keep_recent),
        ("summary_bytes", summary_bytes),
    ):
        if value is not None:
            options[name] = value
    settings = _settings(options, problems)
    exact = settings.target_tokens is not None
    segments = read_segments(msgs, exact_tokens=exact)
    units = group_units(segments)
    own = _protect(msgs, segments, settings, problems)
    needed, to_score = _needs_scoring(
        segments, units, own, _Budget(settings.target_bytes, settings.target_tokens)
    )
    scores, _unmatched = _recorded_scores(run, segments)
    recorded_name = run.scorer.get("name", "unknown")
    scoring = _Scoring({}, f"replay:{recorded_name}")
    missing = [i for i in to_score if i not in scores]
    scoring.scores = {i: scores[i] for i in to_score if i in scores}
    if missing:
        n = len(segments)
        scoring.scores.update((i, recency_score(Candidate(i, "", n))) for i in missing)
        scoring.degraded_reason = (
            f"{len(missing)} message(s) have no score in the receipt: scored by recency"
        )
    rid = _run_id(segments, settings, f"replay:{run.run_id}", scoring.scorer)
    result = _select_and_build(
        msgs, segments, units, own, scoring, settings, needed, rid, exact, problems
    )
    described = {"name": scoring.scorer, "replayed_run": run.run_id}
    task_hash = str(run.settings.get("task_sha256", ""))
    return _with_receipt(result, receipt_path, described, settings, task_hash)
