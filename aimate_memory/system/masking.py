"""What the faces (CLI, MCP server, daemon, hooks) use to keep secrets out of what they show and log: the
scanner's masking, through the facade (the faces never import `git` themselves; docs/reliability.md
"Security")."""

from __future__ import annotations

from aimate_memory.git.secrets import MaskingFormatter, mask_data, mask_text

__all__ = ["MaskingFormatter", "mask_data", "mask_text"]
