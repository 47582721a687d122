"""The MCP server, started as ``python -m ctxkeep mcp`` and driven by the SDK's real client
over stdio: every tool, its typed schemas, its errors, and that it writes nothing."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

import jsonschema
import pytest

from tests.conftest import EXAMPLES, run_cli

# The SDK brings anyio; without the 'mcp' extra neither is there: skip, not a collection error.
pytest.importorskip("anyio", reason="the 'mcp' extra is not installed (no anyio)")
pytest.importorskip("mcp", reason="the 'mcp' extra is not installed")

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, TextContent, Tool

from ctxkeep.mcp.schema import AuditReport, DiffReport
from ctxkeep.mcp.server import TOOL_NAMES

TINYPARSE = "tinyparse-three-compactions.jsonl"
CLAUDE_ID = "5d0c6f1e-2b7a-4c1d-9e3f-8a6b4c2d1e0f"
CODEX_ID = "019a9c4e-5b21-7d13-9f0e-3c8a1d6b2e47"


@dataclass(frozen=True, slots=True)
class Home:
    """A fake user home holding Claude Code and Codex logs, plus a plain log folder."""

    root: Path
    logs: Path
    claude_log: Path
    codex_log: Path


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    root = tmp_path_factory.mktemp("home")
    logs = tmp_path_factory.mktemp("logs")
    shutil.copytree(EXAMPLES, logs, dirs_exist_ok=True)
    claude = root / ".claude" / "projects" / "-srv-tinyparse" / f"{CLAUDE_ID}.jsonl"
    claude.parent.mkdir(parents=True)
    shutil.copy(EXAMPLES / "claude-code" / TINYPARSE, claude)
    codex_name = f"rollout-2026-11-18T14-02-11-{CODEX_ID}.jsonl"
    codex = root / ".codex" / "sessions" / "2026" / "11" / "18" / codex_name
    codex.parent.mkdir(parents=True)
    shutil.copy(EXAMPLES / "codex" / codex_name, codex)
    return Home(root, logs, claude, codex)


def _tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` with the SHA-256 of its bytes."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _with_server(home: Home, work: Callable[[Client], Awaitable[Any]]) -> Any:
    """Start ``python -m ctxkeep mcp`` with ``home`` as HOME, run ``work`` with a client."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ctxkeep", "mcp"],
        env={"HOME": str(home.root)},
        cwd=str(home.logs),
    )

    async def main() -> Any:
        async with Client(params, read_timeout_seconds=120) as client:
            return await work(client)

    return anyio.run(main)


@dataclass(frozen=True, slots=True)
class Served:
    """What one server session answered, and the trees before and after it."""

    tools: list[Tool]
    results: dict[str, CallToolResult]
    before: dict[str, str]
    after: dict[str, str]


def _calls(home: Home) -> dict[str, tuple[str, dict[str, Any]]]:
    tiny = "claude-code/" + TINYPARSE  # relative to the server's cwd, as a CLI user gives it
    return {
        "audit_path": ("compaction_audit", {"session": tiny}),
        "audit_claude_id": ("compaction_audit", {"session": CLAUDE_ID}),
        "audit_codex_id": ("compaction_audit", {"session": CODEX_ID}),
        "audit_select": ("compaction_audit", {"session": tiny, "select": ["CK003"]}),
        "sweep_given": ("compaction_audit_sweep", {"folders": [str(home.logs)]}),
        "sweep_default": ("compaction_audit_sweep", {}),
        "diff": ("compaction_audit_diff", {"session": tiny, "compaction": 3}),
        "diff_by_id": ("compaction_audit_diff", {"session": CLAUDE_ID, "compaction": 1}),
        "log_check": ("compaction_audit_log_check", {"session": tiny}),
        "err_missing": ("compaction_audit", {"session": str(home.logs / "nope.jsonl")}),
        "err_unknown_id": ("compaction_audit", {"session": "0000aaaa-no-such-session"}),
        "err_diff_index": ("compaction_audit_diff", {"session": tiny, "compaction": 99}),
        "err_diff_zero": ("compaction_audit_diff", {"session": tiny, "compaction": 0}),
        "err_rule": ("compaction_audit", {"session": tiny, "select": ["CK999"]}),
        "err_format": ("compaction_audit", {"session": tiny, "log_format": "word-doc"}),
        "err_sweep_missing": ("compaction_audit_sweep", {"folders": [str(home.logs / "none")]}),
        "err_log_check_missing": ("compaction_audit_log_check", {"session": "/no/such/log"}),
    }


@pytest.fixture(scope="module")
def served(home: Home) -> Served:
    before = {**_tree(home.root), **_tree(home.logs)}

    async def work(client: Client) -> tuple[list[Tool], dict[str, CallToolResult]]:
        tools = (await client.list_tools()).tools
        results = {
            key: await client.call_tool(name, args) for key, (name, args) in _calls(home).items()
        }
        return tools, results

    tools, results = _with_server(home, work)
    after = {**_tree(home.root), **_tree(home.logs)}
    return Served(tools, results, before, after)


