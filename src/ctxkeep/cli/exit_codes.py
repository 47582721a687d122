"""Exit codes: the one place they are decided."""

from __future__ import annotations

OK = 0
"""Nothing at or above the ``--fail-on`` threshold."""
FINDINGS = 1
"""Findings at or above the threshold."""
USAGE = 2
"""A usage error, or nothing at all could be read."""
BUDGET = 3
"""``compact --hard-budget``: the system messages and the last user message alone exceed it."""
