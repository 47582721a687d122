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


def test_event_holds_only_scalars_and_is_left_out_of_the_cyclic_collector() -> None:
    # gc=False is safe only while no field can hold a container (a cycle through an
    # event would then never be collected): a new field of another type fails here.
    import gc
    import typing

    scalars = {int, str, bool, type(None), EventKind}
    for name, annotation in typing.get_type_hints(Event).items():
        assert set(typing.get_args(annotation) or (annotation,)) <= scalars, name
    assert not gc.is_tracked(Event(1, EventKind.MESSAGE, role="user", text="hi"))
