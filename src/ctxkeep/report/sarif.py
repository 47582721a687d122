"""``--format sarif``: SARIF 2.1.0 (validated against the OASIS schema in the tests)."""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ctxkeep._version import __version__
from ctxkeep.base.findings import FINGERPRINT_SCHEME, Finding, Severity
from ctxkeep.report.data import items_detail

if TYPE_CHECKING:
    from ctxkeep.engine import AuditResult
    from ctxkeep.rules import Rule

__all__ = ["SCHEMA_URI", "render", "sarif_level"]

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)


def sarif_level(level: Severity) -> str:
    """The one mapping of ctxkeep severities to SARIF result levels."""
    return {Severity.ERROR: "error", Severity.WARN: "warning", Severity.INFO: "note"}[level]


def _uri(path: str) -> str:
    return quote(PurePath(path).as_posix(), safe="/:")


def _rule(rule: Rule) -> dict[str, Any]:
    doc = " ".join(rule.documentation().split())
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": doc},
        "defaultConfiguration": {"level": sarif_level(rule.level)},
    }


def _result(finding: Finding, rule_index: dict[str, int]) -> dict[str, Any]:
    location: dict[str, Any] = {"artifactLocation": {"uri": _uri(finding.path)}}
    if finding.lines:
        location["region"] = {"startLine": finding.lines[0]}
    result: dict[str, Any] = {
        "ruleId": finding.rule_id,
        "level": sarif_level(finding.level),
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": location}],
        "partialFingerprints": {f"ctxkeep/v{FINGERPRINT_SCHEME}": finding.fingerprint},
        "properties": {
            "compaction": finding.compaction,
            "confidence": finding.confidence.value,
            "items": list(finding.items),
            "items_detail": items_detail(finding),
            "lines": list(finding.lines),
            "seqs": list(finding.seqs),
        },
    }
    if finding.rule_id in rule_index:
        result["ruleIndex"] = rule_index[finding.rule_id]
    return result


def render(result: AuditResult) -> str:
    rule_index = {rule.id: i for i, rule in enumerate(result.rules)}
    run = {
        "tool": {
            "driver": {
                "name": "ctxkeep",
                "version": __version__,
                "rules": [_rule(r) for r in result.rules],
            }
        },
        "results": [_result(f, rule_index) for f in result.findings],
        "columnKind": "unicodeCodePoints",
    }
    doc = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
