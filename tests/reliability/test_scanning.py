"""Issue 14, time: reading a JSON document never scans a string twice."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from ctxkeep.log.adapters import _arrays
from ctxkeep.log.reader import read_session

# {"messages": [{"role": "user",\n "content": "\"\"\"... (unterminated): 64 KB took 2 min
_REPRODUCER = '{"messages": [{"role": "user",\n "content": "' + '\\"' * 32_000


@given(st.text(alphabet='"\\\n{}[],ab', max_size=60))
def test_every_quote_starts_a_token_so_no_string_is_scanned_twice(text: str) -> None:
    # The structure scanner's string token failed on an unterminated string, and the
    # scan started again at every quote inside it: quadratic in the string's length.
    data = text.encode()
    for m in re.finditer(b'"', data):
        assert _arrays._TOKEN.match(data, m.start()) is not None


def test_the_reproducer_reads_to_a_located_problem(tmp_path: Path) -> None:
    from ctxkeep.log.message_list import read_message_list

    path = tmp_path / "q.json"
    path.write_text(_REPRODUCER)
    session = read_session(path)
    assert session.problems
    assert all(p.line in (0, 1, 2) for p in session.problems)
    loaded = read_message_list(str(path))
    assert loaded.messages == []
    assert loaded.error is not None
