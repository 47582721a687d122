"""Identifiers: what must be found, what must not (and which filter drops it), source lookup."""

from __future__ import annotations

import pytest

from ctxkeep.extract import SourceIndex, extract_identifiers, identifier_candidates
from ctxkeep.extract import filters as f

# (text, identifier as it stands, kind)
MUST_FIND = [
    ("edit src/ctxkeep/extract/filters.py now", "src/ctxkeep/extract/filters.py", "path"),
    ("see /usr/local/bin/ctxkeep.", "/usr/local/bin/ctxkeep", "path"),
    ("config in ~/.config/ctxkeep/config.toml", "~/.config/ctxkeep/config.toml", "path"),
    ("run ./scripts/run.sh first", "./scripts/run.sh", "path"),
    ("the error is at parser.py:123:4", "parser.py:123:4", "path"),
    ("open README.md, then", "README.md", "path"),
    ("written to C:\\Users\\me\\out.txt", "C:\\Users\\me\\out.txt", "path"),
    ("修改src/ctxkeep/a.py文件", "src/ctxkeep/a.py", "path"),
    ("见 /home/用户/笔记.txt", "/home/用户/笔记.txt", "path"),
    ("the tests/ folder", "tests/", "path"),
    ("upgrade to v1.2.3", "v1.2.3", "version"),
    ("needs torch==2.13.0 exactly", "2.13.0", "version"),
    ("on Python 3.11 only", "3.11", "version"),
    ("release 0.42.1-rc1 is out", "0.42.1-rc1", "version"),
    ("serve on localhost:8080", "localhost:8080", "port"),
    ("bind 127.0.0.1:5432", "127.0.0.1:5432", "port"),
    ("start it with --port 9000", "--port 9000", "port"),
    ("the server listens on port 3000", "port 3000", "port"),
    ("export CTXKEEP_HOME=/tmp/x", "CTXKEEP_HOME", "env"),
    ("reads $HOME and more", "$HOME", "env"),
    ("reads ${XDG_DATA_HOME} first", "${XDG_DATA_HOME}", "env"),
    ("on Windows %APPDATA% holds it", "%APPDATA%", "env"),
    ("docs at https://example.com/docs/a?b=1.", "https://example.com/docs/a?b=1", "url"),
    ("(see https://example.org/x)", "https://example.org/x", "url"),
    ("commit 3f1c9a0e5b7d fixed it", "3f1c9a0e5b7d", "hash"),
    ("id 550e8400-e29b-41d4-a716-446655440000", "550e8400-e29b-41d4-a716-446655440000", "hash"),
    ("fixed in #123.", "#123", "issue"),
    ("merged PR 45 today", "PR 45", "issue"),
    ("see issue #7", "issue #7", "issue"),
    ("call extract_constraints() here", "extract_constraints()", "symbol"),
    ("uses Session.events", "Session.events", "symbol"),
    ("via os.path.join", "os.path.join", "symbol"),
    ("raise MAX_CONTEXT_TOKENS", "MAX_CONTEXT_TOKENS", "symbol"),
    ("the helper read_whole is pure", "read_whole", "symbol"),
    ("call run() once", "run()", "symbol"),
    ("the class `SourceIndex` is built once", "SourceIndex", "symbol"),
    ("getValue(x) returns", "getValue(", "symbol"),
    ("the crash is in `parse_header/2`", "parse_header/2", "symbol"),
    ("uses Map.fetch/2 now", "Map.fetch/2", "symbol"),
    ("calls lists:map/2", "lists:map/2", "symbol"),
    ("the valid?/1 guard", "valid?/1", "symbol"),
    ("see Parser::parse here", "Parser::parse", "symbol"),
    ("the prompt at rewind.go:952-963 uses", "rewind.go:952-963", "path"),
]


@pytest.mark.parametrize(("text", "expected", "kind"), MUST_FIND)
def test_must_find(text: str, expected: str, kind: str) -> None:
    found = extract_identifiers(text)
    assert (expected, kind) in [(i.text, i.kind) for i in found], found


