"""The audit as tools for agents, over the Model Context Protocol (``ctxkeep mcp``).

:mod:`ctxkeep.mcp.server` needs the ``mcp`` extra (``pip install 'ctxkeep[mcp]'``); this
package's other modules do not import the SDK, so the CLI can say what is missing.
"""
