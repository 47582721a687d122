"""Event is a frozen msgspec Struct (for speed): it must still behave as a value."""

from __future__ import annotations

import copy
import pickle

import pytest

from ctxkeep.log.model import Event, EventKind


def test_event_is_an_immutable_hashable_value() -> None:
    event = Event(1, EventKind.MESSAGE, role="user", text="hi", line=3)
    same = Event(seq=1, kind=EventKind.MESSAGE, role="user", text="hi", line=3)
    assert event == same
    assert hash(event) == hash(same)
    assert event != Event(1, EventKind.MESSAGE, role="user", text="hi!", line=3)
    assert {event, same} == {event}
    with pytest.raises(AttributeError):
        event.text = "changed"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(event)) == event
    assert copy.deepcopy(event) == event
    assert repr(event).startswith("Event(seq=1, kind=")
    assert (event.call_id, event.tokens, event.is_error, event.context_window) == (
        None,
        None,
        False,
        None,
    )
