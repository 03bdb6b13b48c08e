"""`MemorySystem`: the one facade the CLI, the daemon, the MCP server, hooks and agents call (seed 002 核心组件).

Each group of actions lives in a module of its own (memories, search, upkeep, …); this class only composes
them, so every face reaches the same code."""

from __future__ import annotations

from aimate_memory.system.context import ContextActions
from aimate_memory.system.editing import EditActions
from aimate_memory.system.history import HistoryActions
from aimate_memory.system.live import LiveActions
from aimate_memory.system.memories import MemoryActions
from aimate_memory.system.transfer import TransferActions
from aimate_memory.system.upkeep import UpkeepActions


class MemorySystem(
    ContextActions,  # its sessions capture (CaptureActions) what an ended session leaves for review
    EditActions,
    TransferActions,
    MemoryActions,
    UpkeepActions,
    HistoryActions,
    LiveActions,
):
    """The global vault plus, inside a project, the project vault (project first on ties)."""
