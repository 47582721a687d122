"""False-positive filters: one named predicate per case seen on real text.

Each predicate answers "is this candidate a false positive of that kind?" and its docstring
names the case that needed it. Identifier filters take the candidate text; constraint
filters take the clause, and the offsets of the marker word inside it. The extractors run
them in the order of the ``*_FILTERS`` tuples and record which one dropped a candidate
(:func:`ctxkeep.extract.identifier_candidates`), so a wrong drop names its filter.
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
    "REFERENCE_FILTERS",
    "ConstraintFilter",
    "IdentifierContextFilter",
    "IdentifierFilter",
    "ReferenceFilter",
    "is_assembly_mnemonic_list",
    "is_bare_number_sign",
    "is_bie_inside_word",
    "is_bude_idiom",
    "is_c_keyword_chain",
    "is_cjk_words_joined_by_slashes",
    "is_date",
    "is_epistemic_must",
    "is_ip_address_or_prefix",
    "is_latin_abbreviation",
    "is_narrative_statement",
    "is_not_hex_digest",
    "is_not_only_but_also",
    "is_numbered_list",
    "is_out_of_port_range",
    "is_path_cut_mid_segment",
    "is_phatic_idiom",
    "is_plain_dotted_words",
    "is_position_not_reference",
    "is_prose_parenthesis",
    "is_quantity_only",
    "is_question",
    "is_quoted_speech",
    "is_register_or_suffix_list",
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

_ASCII_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?")


def _words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _ASCII_WORD.findall(text)]


def is_question(clause: str, marker_start: int, marker_end: int) -> bool:
    """``Should I only change the tests?`` / ``要不要修改接口？``: a question, not an order."""
    stripped = clause.rstrip()
    if stripped.endswith(("?", "？")) or stripped.endswith(("吗", "呢")):
        return True
    return any(form in clause for form in ("要不要", "是不是", "能不能", "可不可以"))


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
    """``only 3 tests fail`` / ``只有三个测试失败``: "only" before a quantity reports a count."""
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
    r"|I must (?:say|admit|confess)|别(?:担心|客气|着急|急|在意)|不要(?:担心|客气|着急)",
    re.IGNORECASE,
)


def is_phatic_idiom(clause: str, marker_start: int, marker_end: int) -> bool:
    """``don't worry`` / ``never mind`` / ``I must say`` / ``别担心``: politeness, not an order."""
    start = max(0, marker_start - 2)
    return (
        _PHATIC.match(clause, start) is not None or _PHATIC.match(clause, marker_start) is not None
    )


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


def is_subordinate_clause(clause: str, marker_start: int, marker_end: int) -> bool:
    """``if you don't know, ask`` / ``why don't we``: the marker sits in a condition or reason."""
    return any(w in _SUBORDINATORS for w in _words(clause[:marker_start]))


# Words that may precede an order without making it a statement: "Please never ...",
# "Also, always ...", "Important: do not ...".
_DISCOURSE = words_of(
    "please pls kindly and but so also then now ok okay again remember important note rule "
    "constraint reminder warning caution nb hint tip finally first second lastly instead "
    "going forward from here on"
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


def is_narrative_statement(clause: str, marker_start: int, marker_end: int) -> bool:
    """``I just looked`` / ``I don't know`` / ``the build always fails`` / ``测试始终失败``.

    An adverb marker (never, always, only, just, don't) states a fact unless it stands
    where an order stands: first in the clause, after please/also/..., after a modal or
    ``to`` ("you should never", "make sure to always"), after ``you`` (except "just"), or
    directly after the verb ("use only", "edit only"). ``must`` is never narrative here
    (see :func:`is_epistemic_must`). For Chinese only 始终 needs this test: it is far more
    often "has always been" than "always do".
    """
    marker = clause[marker_start:marker_end]
    if marker == "始终":
        head = clause[:marker_start].rstrip()
        return bool(head) and not head.endswith(_ZH_IMPERATIVE_LEAD)
    if has_cjk(marker):
        return False
    lowered = marker.lower()
    if lowered.startswith("must"):
        return False
    before = _words(clause[:marker_start])
    if not before or all(w in _DISCOURSE for w in before):
        return False
    if any(w in _DIRECTIVE for w in before) or before[-1] == "sure":
        return False
    if "you" in before and lowered != "just":
        return not any(w in _SUBJECTS and w != "you" for w in before)
    # "use only the stdlib": the verb, then "only"
    return not (lowered == "only" and len(before) == 1 and before[0] not in _SUBJECTS)


CONSTRAINT_FILTERS: tuple[ConstraintFilter, ...] = (
    is_question,
    is_epistemic_must,
    is_quantity_only,
    is_not_only_but_also,
    is_phatic_idiom,
    is_bie_inside_word,
    is_unrestrictive_zhi,
    is_bude_idiom,
    is_subordinate_clause,
    is_narrative_statement,
)
