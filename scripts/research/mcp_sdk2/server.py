"""`aimate mem mcp`'s seven tools on mcp 2.x (`MCPServer`, no front): only for the start-up comparison in
compare.py. Run by a scratch venv holding mcp 2.x (`python -m venv /tmp/sdk2 && /tmp/sdk2/bin/pip install
mcp==2.3.0`); the project's venv is appended to sys.path for the facade's own dependencies.

    /tmp/sdk2/bin/python scripts/research/mcp_sdk2/server.py PROJECT_SITE_PACKAGES   (PYTHONPATH=repo)
"""

from __future__ import annotations

import asyncio
import functools
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

sys.path.append(sys.argv[1])  # after mcp 2.x's own site-packages

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from specs import INSTRUCTIONS, TOOL_SPECS

from aimate_memory.cli.fast import open_memory
from aimate_memory.mcp.tools import TOOL_NAMES, MemoryTools

executor = ThreadPoolExecutor(max_workers=1)  # one facade thread, as mcp/server.py's Worker
tools = MemoryTools(lambda: open_memory(None, False), None, False)
server = MCPServer("aimate-memory", instructions=INSTRUCTIONS)


def on_worker(method: Any) -> Any:
    @functools.wraps(method)
    async def tool(**kwargs: Any) -> Any:
        return await asyncio.wrap_future(executor.submit(functools.partial(method, **kwargs)))

    return tool


for name in TOOL_NAMES:
    title, description, annotations = TOOL_SPECS[name]
    server.add_tool(
        on_worker(getattr(tools, name)),
        name=name,
        title=title,
        description=description,
        annotations=ToolAnnotations(**annotations),
        structured_output=True,
    )
server.run("stdio")
