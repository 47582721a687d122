"""The MCP server: four read-only audit tools over stdio (``ctxkeep mcp``).

Each tool returns the JSON the CLI prints with ``--format json`` twice over: as text
(byte for byte the CLI's output, secrets masked as the CLI masks them:
:mod:`ctxkeep.base.secrets`) and as structured content (that same masked JSON) checked against
the typed schema in :mod:`ctxkeep.mcp.schema`. As the CLI does, the tools read ctxkeep's
restore ledger (``CTXKEEP_HOME/restores.jsonl``) when it exists. Anything that stops a
tool (no such session, an unknown rule, a compaction the log does not have) is a tool
error with a message the agent can act on. The server reads logs and never writes to
anything.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from ctxkeep._version import __version__
from ctxkeep.base.secrets import mask_secrets
from ctxkeep.engine import AuditResult, NoSuchCompactionError, audit, diff, sweep
from ctxkeep.log.adapters import ReadOptions, format_names
from ctxkeep.log.ledger import Ledger, ledger_path
from ctxkeep.mcp.locate import SessionNotFoundError, harness_session_folders, locate_session
from ctxkeep.mcp.schema import AuditReport, DiffReport
from ctxkeep.report import render
from ctxkeep.report.diff import render_diff_json
from ctxkeep.rules import UnknownRuleError

__all__ = ["TOOL_NAMES", "build_server", "run_stdio"]

TOOL_NAMES = (
    "compaction_audit",
    "compaction_audit_sweep",
    "compaction_audit_diff",
    "compaction_audit_log_check",
)

_INSTRUCTIONS = (
    "ctxkeep audits the context compactions in agent session logs (Claude Code, Codex, "
    "OpenHands, OpenAI/Anthropic message arrays, ctxkeep event logs). After a compaction, "
    "call compaction_audit on your own session to see which of the user's constraints the "
    "summary lost and what it invented, then compaction_audit_diff to read the lost "
    "constraints' exact text and restore them. Read-only: no log is ever written."
)

_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)

SessionArg = Annotated[
    str,
    Field(
        description="A session log path (file or OpenHands event folder), or a Claude Code "
        "/ Codex session id, looked up under ~/.claude/projects and ~/.codex/sessions."
    ),
]
LogFormatArg = Annotated[
    str | None,
    Field(
        description="Read the log as this format instead of sniffing it: one of "
        + ", ".join(format_names())
    ),
]
SummaryIndexArg = Annotated[
    int | None,
    Field(
        ge=0,
        description="Plain message arrays only: 0-based index of the message that is a "
        "compaction summary, when no known opening line marks it.",
    ),
]
RulesArg = Annotated[
    list[str] | None,
    Field(description="Rule ids, names or id prefixes (e.g. CK003, constraint-lost, CK00)."),
]


def _read_options(log_format: str | None, summary_index: int | None) -> ReadOptions:
    if log_format is not None and log_format not in format_names():
        raise ToolError(f"unknown log format {log_format!r}; known: {', '.join(format_names())}")
    return ReadOptions(summary_index=summary_index)


def _ledger() -> Ledger | None:
    """ctxkeep's restore ledger when it exists and reads (as the CLI's default)."""
    path = ledger_path()
    if not path.is_file():
        return None
    try:
        return Ledger.read(path)
    except (OSError, UnicodeDecodeError):
        return None


def _answer(text: str) -> CallToolResult:
    """A finished JSON report (secrets already masked) as text and structured content."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=json.loads(text)
    )


def _located(session: str) -> str:
    try:
        return locate_session(session)
    except SessionNotFoundError as exc:
        raise ToolError(str(exc)) from None


def _audit_answer(result: AuditResult) -> CallToolResult:
    """The report as the CLI's JSON text and as structured content; an error when not
    one session could be read (the problems say why)."""
    if not result.readable:
        why = "; ".join(
            f"{p.path}" + (f" line {p.line}" if p.line else "") + f": {p.reason}"
            for p in result.problems
        )
        raise ToolError(f"no session could be read: {why or 'nothing found'}")
    return _answer(render("json", result))


