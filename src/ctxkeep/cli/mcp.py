"""``ctxkeep mcp``: serve the audit tools to an agent over MCP (stdio)."""

from __future__ import annotations

import click

from ctxkeep.cli.audit import usage_error

__all__ = ["mcp_command"]


@click.command("mcp")
def mcp_command() -> None:
    """Serve the audit to an agent as MCP tools on stdin/stdout: compaction_audit,
    compaction_audit_sweep, compaction_audit_diff, compaction_audit_log_check.

    Read-only: it never writes to a session log. Needs the mcp extra
    (pip install 'ctxkeep[mcp]'). Register it with an agent as the command
    `ctxkeep mcp`.
    """
    try:
        from ctxkeep.mcp.server import run_stdio
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] not in {"mcp", "mcp_types", "pydantic"}:
            raise
        usage_error(f"ctxkeep mcp needs the mcp extra: pip install 'ctxkeep[mcp]' ({exc})")
    run_stdio()
