"""Claims of a summary (counts, lines, comparisons, percentages, durations, quotes, tools)
and their grounding in the sources."""

from __future__ import annotations

import pytest

from ctxkeep.extract import SourceIndex, Support, extract_claims, ground_claim

# (summary text, claim as it stands, kind)
MUST_FIND = [
    ("there are 12 existing tests", "12 existing tests", "count"),
    ("resolve the remaining 5 merge conflicts in it", "5 merge conflicts", "count"),
    ("Five more conflicts remain", "Five more conflicts", "count"),
    ("the prompt appears at line 913", "line 913", "line"),
    ("see lines 40-55 of it", "lines 40-55", "line"),
    ("the prompt at rewind.go:952-963 uses huh", "rewind.go:952-963", "line"),
    ("gocyclo says complexity 8 > max 6", "complexity 8 > max 6", "comparison"),
    ("coverage is 85% now", "85%", "percent"),
    ("tests took 67.714s", "67.714s", "duration"),
    ("a 5-second timeout", "5-second", "duration"),
    ('it failed with "failed to update branch reference: is a directory"',
     "failed to update branch reference: is a directory", "quote"),
    ("fetched with the `FetchDocs` tool", "FetchDocs", "tool"),
    ("用了 mcp__linear__get_issue 查看", "mcp__linear__get_issue", "tool"),
    ("共修改了 3 个文件", "3 个文件", "count"),
    ("错误在第 95 行", "第 95 行", "line"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "claim", "kind"), MUST_FIND)
def test_must_find(text: str, claim: str, kind: str) -> None:
    found = [(c.text, c.kind) for c in extract_claims(text)]
    assert (claim, kind) in found
    for c in extract_claims(text):
        assert text[c.start : c.end] == c.text


# text in which no claim may be found: precision first
NOTHING_IN = [
    "port 9443 with requests==2.31.0",
    "1 fix was needed",
    "nested 2 deep in the tree",
    "6 conflicted the merge",
    "`entire/<commit-hash>-<worktreeHash>`",
    "`go test -v ./...`",
    "`mise run fmt && mise run lint && mise run test:ci`",
    "`go test -run TestQuotesUnderLoad ./integration/...`",
    "Rich tool call structures with results",
    'the part before the "-" for all lines',
]


@pytest.mark.parametrize("text", NOTHING_IN)
def test_nothing_found(text: str) -> None:
    assert [(c.text, c.kind) for c in extract_claims(text) if c.kind != "line"] == []


def _support(summary: str, claim: str, sources: list[str]) -> Support:
    (found,) = [c for c in extract_claims(summary) if c.text == claim]
    return ground_claim(found, SourceIndex(sources), summary).support


