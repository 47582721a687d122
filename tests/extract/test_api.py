"""The public API of ctxkeep.extract: what the rules are written against."""

from __future__ import annotations

from ctxkeep import extract


def test_all_is_sorted_and_complete() -> None:
    assert extract.__all__ == sorted(extract.__all__)
    for name in extract.__all__:
        assert hasattr(extract, name), name


def test_api_names_the_brief_fixes() -> None:
    required = {"Constraint", "Identifier", "Reference", "SourceIndex", "Survival",
                "constraint_survives", "extract_constraints", "extract_identifiers",
                "find_references"}  # fmt: skip
    assert required <= set(extract.__all__)
    assert [s.value for s in extract.Survival] == ["kept", "reworded", "lost"]