def _text(result: CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def _ok(served: Served, key: str) -> CallToolResult:
    result = served.results[key]
    assert not result.is_error, _text(result)
    return result


def _cli_json(*args: str, cwd: Path) -> str:
    out = run_cli(*args, "--format", "json", cwd=cwd)
    assert out.returncode in (0, 1), out.stderr
    return out.stdout


def _tool(served: Served, name: str) -> Tool:
    return next(t for t in served.tools if t.name == name)


def test_lists_the_four_tools_read_only_with_typed_schemas(served: Served) -> None:
    assert sorted(t.name for t in served.tools) == sorted(TOOL_NAMES)
    for tool in served.tools:
        assert tool.description
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is True
        assert tool.output_schema is not None
        assert tool.output_schema["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
    diff_in = _tool(served, "compaction_audit_diff").input_schema
    assert sorted(diff_in["required"]) == ["compaction", "session"]
    assert diff_in["properties"]["compaction"]["type"] == "integer"
    assert diff_in["properties"]["compaction"]["minimum"] == 1
    audit_out = _tool(served, "compaction_audit").output_schema
    assert audit_out is not None
    assert set(audit_out["required"]) == {"tool", "version", "sessions", "problems", "totals"}


@pytest.mark.parametrize(
    ("key", "cli"),
    [
        ("audit_path", ("audit", "claude-code/" + TINYPARSE)),
        ("audit_select", ("audit", "claude-code/" + TINYPARSE, "--select", "CK003")),
        ("log_check", ("log-check", "claude-code/" + TINYPARSE)),
        ("diff", ("diff", "claude-code/" + TINYPARSE, "--compaction", "3")),
    ],
)
def test_results_are_the_cli_json(
    served: Served, home: Home, key: str, cli: tuple[str, ...]
) -> None:
    result = _ok(served, key)
    assert _text(result) == _cli_json(*cli, cwd=home.logs)
    assert result.structured_content == json.loads(_text(result))
    name, _ = _calls(home)[key]
    schema = _tool(served, name).output_schema
    assert schema is not None
    jsonschema.validate(result.structured_content, schema)


def test_text_is_byte_for_byte_the_cli_output(served: Served, home: Home) -> None:
    result = _ok(served, "sweep_given")
    assert _text(result) == _cli_json("sweep", str(home.logs), cwd=home.logs)


def test_sweep_ranks_by_damage_and_finds_the_default_folders(served: Served, home: Home) -> None:
    given = _ok(served, "sweep_given").structured_content
    assert given["totals"]["sessions"] == len(given["sessions"]) >= 6
    errors = [sum(f["level"] == "error" for f in s["findings"]) for s in given["sessions"]]
    assert errors == sorted(errors, reverse=True)
    default = _ok(served, "sweep_default").structured_content
    assert sorted(s["path"] for s in default["sessions"]) == sorted(
        [str(home.claude_log), str(home.codex_log)]
    )


def test_session_ids_are_looked_up_under_the_harness_folders(served: Served, home: Home) -> None:
    by_claude = _ok(served, "audit_claude_id").structured_content
    assert [s["path"] for s in by_claude["sessions"]] == [str(home.claude_log)]
    assert by_claude["sessions"][0]["format"] == "claude-code"
    by_codex = _ok(served, "audit_codex_id").structured_content
    assert [s["path"] for s in by_codex["sessions"]] == [str(home.codex_log)]
    assert by_codex["sessions"][0]["format"] == "codex"
    assert _ok(served, "diff_by_id").structured_content["path"] == str(home.claude_log)


def test_diff_gives_the_lost_constraints_text_to_restore(served: Served, home: Home) -> None:
    report = _ok(served, "diff").structured_content
    lost = [c for c in report["constraints"] if c["survival"] == "lost"]
    assert lost, "compaction 3 of the tinyparse example loses a constraint"
    log_lines = (home.logs / "claude-code" / TINYPARSE).read_text(encoding="utf-8").splitlines()
    for constraint in lost:
        assert constraint["text"] in constraint["source"]
        # The line it points at holds the constraint (JSON-escaped in the log).
        assert json.dumps(constraint["text"])[1:-1] in log_lines[constraint["line"] - 1]


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("err_missing", ["nope.jsonl", "no such file"]),
        ("err_unknown_id", ["0000aaaa-no-such-session", ".claude/projects", ".codex/sessions"]),
        ("err_diff_index", ["no compaction 99", "the log has 3"]),
        ("err_diff_zero", ["compaction", "greater than or equal to 1"]),
        ("err_rule", ["unknown rule 'CK999'"]),
        ("err_format", ["unknown log format 'word-doc'", "claude-code"]),
        ("err_sweep_missing", ["none", "no such file or directory"]),
        ("err_log_check_missing", ["/no/such/log", "no such file"]),
    ],
)
def test_errors_are_tool_errors_that_say_what_is_wrong(
    served: Served, key: str, says: list[str]
) -> None:
    result = served.results[key]
    assert result.is_error
    assert result.structured_content is None
    message = _text(result)
    for part in says:
        assert part in message, message