# (text, candidate as matched, the filter that must drop it): each filter's real cases
MUST_DROP = [
    ("比较 方案/数据/渠道 的差异", "方案/数据/渠道", "is_cjk_words_joined_by_slashes"),
    ("方案/数据/渠道都要对比", "方案/数据/渠道都要对比", "is_cjk_words_joined_by_slashes"),
    ("in C, /break/continue jump", "/break/continue", "is_c_keyword_chain"),
    ("items /04/12/15 were done", "/04/12/15", "is_numbered_list"),
    ("literal suffixes /U/UL/F differ", "/U/UL/F", "is_register_or_suffix_list"),
    ("registers eax/ebx/ecx hold it", "eax/ebx/ecx", "is_words_joined_by_slashes"),
    ("x86 /rax/rbx are saved", "/rax/rbx", "is_register_or_suffix_list"),
    ("the loop uses /addss/subss", "/addss/subss", "is_assembly_mnemonic_list"),
    ("the prefix 127.0.0 is local", "127.0.0", "is_ip_address_or_prefix"),
    ("host 192.168.1.20 answers", "192.168.1.20", "is_ip_address_or_prefix"),
    ("on 2026/11/29 we shipped", "2026/11/29", "is_date"),
    ("due 11/29 at noon", "11/29", "is_date"),
    ("tagged 2026.11.29 in CalVer", "2026.11.29", "is_date"),
    ("use and/or here", "and/or", "is_words_joined_by_slashes"),
    ("an A/B test", "A/B", "is_words_joined_by_slashes"),
    ("at 120 MB/s", "MB/s", "is_words_joined_by_slashes"),
    ("bind to localhost:99999", "localhost:99999", "is_out_of_port_range"),
    ("counted 1234567 rows", "1234567", "is_not_hex_digest"),
    ("build 20261129 passed", "20261129", "is_not_hex_digest"),
    ("e.g. this one", "e.g", "is_latin_abbreviation"),
    ("hosted on example.com today", "example.com", "is_plain_dotted_words"),
    ("one or more item(s) left", "item(", "is_prose_parenthesis"),
    ("Step #3 of the plan failed", "#3", "is_bare_number_sign"),
    ("ok cmd/app/integration_tes… 67s", "cmd/app/integration_tes", "is_path_cut_mid_segment"),
    (
        "User first requested to fix failing tests/build",
        "tests/build",
        "is_slash_alternatives_in_prose",
    ),
]


@pytest.mark.parametrize(("text", "candidate", "filter_name"), MUST_DROP)
def test_must_drop_with_named_filter(text: str, candidate: str, filter_name: str) -> None:
    dropped = {c.identifier.text: c.dropped_by for c in identifier_candidates(text)}
    assert dropped.get(candidate) == filter_name, dropped
    assert candidate not in [i.text for i in extract_identifiers(text)]


# text in which no identifier at all may be found
NOTHING_IN = [
    "took 3.5 seconds and 2.0 GB",
    "I think so. Then we ran it again.",
    "the wall was defaced, 1234567 times",
    "我们讨论了方案/数据/渠道的问题",
    "TCP/IP and I/O and read/write and client/server",
    "at 10:30 we met",
    "ranked in the top 5",
]


@pytest.mark.parametrize("text", NOTHING_IN)
def test_nothing_found(text: str) -> None:
    assert extract_identifiers(text) == []


def test_offsets_slice_back() -> None:
    text = "see src/a.py, v1.2.3 and $HOME at localhost:8080 (#12)."
    for identifier in extract_identifiers(text):
        assert text[identifier.start : identifier.end] == identifier.text


# identifier predicates with the case each one exists for, and a neighbour it must keep
FILTER_CASES: list[tuple[f.IdentifierFilter, str, bool]] = [
    (f.is_cjk_words_joined_by_slashes, "方案/数据/渠道", True),
    (f.is_cjk_words_joined_by_slashes, "/home/用户/笔记.txt", False),
    (f.is_c_keyword_chain, "/break/continue", True),
    (f.is_c_keyword_chain, "/usr/bin", False),
    (f.is_numbered_list, "/04/12/15", True),
    (f.is_numbered_list, "/v1/12", False),
    (f.is_register_or_suffix_list, "/U/UL/F", True),
    (f.is_register_or_suffix_list, "/usr/lib", False),
    (f.is_assembly_mnemonic_list, "/addss/subss", True),
    (f.is_assembly_mnemonic_list, "/add/src", False),
    (f.is_ip_address_or_prefix, "127.0.0", True),
    (f.is_ip_address_or_prefix, "1.2.3", False),
    (f.is_ip_address_or_prefix, "0.42.1", False),
    (f.is_date, "2026/11/29", True),
    (f.is_date, "11/29", True),
    (f.is_date, "/04/12/15", False),
    (f.is_date, "3.11", False),
    (f.is_date, "1.2.3", False),
    (f.is_words_joined_by_slashes, "and/or", True),
    (f.is_words_joined_by_slashes, "src/ctxkeep", False),
    (f.is_words_joined_by_slashes, "docs/rules.md", False),
    (f.is_words_joined_by_slashes, "my-app/lib", False),
    (f.is_out_of_port_range, "port 70000", True),
    (f.is_out_of_port_range, "port 443", False),
    (f.is_not_hex_digest, "1234567", True),
    (f.is_not_hex_digest, "3f1c9a0", False),
    (f.is_latin_abbreviation, "i.e", True),
    (f.is_latin_abbreviation, "os.path", False),
    (f.is_plain_dotted_words, "example.com", True),
    (f.is_plain_dotted_words, "Session.events", False),
    (f.is_plain_dotted_words, "self._cache", False),
    (f.is_prose_parenthesis, "item(", True),
    (f.is_prose_parenthesis, "snake_case(", False),
    (f.is_prose_parenthesis, "f()", False),
]


