"""``--format json``: the contract of docs/design.md ("The JSON report"), keys sorted."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ctxkeep.report.data import result_to_dict

if TYPE_CHECKING:
    from ctxkeep.engine import AuditResult

__all__ = ["render"]


def render(result: AuditResult) -> str:
    return json.dumps(result_to_dict(result), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