def _run_audit(
    paths: Sequence[str],
    select: Sequence[str] | None,
    ignore: Sequence[str] | None,
    log_format: str | None,
    summary_index: int | None,
) -> CallToolResult:
    options = _read_options(log_format, summary_index)
    try:
        result = audit(
            list(paths),
            select=select,
            ignore=ignore,
            log_format=log_format,
            options=options,
            ledger=_ledger(),
        )
    except UnknownRuleError as exc:
        raise ToolError(str(exc)) from None
    return _audit_answer(result)


def compaction_audit(
    session: SessionArg,
    select: RulesArg = None,
    ignore: RulesArg = None,
    log_format: LogFormatArg = None,
    summary_index: SummaryIndexArg = None,
) -> Annotated[CallToolResult, AuditReport]:
    """Audit every compaction in one session log: which of the user's standing
    constraints each summary kept, reworded or lost; what it invented (paths, versions,
    identifiers found in no source); references to context that is gone; whether the
    token accounting adds up; whether the log itself is whole. Same JSON as
    `ctxkeep audit --format json`."""
    return _run_audit([_located(session)], select, ignore, log_format, summary_index)


def compaction_audit_sweep(
    folders: Annotated[
        list[str] | None,
        Field(
            description="Folders (or files) to audit; default: ~/.claude/projects and "
            "~/.codex/sessions, those that exist."
        ),
    ] = None,
    select: RulesArg = None,
    ignore: RulesArg = None,
    log_format: LogFormatArg = None,
) -> Annotated[CallToolResult, AuditReport]:
    """Audit every session log under some folders, ranked by damage (errors first, then
    constraints lost, then warnings). Same JSON as `ctxkeep sweep --format json`."""
    options = _read_options(log_format, None)
    given = list(folders or ())
    if not given:
        given = [str(f.root) for f in harness_session_folders() if f.root.is_dir()]
        if not given:
            where = " or ".join(str(f.root) for f in harness_session_folders())
            raise ToolError(f"no folders given and neither {where} exists")
    try:
        # One process: the server's worker thread does not fork pools of its own.
        result = sweep(
            given,
            select=select,
            ignore=ignore,
            log_format=log_format,
            options=options,
            jobs=1,
            ledger=_ledger(),
        )
    except UnknownRuleError as exc:
        raise ToolError(str(exc)) from None
    return _audit_answer(result)


def compaction_audit_diff(
    session: SessionArg,
    compaction: Annotated[
        int, Field(ge=1, description="Which compaction, 1-based, as compaction_audit numbers them.")
    ],
    log_format: LogFormatArg = None,
    summary_index: SummaryIndexArg = None,
) -> Annotated[CallToolResult, DiffReport]:
    """One compaction in detail: what the summary replaced (events by kind), every
    constraint of the replaced history with its survival (kept / reworded / lost), its
    exact text and the source line it stood on, so a lost one can be restored; every
    invented item; every ghost reference. Same JSON as `ctxkeep diff --format json`."""
    options = _read_options(log_format, summary_index)
    path = _located(session)
    try:
        result = diff(path, compaction, log_format=log_format, options=options, ledger=_ledger())
    except NoSuchCompactionError as exc:
        raise ToolError(str(exc)) from None
    return _answer(mask_secrets(render_diff_json(result))[0])


def compaction_audit_log_check(
    session: SessionArg,
    log_format: LogFormatArg = None,
    summary_index: SummaryIndexArg = None,
) -> Annotated[CallToolResult, AuditReport]:
    """Check that a session log is whole before trusting an audit of it: every tool
    call has its result and every result its call, no seq gap or duplicate, every line
    readable (rule CK001 only). Same JSON as `ctxkeep log-check --format json`."""
    return _run_audit([_located(session)], ["CK001"], None, log_format, summary_index)


def build_server() -> MCPServer:
    """The server with its four tools, not yet running."""
    server: MCPServer = MCPServer(
        "ctxkeep", version=__version__, instructions=_INSTRUCTIONS, log_level="WARNING"
    )
    for tool in (
        compaction_audit,
        compaction_audit_sweep,
        compaction_audit_diff,
        compaction_audit_log_check,
    ):
        server.add_tool(tool, annotations=_READ_ONLY)
    return server


def run_stdio() -> None:
    """Serve the tools on stdin/stdout until the client closes stdin."""
    build_server().run("stdio")
