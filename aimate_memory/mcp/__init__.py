"""`aimate mem mcp`: the memory as an MCP server over stdio (tools, and `memory://core`).

This package is `aimate_memory.mcp`; the SDK is the top-level `mcp` package. Modules here import the SDK by
absolute name (`from mcp.server.fastmcp import …`), which never resolves to this package. Nothing is
imported here, so `aimate_memory.mcp.params` stays usable without the SDK."""