def test_the_server_writes_nothing(served: Served) -> None:
    assert served.after == served.before
    assert any(name.endswith(TINYPARSE) for name in served.before)


def _keys_of(typed: Any, value: Any, where: str) -> list[str]:
    """Where ``value`` has keys the TypedDict ``typed`` does not describe, or lacks some."""
    origin = get_origin(typed)
    if origin is list:
        (item,) = get_args(typed)
        return [m for i, v in enumerate(value) for m in _keys_of(item, v, f"{where}[{i}]")]
    if origin is dict:
        _, item = get_args(typed)
        return [m for k, v in value.items() for m in _keys_of(item, v, f"{where}.{k}")]
    if isinstance(typed, type) and hasattr(typed, "__required_keys__"):
        hints = get_type_hints(typed)
        missing = [f"{where}: {k} not in {typed.__name__}" for k in value if k not in hints]
        absent = [f"{where}: {k} missing" for k in hints if k not in value]
        nested = [m for k, t in hints.items() if k in value for m in _keys_of(t, value[k], where)]
        return missing + absent + nested
    return []


@pytest.mark.parametrize(
    ("key", "typed"),
    [("sweep_given", AuditReport), ("diff", DiffReport), ("log_check", AuditReport)],
)
def test_the_schema_describes_every_key_the_report_has(
    served: Served, key: str, typed: type[Any]
) -> None:
    assert _keys_of(typed, _ok(served, key).structured_content, "$") == []


SECRET = "sk-proj-Q7vX2mL9pR4tZ8wK3nB6cF1hJ5"


def test_tool_outputs_mask_secrets_as_the_cli_does(tmp_path: Path) -> None:
    """A key the user pasted into an instruction that the summary lost: every tool
    answers with it masked, in the text and in the structured content alike, byte for
    byte the CLI's (masked) JSON."""
    from tests.rules.build import write_claude_code_log

    (tmp_path / "logs").mkdir()
    log = write_claude_code_log(
        tmp_path / "logs" / "keyed.jsonl",
        [
            ["user", f"Always call the pricing API with the key {SECRET} from now on."],
            ["assistant", "Noted."],
            ["compact", {"summary": "The user is working on the pricing client."}],
        ],
    )
    home = Home(tmp_path, tmp_path / "logs", log, log)

    async def work(client: Client) -> dict[str, CallToolResult]:
        return {
            "audit": await client.call_tool("compaction_audit", {"session": str(log)}),
            "diff": await client.call_tool(
                "compaction_audit_diff", {"session": str(log), "compaction": 1}
            ),
            "sweep": await client.call_tool(
                "compaction_audit_sweep", {"folders": [str(tmp_path / "logs")]}
            ),
        }

    results: dict[str, CallToolResult] = _with_server(home, work)
    for key, result in results.items():
        assert not result.is_error, _text(result)
        text = _text(result)
        assert SECRET not in text, key
        assert "REDACTED:openai-api-key" in text, key
        assert result.structured_content == json.loads(text)
    cli = {
        "audit": ("audit", str(log)),
        "diff": ("diff", str(log), "--compaction", "1"),
        "sweep": ("sweep", str(tmp_path / "logs")),
    }
    for key, args in cli.items():
        assert _text(results[key]) == _cli_json(*args, cwd=tmp_path)
    lost = json.loads(_text(results["diff"]))["constraints"]
    assert any("REDACTED:openai-api-key" in c["text"] for c in lost)


def test_tools_read_the_restore_ledger_as_the_cli_does(tmp_path: Path) -> None:
    """ctxkeep's ledger under the user's data folder (no CTXKEEP_HOME: the XDG default)
    is read by the tools, as by the CLI: the restore after compaction 1 is reported."""
    from ctxkeep.log.ledger import LedgerItem, LedgerRecord, append_record
    from tests.rules.build import write_claude_code_log

    (tmp_path / "logs").mkdir()
    log = write_claude_code_log(
        tmp_path / "logs" / "restored.jsonl",
        [
            ["user", "Never edit src/api.py. Fix the parser."],
            ["compact", {"summary": "Fixing the parser."}],
            ["user", "Go on."],
            ["compact", {"summary": "The parser is fixed; never edit src/api.py."}],
        ],
    )
    session = _session_id(log)
    ledger = tmp_path / ".local" / "share" / "ctxkeep" / "restores.jsonl"
    ledger.parent.mkdir(parents=True)
    item = LedgerItem("Never edit src/api.py", "prohibition", 1)
    append_record(LedgerRecord("session-start", session, str(log), 1, "restored", (item,)), ledger)
    home = Home(tmp_path, tmp_path / "logs", log, log)

    async def work(client: Client) -> CallToolResult:
        return await client.call_tool("compaction_audit", {"session": str(log)})

    result: CallToolResult = _with_server(home, work)
    assert not result.is_error, _text(result)
    (audited,) = json.loads(_text(result))["sessions"]
    assert audited["ctxkeep_hooks"][0]["restored"] == ["Never edit src/api.py"]


def _session_id(log: Path) -> str:
    from ctxkeep import read_session

    session_id = read_session(log).session_id
    assert session_id is not None
    return session_id