# (summary, claim, sources, verdict)
GROUNDING = [
    ("read in 3 files", "3 files", ["Found 3 files\na.py\nb.py\nc.py"], Support.SUPPORTED),
    ("12 existing tests", "12 existing tests", ["tests: 12"], Support.SUPPORTED),
    ("12 existing tests", "12 existing tests", ["ran 10 tests"], Support.NEAR),
    ("12 existing tests", "12 existing tests", ["ran 4 tests"], Support.UNCOUNTED),
    ("It is logged in 7 locations:\n- a\n- b\n- c\n- d\n- e\n- f", "7 locations", [],
     Support.CONTRADICTED),
    ("It is logged in 3 locations:\n- a\n- b\n- c", "3 locations", [], Support.SUPPORTED),
    ("in 2 places: a.py and b.py", "2 places", [], Support.SUPPORTED),
    ("found 10 threads", "10 threads",
     ["[\n" + "".join(f'  {{"thread_id": {i}}},\n' for i in range(10)) + "]"],
     Support.SUPPORTED),
    ("found 7 files", "7 files", ['     7→\t"os"\n     8→\t"path/filepath"'], Support.UNCOUNTED),
    ("at line 913", "line 913", ["   913→\treturn ask()"], Support.SUPPORTED),
    ("at line 913", "line 913", ["rewind.go:913:2: unused"], Support.SUPPORTED),
    ("at line 915", "line 915", ["   913→\treturn ask()"], Support.NEAR),
    ("at line 952", "line 952", ["   913→\treturn ask()"], Support.UNSUPPORTED),
    ("lines 40-55", "lines 40-55", ["    40→a", "    55→b"], Support.SUPPORTED),
    ("complexity 8 > max 6", "complexity 8 > max 6",
     ["cyclomatic complexity 8 of func `run` is high (> 6)"], Support.SUPPORTED),
    ("complexity 12 > max 10", "complexity 12 > max 10", ["complexity 8 (> 6)"],
     Support.UNSUPPORTED),
    ("coverage 85%", "85%", ["coverage: 85.3% of statements"], Support.SUPPORTED),
    ("coverage 92%", "92%", ["coverage: 85.3% of statements"], Support.UNSUPPORTED),
    ("took 67.714s", "67.714s", ["ok  \tapp\t67.714s"], Support.SUPPORTED),
    ("a 30 seconds timeout", "30 seconds", ["timeout = 30 * time.Second"], Support.SUPPORTED),
    ("waits 2 minutes", "2 minutes", ["sleep(120s)"], Support.SUPPORTED),
    ('flagged "Omitempty has no effect on nested struct fields"',
     "Omitempty has no effect on nested struct fields",
     ["`omitempty` has no effect on nested struct fields"], Support.SUPPORTED),
    ('said "do the split [as planned] first, then commit"',
     "do the split [as planned] first, then commit",
     ["ok, do the split first. then commit"], Support.SUPPORTED),
    ('failed with "undefined: WriteTemporaryTask in hooks"',
     "undefined: WriteTemporaryTask in hooks", ["build ok"], Support.UNSUPPORTED),
    ('ran "mise run fmt && mise run lint && mise run test"',
     "mise run fmt && mise run lint && mise run test",
     ['{"command": "mise run fmt"}', '{"command": "mise run lint"}',
      '{"command": "mise run test"}'], Support.SUPPORTED),
    ("the `FetchDocs` tool", "FetchDocs", ["Grep", "Read"], Support.UNSUPPORTED),
    ("the `Grep` tool", "Grep", ["Grep"], Support.SUPPORTED),
    ("共修改了 3 个文件", "3 个文件", ["改动了 3 个文件"], Support.SUPPORTED),
    # a noun whose plural ends in -ies: found in either number
    ("the cache holds 245 entries", "245 entries", ["the cache holds 245 entries"],
     Support.SUPPORTED),
    ("kept 12 entries", "12 entries", ["entries=12"], Support.SUPPORTED),
    ("3 queries ran", "3 queries", ["queries: 3"], Support.SUPPORTED),
    ("3 queries ran", "3 queries", ["ran 9 queries"], Support.UNCOUNTED),
]  # fmt: skip


@pytest.mark.parametrize(("summary", "claim", "sources", "verdict"), GROUNDING)
def test_grounding(summary: str, claim: str, sources: list[str], verdict: Support) -> None:
    assert _support(summary, claim, sources) is verdict


def test_a_status_code_then_a_verb_is_no_count() -> None:
    # the Codex example: "an httptest server that fails twice with 503 then succeeds"
    assert [c.kind for c in extract_claims("fails twice with 503 then succeeds")] == []


@pytest.mark.parametrize(
    "source",
    ["   913→\treturn", "rewind.go:913:2: unused", "see line 913", "#L913", "913:\tfunc x()",
     "lines 910-913"],
)  # fmt: skip
def test_line_number_shapes(source: str) -> None:
    assert _support("at line 913", "line 913", [source]) is Support.SUPPORTED


@pytest.mark.parametrize("source", ["took 913 ms", "v1.913", "9130→ x", "x913 y"])
def test_a_number_is_no_line_by_itself(source: str) -> None:
    assert _support("at line 913", "line 913", [source]) is not Support.SUPPORTED


def test_a_count_does_not_run_across_lines() -> None:
    # the quality benchmark's test output: "... 48\nFAILED tests/test_x.py"
    assert [c.kind for c in extract_claims("passed 48\nFAILED tests/x.py")] == []


def test_a_duration_as_written_keeps_its_zeros() -> None:
    assert _support("ran in 0.30s", "0.30s", ["1 passed in 0.30s"]) is Support.SUPPORTED