@pytest.mark.parametrize(("predicate", "case", "expected"), FILTER_CASES)
def test_identifier_filter_case(predicate: f.IdentifierFilter, case: str, expected: bool) -> None:
    assert predicate(case) is expected


# context filters: (text, candidate, dropped?) with the real case each one exists for
CONTEXT_FILTER_CASES: list[tuple[f.IdentifierContextFilter, str, str, bool]] = [
    (f.is_bare_number_sign, "Step #3 of the plan failed; PR #45 tracks it.", "#3", True),
    (f.is_bare_number_sign, "the #1 cause is the cache", "#1", True),
    (f.is_bare_number_sign, "fixed in #123 yesterday", "#123", False),
    (f.is_bare_number_sign, "see issue #7 first", "#7", False),
    (f.is_bare_number_sign, "合并请求 #12 已关闭", "#12", False),
    (
        f.is_slash_alternatives_in_prose,
        "User first requested to fix failing tests/build",
        "tests/build",
        True,
    ),
    (f.is_slash_alternatives_in_prose, "run the lint/test step", "lint/test", True),
    (f.is_slash_alternatives_in_prose, "the code is in src/cli now", "src/cli", False),
    (f.is_slash_alternatives_in_prose, "look at `tests/build` first", "tests/build", False),
    (f.is_slash_alternatives_in_prose, "edit tests/test_a.py", "tests/test_a.py", False),
    (
        f.is_path_cut_mid_segment,
        "ok cmd/entire/cli/integration_tes… 67s",
        "cmd/entire/cli/integration_tes",
        True,
    ),
    (
        f.is_path_cut_mid_segment,
        "see …ntegration_test/resume.go",
        "ntegration_test/resume.go",
        True,
    ),
    (f.is_path_cut_mid_segment, "in /var/folders/wl/.../T/x now", "/var/folders/wl/.../T/x", False),
    (f.is_path_cut_mid_segment, "open .../refs/heads/entire: is", ".../refs/heads/entire", False),
]


@pytest.mark.parametrize(("predicate", "text", "candidate", "dropped"), CONTEXT_FILTER_CASES)
def test_identifier_context_filter_case(
    predicate: f.IdentifierContextFilter, text: str, candidate: str, dropped: bool
) -> None:
    assert predicate(candidate, text, text.index(candidate)) is dropped


def test_every_context_filter_has_a_case_and_a_docstring() -> None:
    registered = {p for group in f.IDENTIFIER_CONTEXT_FILTERS.values() for p in group}
    assert registered == {p for p, _, _, dropped in CONTEXT_FILTER_CASES if dropped}
    assert all(p.__doc__ for p in registered)


def test_every_identifier_filter_has_a_case_and_a_docstring() -> None:
    registered = {p for group in f.IDENTIFIER_FILTERS.values() for p in group}
    tested = {p for p, _, expected in FILTER_CASES if expected}
    assert registered == tested
    assert all(p.__doc__ for p in registered)


# ----------------------------------------------------------------------------- SourceIndex


