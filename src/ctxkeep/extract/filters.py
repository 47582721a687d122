"""False-positive filters: one named predicate per case seen on real text.

Each predicate answers "is this candidate a false positive of that kind?" and its docstring
names the case that needed it. Identifier filters take the candidate text; constraint
filters take the clause, and the offsets of the marker word inside it; text filters take
a clause, a line or a whole text (fragments, pasted lines, an agent's plan, ``/compact``
omissions). The extractors run them in the order of the ``*_FILTERS`` tuples and record
which one dropped a candidate (:func:`ctxkeep.extract.identifier_candidates`), so a
wrong drop names its filter. docs/judgement-constraints.md lists the constraint filters
with their cases.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from ctxkeep.extract._text import CJK_CLASS, has_cjk, words_of

__all__ = [
    "CONSTRAINT_FILTERS",
    "IDENTIFIER_CONTEXT_FILTERS",
    "IDENTIFIER_FILTERS",
    "IMPERATIVE_ONLY",
    "PROCESS_VERBS",
    "REFERENCE_FILTERS",
    "TEXT_FILTERS",
    "ConstraintFilter",
    "IdentifierContextFilter",
    "IdentifierFilter",
    "ReferenceFilter",
    "is_agent_plan",
    "is_assembly_mnemonic_list",
    "is_bare_number_sign",
    "is_bie_inside_word",
    "is_bude_idiom",
    "is_c_keyword_chain",
    "is_cjk_words_joined_by_slashes",
    "is_date",
    "is_epistemic_must",
    "is_epistemic_should",
    "is_fragment",
    "is_ip_address_or_prefix",
    "is_latin_abbreviation",
    "is_machine_line",
    "is_narrative_statement",
    "is_no_statement",
    "is_not_hex_digest",
    "is_not_imperative_position",
    "is_not_only_but_also",
    "is_numbered_list",
    "is_omission_request",
    "is_one_shot_request",
    "is_out_of_port_range",
    "is_path_cut_mid_segment",
    "is_phatic_idiom",
    "is_plain_dotted_words",
    "is_position_not_reference",
    "is_prose_parenthesis",
    "is_quantity_only",
    "is_question",
    "is_quoted_output_line",
    "is_quoted_speech",
    "is_register_or_suffix_list",
    "is_repeat_request",
    "is_slash_alternatives_in_prose",
    "is_subordinate_clause",
    "is_unrestrictive_zhi",
    "is_words_joined_by_slashes",
]

IdentifierFilter = Callable[[str], bool]
ConstraintFilter = Callable[[str, int, int], bool]


# --------------------------------------------------------------------------- identifiers


_PATH_SEPARATOR = re.compile(r"[/\\]")


@functools.lru_cache(maxsize=4096)
def _segments(path: str) -> tuple[str, ...]:
    # cached: every path filter splits the same candidate
    return tuple(s for s in _PATH_SEPARATOR.split(path) if s)


_CJK_ONLY = re.compile(f"[{CJK_CLASS}]+")


def is_cjk_words_joined_by_slashes(candidate: str) -> bool:
    """``方案/数据/渠道``: Chinese prose lists alternatives with slashes; not a path.

    Every segment is Chinese characters only (a real Chinese path such as
    ``/home/用户/笔记.txt`` has an extension or ASCII segments).
    """
    segments = _segments(candidate)
    return bool(segments) and all(_CJK_ONLY.fullmatch(s) for s in segments)


_C_KEYWORDS = words_of(
    "auto break case char const continue default do double else enum extern float for goto "
    "if inline int long register restrict return short signed sizeof static struct switch "
    "typedef union unsigned void volatile while"
)


def is_c_keyword_chain(candidate: str) -> bool:
    """``/break/continue``: C keywords listed with slashes in a code review, not a path."""
    segments = _segments(candidate)
    return len(segments) >= 2 and all(s in _C_KEYWORDS for s in segments)


def is_numbered_list(candidate: str) -> bool:
    """``/04/12/15``: numbers joined by slashes (list items, fractions), not a path."""
    segments = _segments(candidate)
    return bool(segments) and all(s.isdigit() for s in segments)


_REGISTERS_AND_SUFFIXES = words_of(
    # C literal suffixes (1U, 1UL, 1.0F) ...
    "u l ul lu ll ull llu f d lf "
    # ... and x86 / ARM register names
    "al ah ax eax rax bl bh bx ebx rbx cl ch cx ecx rcx dl dh dx edx rdx si esi rsi di edi "
    "rdi sp esp rsp bp ebp rbp ip eip rip r8 r9 r10 r11 r12 r13 r14 r15 cs ds es fs gs ss "
    "x0 x1 x2 x3 x4 x5 x6 x7 x8 x29 x30 w0 w1 w2 w3 lr pc"
)
_VECTOR_REGISTER = re.compile(r"[xyz]mm\d{1,2}|[vqds]\d{1,2}", re.IGNORECASE)


def is_register_or_suffix_list(candidate: str) -> bool:
    """``/U/UL/F`` or ``eax/ebx``: integer-literal suffixes or CPU registers, not a path."""
    segments = _segments(candidate)
    return len(segments) >= 2 and all(
        s.lower() in _REGISTERS_AND_SUFFIXES or _VECTOR_REGISTER.fullmatch(s) for s in segments
    )


_MNEMONICS = words_of(
    "add sub mul div imul idiv inc dec neg mov movzx movsx movsxd lea push pop call ret jmp "
    "je jne jz jnz jg jge jl jle ja jae jb jbe cmp test and or xor not shl shr sar rol ror nop "
    "addss subss mulss divss addsd subsd mulsd divsd sqrtss sqrtsd minss maxss minsd maxsd "
    "addps subps mulps divps addpd subpd mulpd divpd movss movsd movaps movups movapd movupd "
    "movdqa movdqu pxor xorps andps orps cvtsi2ss cvtsi2sd cvtss2sd cvtsd2ss ucomiss comiss "
    "fadd fsub fmul fdiv fld fst fstp ldr str stp ldp bl blr cbz cbnz b.eq b.ne"
)


def is_assembly_mnemonic_list(candidate: str) -> bool:
    """``/addss/subss``: assembly mnemonics compared in a perf discussion, not a path."""
    segments = _segments(candidate)
    return len(segments) >= 2 and all(s.lower() in _MNEMONICS for s in segments)


_DATE = re.compile(
    r"(?:(?P<y1>\d{4})[/.-](?P<m1>\d{1,2})(?:[/.-](?P<d1>\d{1,2}))?"
    r"|(?P<a>\d{1,2})[/.-](?P<b>\d{1,2})(?:[/.-](?P<y2>\d{2}|\d{4}))?)"
)


def is_date(candidate: str) -> bool:
    """``2026/11/29``, ``11/29``, ``29.11.2026``, ``2026.11.29``: a date, not a path or version.

    A leading slash is no date (``/04/12/15`` is a numbered list); dotted forms need a
    four-digit year (``3.11`` is a version).
    """
    match = _DATE.fullmatch(candidate)
    if match is None:
        return False
    if "/" not in candidate and not re.search(r"\d{4}", candidate):
        return False
    if match.group("y1") is not None:
        year, month = int(match.group("y1")), int(match.group("m1"))
        day = int(match.group("d1") or 1)
        return 1900 <= year <= 2199 and 1 <= month <= 12 and 1 <= day <= 31
    first, second = int(match.group("a")), int(match.group("b"))
    # month/day or day/month: one of them must be a month, both must be plausible
    return (1 <= first <= 12 and 1 <= second <= 31) or (1 <= second <= 12 and 1 <= first <= 31)


def is_ip_address_or_prefix(candidate: str) -> bool:
    """``127.0.0`` or ``192.168.1.10``: an IP address or prefix read as a version number.

    Four numeric parts that are all octets; or three whose first is a well-known network
    prefix (10, 127, 169, 172, 192) or above 99 (versions rarely start there).
    """
    parts = candidate.lstrip("vV").split(".")
    if not all(p.isdigit() and len(p) <= 3 and int(p) <= 255 for p in parts):
        return False
    if len(parts) == 4:
        return True
    return len(parts) == 3 and (
        parts[0] in {"10", "127", "169", "172", "192"} or int(parts[0]) > 99
    )


_KNOWN_ROOTS = words_of(
    "src lib libs bin sbin usr etc var opt tmp home tests test docs doc app apps pkg cmd "
    "internal scripts script benchmarks examples include build dist node_modules vendor "
    "config configs assets static public private data out target crates packages"
)
_PATH_LIKE_SEGMENT = re.compile(r"[\w-]*[_.][\w.-]*|[\w]*-[\w-]+")


def is_words_joined_by_slashes(candidate: str) -> bool:
    """``and/or``, ``A/B``, ``read/write``, ``MB/s``: English words joined by a slash.

    Only for relative candidates with no file extension, no trailing slash, no
    ``_``/``-``/``.`` in any segment and no well-known first folder (``src/``, ``tests/``).
    """
    if candidate.startswith(("/", "~", ".")) or candidate.endswith("/") or "\\" in candidate:
        return False
    segments = _segments(candidate)
    if segments and segments[0] in _KNOWN_ROOTS:
        return False
    return not any(_PATH_LIKE_SEGMENT.fullmatch(s) for s in segments)


def is_out_of_port_range(candidate: str) -> bool:
    """``localhost:99999`` or ``port 0``: not a TCP/UDP port (1-65535)."""
    digits = re.search(r"(\d+)\D*$", candidate)
    return digits is None or not 1 <= int(digits.group(1)) <= 65535


def is_not_hex_digest(candidate: str) -> bool:
    """``1234567`` or ``defaced``: all digits (a count) or all letters (a word), not a hash."""
    body = candidate.replace("-", "")
    return body.isdigit() or body.isalpha()


def is_latin_abbreviation(candidate: str) -> bool:
    """``e.g`` / ``i.e`` / ``a.m``: one-letter dotted parts are Latin abbreviations."""
    return all(len(part) == 1 for part in candidate.split("."))


def is_plain_dotted_words(candidate: str) -> bool:
    """``example.com``, ``done.next``: lower-case dotted words with no code sign.

    A dotted name is code when it is ``Class.method`` (upper-case first part), has three or
    more parts (``os.path.join``), or has an underscore in a part (``self._cache``).
    """
    parts = candidate.split(".")
    if len(parts) >= 3 or "_" in candidate:
        return False
    return not (parts[0][:1].isupper() and len(parts[0]) > 1)


_CAMEL_INNER = re.compile(r"[a-z][A-Z]")


def is_prose_parenthesis(candidate: str) -> bool:
    """``item(s)`` / ``see(above)``: a plain word glued to a parenthesis in prose, not a call.

    A call counts when its parentheses are empty (``f()``) or its name is code-shaped:
    ``snake_case(``, ``obj.method(``, ``camelCase(``.
    """
    name = candidate.split("(", 1)[0]
    code_shaped = "_" in name or "." in name or _CAMEL_INNER.search(name) is not None
    return not (candidate.endswith("()") or code_shaped)


# ----------------------------------------------------------- identifiers, in context

IdentifierContextFilter = Callable[[str, str, int], bool]

_ISSUE_CONTEXT = re.compile(
    r"\b(?:issues?|PRs?|pull|pulls|merge|MRs?|tickets?|bugs?|github|gitlab|jira|fix(?:es|ed)?"
    r"|clos(?:e|es|ed)|resolv(?:e|es|ed)|ref(?:s)?|see)\b|问题|工单|合并请求",
    re.IGNORECASE,
)


def _line_around(text: str, start: int) -> str:
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    return text[line_start : len(text) if line_end < 0 else line_end]


def is_bare_number_sign(candidate: str, text: str, start: int) -> bool:
    """``step #3`` / ``the #1 cause`` / ``第#2项``: a number sign with no issue in sight.

    A bare ``#N`` is an issue or pull request only when the words before it in its clause
    say so (issue, PR, pull, merge, ticket, bug, fixes, closes, see, GitHub, ...);
    otherwise it is an ordinal, a fragment of a list, not an item to look up.
    """
    if not candidate.startswith("#"):
        return False
    line = _line_around(text, start)
    at = start - (text.rfind("\n", 0, start) + 1)
    clause_start = max(line.rfind(b, 0, at) for b in (". ", "; ", ", ", "\u3002", "\uff1b"))
    before = line[max(clause_start + 1, at - 40) : at]
    return _ISSUE_CONTEXT.search(before) is None


_CODE_MARKS = "`'\"*"
_LOCATION_WORDS = words_of(
    "in at under into to from inside within file files folder folders directory directories "
    "dir dirs path paths see open opened edit edited read wrote write create created move "
    "moved copy copied delete deleted run ran cd ls mkdir touch rm mv cp"
)
_PLAIN_WORD = re.compile(r"[a-z]+")


def is_slash_alternatives_in_prose(candidate: str, text: str, start: int) -> bool:
    """``fix failing tests/build`` / ``the lint/test step``: two plain words joined by a
    slash in running prose, an alternative, not a folder.

    Claude Code summary (entireio/cli, benchmarks/real-logs): "User first requested to fix
    failing tests/build". Only two lower-case alphabetic segments, with no code markup
    around them and no word before them that introduces a location (in, to, under, file,
    folder, edit, cd, ...): ``edit src/cli`` and `` `tests/build` `` stay paths.
    """
    segments = candidate.split("/")
    if len(segments) != 2 or not all(_PLAIN_WORD.fullmatch(s) for s in segments):
        return False
    end = start + len(candidate)
    if (start > 0 and text[start - 1] in _CODE_MARKS) or (
        end < len(text) and text[end] in _CODE_MARKS
    ):
        return False
    before = re.findall(r"[A-Za-z]+", text[max(0, start - 30) : start])
    return not (before and before[-1].lower() in _LOCATION_WORDS)


_ELLIPSES = ("...", "\u2026")


def is_path_cut_mid_segment(candidate: str, text: str, start: int) -> bool:
    """``cmd/entire/cli/integration_tes…`` / ``…ntegration_test/resume.go``: a path whose
    first or last segment an ellipsis cuts, copied from truncated tool output; a
    fragment, not an item to look up.

    Claude Code truncates long tool output with "…" (the real logs in benchmarks/ show
    ``integration_tes…`` in a test run). An ellipsis that stands for whole segments
    (``/var/folders/wl/.../T/x``, ``.../refs/heads/entire``) cuts nothing: that path is
    an item, found by its pieces.
    """
    end = start + len(candidate)
    cut_end = text.startswith(_ELLIPSES, end) and not candidate.endswith("/")
    cut_start = (start > 0 and text[start - 1] == "\u2026") or (
        candidate.startswith("...") and candidate[3:4] not in ("/", "")
    )
    return cut_end or cut_start


IDENTIFIER_CONTEXT_FILTERS: dict[str, tuple[IdentifierContextFilter, ...]] = {
    "issue": (is_bare_number_sign,),
    "path": (is_slash_alternatives_in_prose, is_path_cut_mid_segment),
}


# --------------------------------------------------------------------------- references

ReferenceFilter = Callable[[str, int, int], bool]

# Quotes a summary puts around someone's words; backticks are code, not speech.
_SPEECH_QUOTES = (('"', '"'), ("\u201c", "\u201d"), ("\u300c", "\u300d"))


def is_quoted_speech(text: str, start: int, end: int) -> bool:
    """``- "okay, let's do the split as you've detailed above first"``: the phrase stands
    inside a quotation of someone's message, which points back in that conversation.

    Claude Code summary (entireio/cli, benchmarks/real-logs): the "All user messages"
    section quotes every user message verbatim; "as you've detailed above" is the user's
    phrase, quoted, not the summary pointing back.
    """
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    at, stop = start - line_start, end - line_start
    for opening, closing in _SPEECH_QUOTES:
        position = 0
        while (left := line.find(opening, position)) >= 0:
            right = line.find(closing, left + 1)
            if right < 0:
                break
            if left < at and stop <= right:
                return True
            position = right + 1
    return False


_OBJECT_AFTER = re.compile(
    r"\s*(?:[`'\"*\d]|(?:the|a|an|this|that|these|those|it|its|any|each)\b|[A-Z])"
)


def is_position_not_reference(text: str, start: int, end: int) -> bool:
    """``*Alias field must be listed before `Content json.RawMessage` ``: "before" (or
    "prior", "above") with an object after it places one thing before another; it points
    back at nothing.

    Claude Code summary (entireio/cli, benchmarks/real-logs): a lint error "embedded field
    ordering: `*Alias` field must be listed before `Content json.RawMessage`".
    """
    phrase = text[start:end].lower()
    if not phrase.endswith(("before", "prior", "above")):
        return False
    return _OBJECT_AFTER.match(text, end) is not None


REFERENCE_FILTERS: tuple[ReferenceFilter, ...] = (is_quoted_speech, is_position_not_reference)


# Keyed by identifier kind, or by pattern name where one kind has several patterns
# ("call" and "dotted" are symbols).
IDENTIFIER_FILTERS: dict[str, tuple[IdentifierFilter, ...]] = {
    "path": (
        is_date,
        is_numbered_list,
        is_cjk_words_joined_by_slashes,
        is_words_joined_by_slashes,
        is_c_keyword_chain,
        is_register_or_suffix_list,
        is_assembly_mnemonic_list,
    ),
    "version": (is_date, is_ip_address_or_prefix),
    "port": (is_out_of_port_range,),
    "hash": (is_not_hex_digest,),
    "call": (is_prose_parenthesis,),
    "dotted": (is_latin_abbreviation, is_plain_dotted_words),
}


# --------------------------------------------------------------------------- constraints
#
# Constraint filters take the clause and the offsets of the marker inside it. The
# marker is what made the clause a candidate: an adverb (never, always, only, just), a
# modal (must, should, need to), a standing verb in the imperative (use, keep, avoid),
# a suggestion (let's, we should), a choice (option 2, go with) or a correction (you
# said, I told you, 我说过).

_ASCII_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?")


@functools.lru_cache(maxsize=1024)
def _words(text: str) -> tuple[str, ...]:
    """The English words of ``text``, lower-cased. Cached: several filters of one marker
    read the words before it."""
    return tuple(w.lower().replace("’", "'") for w in _ASCII_WORD.findall(text))


def _first_word_after(clause: str, offset: int) -> str:
    words = _words(clause[offset : offset + 40])
    return words[0] if words else ""


def is_question(clause: str, marker_start: int, marker_end: int) -> bool:
    """``Should I only change the tests?`` / ``要不要修改接口？``: a question, not an order.

    A question that reproaches the agent ("why are you using github for this...?",
    "why did you edit internal/server?") corrects it: its marker is no question.
    """
    if _REPROACH.match(clause, marker_start) is not None:
        return False
    stripped = clause.rstrip()
    if stripped.endswith(("?", "？")) or stripped.endswith(("吗", "呢")):
        return True
    if clause.isascii():
        return False  # none of the Chinese forms below
    return any(form in clause for form in ("要不要", "是不是", "能不能", "可不可以"))


_REPROACH = re.compile(r"why\s+(?:are|did|do|is)\s+(?:you|it)\s+(?:still\s+|now\s+)?\w+", re.I)
_EPISTEMIC_MUST = re.compile(
    r"must(?:\s+have\s+(?!to\b)\w+|'ve\b|\s+be\s+(?:the|a|an|because|due|caused|why|where|what"
    r"|that|it|some|broken|wrong|missing|stale|cached|failing|somewhere|related)\b)",
    re.IGNORECASE,
)
_EPISTEMIC_SUBJECT = re.compile(r"\b(?:there|it|that|this|which|he|she|they)\s+must\s+be\b", re.I)


def is_epistemic_must(clause: str, marker_start: int, marker_end: int) -> bool:
    """``it must have failed`` / ``there must be a bug``: a guess, not a requirement."""
    if clause[marker_start:marker_end].lower() != "must":
        return False
    if _EPISTEMIC_MUST.match(clause, marker_start) is not None:
        return True
    window = clause[max(0, marker_start - 12) : marker_end + 4]
    return _EPISTEMIC_SUBJECT.search(window) is not None


_EPISTEMIC_SHOULD = re.compile(
    r"should(?:n['’]t|\s+not)?\s+(?:work|pass|succeed|help|fix|now|be\s+(?:fine|ok|okay|good|enough"
    r"|done|able|there|it|the|a|an|because|easy|possible|safe|a\s+problem|an\s+issue)|have\s+been"
    r"|get|see|find|return\s+now)\b",
    re.IGNORECASE,
)


def is_epistemic_should(clause: str, marker_start: int, marker_end: int) -> bool:
    """``that should work now`` / ``it should be fine``: an expectation, not a requirement."""
    if not clause[marker_start:marker_end].lower().startswith("should"):
        return False
    return _EPISTEMIC_SHOULD.match(clause, marker_start) is not None


_QUANTITY_AFTER_ONLY = re.compile(
    r"\s*(?:\d|one\b|two\b|three\b|four\b|five\b|six\b|seven\b|eight\b|nine\b|ten\b|a few\b"
    r"|a couple\b|a handful\b|a little\b|a bit\b|a small\b|some\b|half\b|once\b|twice\b"
    r"|partially\b|slightly\b|marginally\b)",
    re.IGNORECASE,
)
_ZH_QUANTITY_AFTER_ONLY = re.compile(
    r"有?\s*(?:\d|[一二两三四五六七八九十几百千万半]\s*[个条次项处行份%])"
)


def is_quantity_only(clause: str, marker_start: int, marker_end: int) -> bool:
    """``only 3 tests fail`` / ``只有三个测试失败``: "only" before a quantity reports a count.

    ``only on 429`` or ``only 3 retries, at most`` are restrictions: a count is a report
    only when a verb of being or failing follows it (see the pattern's words).
    """
    marker = clause[marker_start:marker_end]
    if marker in ("只", "仅", "只有", "仅有"):
        return _ZH_QUANTITY_AFTER_ONLY.match(clause, marker_end) is not None
    if marker.lower() not in ("only", "just"):
        return False
    return _QUANTITY_AFTER_ONLY.match(clause, marker_end) is not None


def is_not_only_but_also(clause: str, marker_start: int, marker_end: int) -> bool:
    """``not only faster but also smaller`` / ``不仅…而且``: "not only" adds, not restricts."""
    before = clause[max(0, marker_start - 5) : marker_start]
    return before.lower().endswith(("not ", "不")) or clause[marker_start:marker_end] == "不仅"


_PHATIC = re.compile(
    r"(?:don['’]?t|do not|never)\s+(?:worry|mind|hesitate|forget to thank)\b|never\s+mind\b"
    r"|keep\s+(?:the\s+fires?\s+burning|it\s+up|up\s+the\s+good\s+work|me\s+(?:posted|updated"
    r"|in\s+the\s+loop)|calm|going)\b"
    r"|I must (?:say|admit|confess)|no\s+(?:problem|worries|worry|thanks|idea|way|luck|wonder"
    r"|one|matter|longer|doubt|kidding|rush|pressure)\b"
    r"|别(?:担心|客气|着急|急|在意)|不要(?:担心|客气|着急)",
    re.IGNORECASE,
)


def is_phatic_idiom(clause: str, marker_start: int, marker_end: int) -> bool:
    """``don't worry`` / ``never mind`` / ``no problem`` / ``别担心``: politeness, not an order.

    Sign-offs too: a real user ended a day with "I will come back to this tomorrow
    morning, keep the fires burning 😂" (also "keep me posted", "keep it up").
    """
    start = max(0, marker_start - 2)
    if _PHATIC.match(clause, start) is not None:
        return True
    return start != marker_start and _PHATIC.match(clause, marker_start) is not None


_BIE_BEFORE = frozenset("分特区类级识告个差性派辨鉴甄判道离惜")
_BIE_AFTER = frozenset("人的处名称样墅针致扭字号具")


def is_bie_inside_word(clause: str, marker_start: int, marker_end: int) -> bool:
    """``别人`` / ``特别`` / ``识别`` / ``别名``: 别 inside a word, not "don't"."""
    if clause[marker_start:marker_end] != "别":
        return False
    before = clause[marker_start - 1] if marker_start > 0 else ""
    after = clause[marker_end] if marker_end < len(clause) else ""
    return before in _BIE_BEFORE or after in _BIE_AFTER


_ZHI_AFTER = ("要", "是", "好", "不过", "怕", "管")
_ZHI_BEFORE = frozenset("一两三四五六七八九十几每这那某船不")


def is_unrestrictive_zhi(clause: str, marker_start: int, marker_end: int) -> bool:
    """``只要`` (as long as) / ``只是`` (merely) / ``一只`` (measure word) / ``不只`` (not only)."""
    if clause[marker_start:marker_end] != "只":
        return False
    before = clause[marker_start - 1] if marker_start > 0 else ""
    return before in _ZHI_BEFORE or clause.startswith(_ZHI_AFTER, marker_end)


def is_bude_idiom(clause: str, marker_start: int, marker_end: int) -> bool:
    """``不得不`` (have to) / ``怪不得`` (no wonder) / ``舍不得``: 不得 that is no prohibition."""
    if clause[marker_start:marker_end] != "不得":
        return False
    before = clause[marker_start - 1] if marker_start > 0 else ""
    return clause.startswith(("不", "了"), marker_end) or before in "怪舍恨巴免记顾由"


_SUBORDINATORS = words_of(
    "if when whenever unless whether because since why how although though as"
)


_MAIN_SUBJECTS = words_of("we you i")


def is_subordinate_clause(clause: str, marker_start: int, marker_end: int) -> bool:
    """``if you don't know, ask`` / ``why don't we``: the marker sits in a condition or reason.

    Without a comma the main clause may follow the condition: in "if all 3 lanes are
    active and another would start we just show no line" the marker stands after the
    main clause's subject (``we``), which does not open the condition.
    """
    before = _words(clause[:marker_start])
    if _SUBORDINATORS.isdisjoint(before):
        return False
    if len(before) >= 3 and before[-1] in _MAIN_SUBJECTS:
        return before[-2] in _SUBORDINATORS
    return True


# Words that may precede an order without making it a statement: "Please never ...",
# "Also, always ...", "Important: do not ...", "No, remove this again".
_DISCOURSE = words_of(
    "please pls kindly and but so also then now ok okay yes yeah yep sure right alright "
    "again remember important note rule constraint reminder warning caution nb hint tip "
    "finally first second third lastly instead btw oh well hey hmm ah actually no nope "
    "going forward from here on for quick thing one more thing last let's lets let us"
)
# A modal or "to" before the marker makes the clause a directive: "you should never",
# "make sure to always", "I want you to only ...".
_DIRECTIVE = words_of("should must shall need needs ought have has to")
_SUBJECTS = words_of(
    "i i'm i've i'd i'll we we've we'd it it's its he she they this that these those there "
    "the a an my our his her their"
)
_ZH_IMPERATIVE_LEAD = (
    "请",
    "你",
    "您",
    "要",
    "我们",
    "大家",
    "务必",
    "必须",
    "应该",
    "应",
    "一律",
    "都",
    "也",
)
_MODALS = ("should", "need", "needs", "have to", "has to")
_WISHES = words_of("want need like")


def is_narrative_statement(clause: str, marker_start: int, marker_end: int) -> bool:
    """``I just looked`` / ``I don't know`` / ``the build always fails`` / ``测试始终失败``.

    An adverb marker (never, always, only, just, don't) states a fact unless it stands
    where an order stands: first in the clause, after please/also/..., after a modal or
    ``to`` ("you should never", "make sure to always"), after ``you`` (except "just"), or
    directly after the verb ("use only", "edit only"), or in the main clause of a condition
    ("if the cache is cold we just fetch from the origin"). ``we don't want`` / ``I don't want``
    state a wish about the work, which is an instruction. A modal (need to, have to)
    after ``I`` is the user's own plan ("I need to check"), not an order; ``should`` is an
    order only after ``you`` / ``we`` (``2 ** 3 ** 2 should be 512`` describes the fix).
    ``must`` is never narrative here (see :func:`is_epistemic_must`). For Chinese only 始终
    needs this test: it is far more often "has always been" than "always do".
    """
    marker = clause[marker_start:marker_end]
    if marker == "始终":
        head = clause[:marker_start].rstrip()
        return bool(head) and not head.endswith(_ZH_IMPERATIVE_LEAD)
    if has_cjk(marker):
        return False
    lowered = " ".join(marker.lower().split())
    if lowered.startswith("must"):
        return False
    before = _words(clause[:marker_start])
    if lowered == "should":
        # "`2 ** 3 ** 2` should be 512": how the fix behaves, not how to work; an
        # order is "you / we should" or a "should" that opens the clause
        head = clause[:marker_start].strip()
        subject = any(c.isalnum() for c in head) and (
            not before or not all(w in _DISCOURSE for w in before)
        )
        return subject and not (before and before[-1] in ("you", "we"))
    if lowered.startswith(_MODALS):
        return bool(before) and before[-1] in ("i", "i'll", "i'd")
    if lowered not in _ADVERB_MARKERS:
        return False
    if not before or all(w in _DISCOURSE for w in before):
        return False
    if _conditional_rule(before):
        return False
    if any(w in _DIRECTIVE for w in before) or before[-1] == "sure":
        return False
    if lowered in ("don't", "do not", "dont") and _first_word_after(clause, marker_end) in _WISHES:
        return before[-1] in ("they", "he", "she", "it")
    if "you" in before and lowered != "just":
        return not any(w in _SUBJECTS and w != "you" for w in before)
    # "use only the stdlib": the verb, then "only"
    return not (lowered == "only" and len(before) == 1 and before[0] not in _SUBJECTS)


_CONDITIONS = words_of("if whenever unless once")


def _conditional_rule(before: tuple[str, ...]) -> bool:
    """``if all 3 lanes are active … we just show no line``: the main clause of a
    condition says what to do whenever it holds, a rule, not a report."""
    return (
        len(before) >= 3
        and any(w in _CONDITIONS for w in before)
        and before[-1] in ("we", "you")
        and before[-2] not in _SUBORDINATORS
    )


_ADVERB_MARKERS = words_of("never always only just solely exclusively avoid") | {
    "don't",
    "do not",
    "dont",
    "don’t",
}
# Verbs and words that only make an instruction at the head of a clause (the imperative):
# "use uv" is an order, "I use uv" is not.
IMPERATIVE_ONLY = words_of(
    "use keep prefer avoid stick leave follow respect preserve maintain retain honour honor "
    "note stay cap favour favor reuse no stop"
)
_ZH_IMPERATIVE_ONLY = ("用", "使用", "改用", "采用", "换成")
_ZH_YONG_WORDS = ("户", "于", "法", "途", "处", "到", "量")
_ZH_VERB_LEAD = ("请", "你", "您", "就", "都", "统一", "先", "还是", "我们", "咱们", "也", "要",
                 "以后", "今后", "每次", "一律", "全部", "只")  # fmt: skip


def is_not_imperative_position(clause: str, marker_start: int, marker_end: int) -> bool:
    """``I use vim`` / ``we keep getting timeouts`` / ``用户说``: a verb that is no order.

    A standing verb (use, keep, avoid, prefer, stick to, ...) or a clause-opening ``no``
    makes an instruction only in the imperative: first in the clause, after discourse
    words (please, also, no, ok) or after ``you``. Chinese 用 / 使用 likewise only at the
    head of a clause or after 请 / 就 / 统一 / 先 ..., and 用 only as a verb (not 用户 "user",
    用于 "used for").
    """
    marker = clause[marker_start:marker_end]
    if marker in _ZH_IMPERATIVE_ONLY:
        if marker == "用" and clause.startswith(_ZH_YONG_WORDS, marker_end):
            return True  # 用户 (user), 用于 (used for), 用法 (usage)
        head = clause[:marker_start].rstrip()
        return bool(head) and not head.endswith(_ZH_VERB_LEAD)
    first = marker.lower().split()[0] if marker.strip() else ""
    if first not in IMPERATIVE_ONLY:
        return False
    before = _words(clause[:marker_start])
    return not all(w in _DISCOURSE or w == "you" for w in before)


# Actions that are done once: a request to do one is no standing instruction.
PROCESS_VERBS = words_of(
    "commit push merge stash rebase pull fetch checkout deploy release publish tag run rerun "
    "retry try test check verify confirm look investigate explore inspect explain describe "
    "show tell print list open create continue proceed go start finish wait do fix debug "
    "implement review summarize summarise compare read find search grep install build compile "
    "revert undo clean draft file ask answer help reply send upload download generate render "
    "draw plan think ultrathink figure analyze analyse diagnose reproduce get see give squash "
    "amend restart rebuild redo understand know learn"
)
_ZH_ONCE = ("一下", "看看", "试试", "一次")
_PERSISTENT = re.compile(
    r"\b(?:always|never|every\s+time|each\s+time|whenever|from\s+now\s+on|going\s+forward"
    r"|in\s+(?:the\s+)?future|for\s+now|by\s+default|at\s+all\s+times|any\s*more|ever|until"
    r"|before\s+(?:you|committing|pushing|merging|reporting|saying|telling|each|every|any)"
    r"|after\s+(?:each|every|any))\b|以后|今后|每次|始终|一律|从现在|默认|暂时|先不",
    re.IGNORECASE,
)
_SUGGESTIONS = ("let's", "lets", "let us", "just", "should", "we should", "you should", "i want",
                "we want", "i want you to", "i'd like", "i would like", "keep", "用", "请用",
                "使用", "就用")  # fmt: skip
# After a suggestion, these words come before its verb: "I'd like you to ...".
_BEFORE_VERB = words_of("to you me us it")
# "keep going", "keep trying": continue, now.
_ONGOING = words_of("going trying working digging looking at")


def is_one_shot_request(clause: str, marker_start: int, marker_end: int) -> bool:
    """``let's stash and get the latest updates`` / ``just push it`` / ``请用 make 编译一下``.

    A suggestion or ``just`` before an action done once (commit, push, run, check,
    explain, ...; in Chinese, a verb with 一下 / 看看 / 试试) asks for that action now;
    it stands for the session only with a word of persistence (always, every time, for
    now, before you ..., 以后, 每次).
    """
    marker = " ".join(clause[marker_start:marker_end].lower().replace("’", "'").split())
    if marker not in _SUGGESTIONS:
        return False
    if _PERSISTENT.search(clause) is not None or _conditional_rule(_words(clause[:marker_start])):
        return False  # "if the cache is cold we just fetch from the origin": a rule
    if has_cjk(marker):
        # "请用 make 重新编译一下": 一下 / 看看 / 试试 ask for it once
        return any(cue in clause for cue in _ZH_ONCE)
    after = _words(clause[marker_end : marker_end + 60])
    if marker == "keep":
        return bool(after) and after[0] in _ONGOING
    while after and after[0] in _BEFORE_VERB:
        after = after[1:]
    if not after:
        return False
    if after[0] == "go" and len(after) > 1 and after[1] == "with":
        return False  # "let's go with option 1": a choice
    return after[0] in PROCESS_VERBS


_REMOVAL = re.compile(
    r"\b(?:remove|delete|drop|revert|undo|take\s+(?:it|this|that)?\s*out|put\s+(?:it|this|that)?"
    r"\s*back|get\s+rid)\b|去掉|删掉|删除|改回|还原|撤销|移除",
    re.IGNORECASE,
)


_NO_STATEMENT_VERBS = words_of(
    "is are was were be been has have had made done found left seen given taken needed "
    "required changed happened exists exist occurred touched involved added removed"
)


def is_no_statement(clause: str, marker_start: int, marker_end: int) -> bool:
    """``human talks to claude, no file changes made``: "no" + a noun that a verb follows.

    "no pandas", "no match statements" forbid; "no file changes made", "no tests were
    run" report (a real user listed a scenario this way). The verb within four words
    after "no" tells.
    """
    if clause[marker_start:marker_end].lower() != "no":
        return False
    after = clause[marker_end : marker_end + 60].split()[:5]
    return any(w.lower().strip(",.;:!?") in _NO_STATEMENT_VERBS for w in after[1:])


def is_repeat_request(clause: str, marker_start: int, marker_end: int) -> bool:
    """``run the tests again``: "again" repeats an action; only ``remove this again`` corrects.

    "again" makes a correction when the clause undoes something (remove, delete, drop,
    revert, put back, 去掉, 改回); elsewhere it asks for a one-shot action once more.
    """
    marker = clause[marker_start:marker_end].lower()
    if marker not in ("again", "又", "再次"):
        return False
    return _REMOVAL.search(clause) is None


_ELLIPSIS = re.compile(
    r"(?:never|not|no|only|just|always|except|but\s+not)\s+(?:a|an|the|any|per|on|in|for|with"
    r"|at|from|to|\d)\b",
    re.IGNORECASE,
)


def is_fragment(clause: str) -> bool:
    """``never float`` / ``always`` / ``never a parameter`` after a comma: a tail, not a clause.

    From examples/openai: "Amounts must stay Decimal end to end, never float, and the
    CSV must show them exactly" listed "never float" as a constraint of its own; the
    tinyparse example listed "always" (from "Only tests/a.py and tests/b.py, always").
    Fewer than three words (a Chinese character counts as half a word) is a fragment, and
    so is a short elliptical tail of at most four words ("never a parameter", "just the *
    in front", "not per session"): it belongs to the clause before it.
    """
    words = len(re.findall(r"[A-Za-z0-9_]+", clause))
    cjk = sum(1 for c in clause if "\u4e00" <= c <= "\u9fff")
    if words + cjk / 2 < 3:
        return True
    return words <= 4 and cjk == 0 and _ELLIPSIS.match(clause) is not None


def is_quoted_output_line(line: str) -> bool:
    """``   > │     - 5952698 fixed a bug …``: output the user pasted, quoted with ``>``.

    A real session pasted ``entire list`` output this way into the question that asked
    about it; its words are the program's, not an instruction.
    """
    return line.lstrip().startswith(">")


_MACHINE_LINE = re.compile(
    r"\s*(?:[{\[]\s*\"|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|at\s+\S+\s+\(\S+:\d+|goroutine\s+\d+\s+\["
    r"|File\s+\"[^\"]+\",\s+line\s+\d+|\|\s|Traceback\b|[\w.]+(?:Error|Exception):\s)"
)


def is_machine_line(line: str) -> bool:
    """``{"time":"2026-02-15T20:46:19","level":"DEBUG","msg":"hook invoked",...}``.

    A real user pasted a debug log of JSON records into a message (``"msg":"make me a md
    file about the colour red in docs/, then commit it"`` inside one is no instruction);
    the same for timestamped log lines, stack frames (``at f (a.js:1:2)``, ``File "x",
    line 3``, ``goroutine 7 [``), error lines and git-log graph lines (``| Author: …``).
    """
    return _MACHINE_LINE.match(line) is not None


_PLAN_HANDOFF = re.compile(
    r"\s*(?:Implement the following plan|Execute the following plan)\b", re.I
)


def is_agent_plan(text: str) -> bool:
    """``Implement the following plan: # Fix Gemini Transcript Parsing …``: the agent's plan.

    Claude Code hands an approved plan back as a user message; its steps ("Add a custom
    UnmarshalJSON", "use directly") are the agent's own imperatives, written by the model
    before the user approved them. In such text only explicit markers (never, must, do
    not, only) count, not casual imperatives or suggestions.
    """
    return _PLAN_HANDOFF.match(text) is not None


_OMISSION = re.compile(
    r"\s*(?:(?:please\s+)?(?:drop|omit|skip|leave\s+out|exclude|ignore|forget|remove|cut|trim)\b"
    r"|no\s+need\s+(?:for|to)\b|(?:don['’]?t|do\s+not|never)\s+(?:include|mention|keep|bother)\b"
    r"|不要(?:包含|提|保留|写)|省略|去掉|忽略|不用|删掉)",
    re.IGNORECASE,
)


def is_omission_request(text: str) -> bool:
    """``drop the precedence debugging details`` in ``/compact`` instructions.

    From the tinyparse example: ``/compact keep the exact test commands …; drop the
    precedence debugging details``. An instruction to leave something out of the summary
    is followed by leaving it out: its absence is no loss.
    """
    return _OMISSION.match(text) is not None


CONSTRAINT_FILTERS: tuple[ConstraintFilter, ...] = (
    is_question,
    is_epistemic_must,
    is_epistemic_should,
    is_quantity_only,
    is_not_only_but_also,
    is_phatic_idiom,
    is_bie_inside_word,
    is_unrestrictive_zhi,
    is_bude_idiom,
    is_subordinate_clause,
    is_narrative_statement,
    is_not_imperative_position,
    is_one_shot_request,
    is_repeat_request,
    is_no_statement,
)
"""Filters of one marker in its clause, in the order they run."""

TEXT_FILTERS: tuple[Callable[[str], bool], ...] = (
    is_fragment,
    is_quoted_output_line,
    is_machine_line,
    is_agent_plan,
    is_omission_request,
)
"""Filters of a whole text or line: a fragment clause joins its neighbour, pasted lines
and plans are not read for casual instructions, omission requests in ``/compact``
instructions are not judged."""
