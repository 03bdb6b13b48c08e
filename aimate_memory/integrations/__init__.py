"""Setting AIMate up inside AI coding assistants (Claude Code, Codex CLI, Kimi Code CLI): pure planners that
turn a client's config text into the text with our MCP server and hooks, the writer that applies them with a
backup, the hook commands the clients run, and the managed AGENTS.md/CLAUDE.md block."""