# (identifier text in the summary, its kind, the sources, found?)
LOOKUPS = [
    ("src/ctxkeep/a.py", "path", ["ok /work/main/src/ctxkeep/a.py:12 changed"], True),
    ("/work/main/src/ctxkeep/a.py", "path", ["M  src/ctxkeep/a.py"], True),
    ("./run.sh", "path", ["run.sh is executable"], True),
    ("parser.py:123", "path", ['File "parser.py", line 123'], True),
    ("src/ctxkeep/a.py", "path", ["src/ctxkeep/a.pyc"], False),
    ("src/ctxkeep/b.py", "path", ["src/ctxkeep/a.py"], False),
    ("https://Example.com/Docs/", "url", ["see https://example.com/docs"], True),
    ("https://example.com/docs", "url", ["see example.com/docs"], True),
    ("v1.2.3", "version", ["version 1.2.3 released"], True),
    ("1.2.3", "version", ["version 11.2.3 released"], False),
    ("localhost:8080", "port", ["listening on 0.0.0.0:8080"], True),
    ("port 5432", "port", ["PORT=5432"], True),
    ("$CTXKEEP_HOME", "env", ["CTXKEEP_HOME=/tmp/h"], True),
    ("${CTXKEEP_HOME}", "env", ["ctxkeep_home"], False),
    ("3f1c9a0", "hash", ["commit 3f1c9a0e5b7d2c44aa"], True),
    ("3f1c9a0e5b7d2c44aa", "hash", ["commit 3f1c9a0"], False),
    ("#45", "issue", ["https://github.com/o/r/pull/45"], True),
    ("PR 45", "issue", ["merged #45"], True),
    ("#45", "issue", ["#456 is open"], False),
    ("Parser.parse()", "symbol", ["class Parser:\n    def parse(self):"], True),
    ("Parser.parse()", "symbol", ["class Parser:", "    def parse(self):"], False),
    ("extract_constraints()", "symbol", ["def extract_constraints(text):"], True),
    ("extract_constraint()", "symbol", ["def extract_constraints(text):"], False),
    # issue 11: one identity for an item
    ("parse_header/2", "symbol", ["  defp parse_header(<<len::16, rest::binary>>) do"], True),
    ("Map.fetch/2", "symbol", ["fetch(config, :key)", "the Map module"], False),
    ("Map.fetch/2", "symbol", ["case Map.fetch(opts, :port) do"], True),
    ("Baz.fun/1", "symbol", ["defmodule Foo.Bar.Baz do\n  def fun(x), do: x\nend"], True),
    ("Foo.Bar.Baz.fun", "symbol", ["alias Foo.Bar.Baz", "Baz.fun(1)"], True),
    ("lists:map/2", "symbol", ["lists:map(fun(X) -> X end, L)"], True),
    ("1.21.3", "version", ["go version go1.21.3 darwin/arm64"], True),
    ("go1.21.3", "version", ["toolchain 1.21.3"], True),
    ("total_added_lines", "symbol", ['TotalAddedLines int `json:"total"`'], True),
    ("TotalAddedLines", "symbol", ["the total added lines of the diff"], True),
    ("total_added_lines", "symbol", ["TotalAddedLinesCount int"], False),
    ("Parser#parse", "symbol", ["Parser.parse(text)"], True),
    ("Parser::parse", "symbol", ["class Parser\n  def parse(text)\n  end\nend"], True),
    ("self.parse", "symbol", ["def parse(self):"], True),
    ("Strategy.initialize", "symbol", ["func (s *Strategy) initialize(repo string) {"], True),
    ("Strategy.initialize", "symbol", ["type Strategy struct{}", "func initialize() {}"], False),
    ("/var/folders/wl/.../T/e2e-1", "path", ["cd /var/folders/wl/x1y2/T/e2e-1 && ls"], True),
    ("/var/folders/wl/.../T/e2e-2", "path", ["cd /var/folders/wl/x1y2/T/e2e-1 && ls"], False),
    (".../refs/heads/entire", "path", ["open .git/refs/heads/entire: is a directory"], True),
    (".../refs/heads/main", "path", ["open .git/refs/heads/entire: is a directory"], False),
    ("/Users/alex/.claude/x.json", "path", ["wrote REDACTED.claude/x.json"], True),
    ("C:\\Users\\me\\out.txt", "path", ["c:/users/me/out.txt"], True),
    ("~/.config/app.toml", "path", ["/home/me/.config/app.toml"], True),
]


@pytest.mark.parametrize(("summary_item", "kind", "sources", "found"), LOOKUPS)
def test_source_index_contains(
    summary_item: str, kind: str, sources: list[str], found: bool
) -> None:
    assert SourceIndex(sources).contains(summary_item, kind) is found


def test_source_index_does_not_join_across_sources() -> None:
    index = SourceIndex(["the file src/ctx", "keep/a.py"])
    assert not index.contains("src/ctxkeep/a.py", "path")


def test_empty_sources_contain_nothing() -> None:
    assert not SourceIndex([]).contains("v1.2.3", "version")


def test_cjk_char_ranges_match_the_cjk_class() -> None:
    import re

    from ctxkeep.extract._text import CJK_CLASS, is_cjk_char

    cjk = re.compile(f"[{CJK_CLASS}]")
    for code in range(0x3000, 0xFB00):
        char = chr(code)
        assert is_cjk_char(char) is (cjk.fullmatch(char) is not None), hex(code)
