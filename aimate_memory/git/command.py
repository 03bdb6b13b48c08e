"""The options every git command the tool runs starts with: no code from the repository runs (docs/reliability.md,
"Trust model: the person's config and a project's config"). A repository's hooks — `pre-commit`,
`reference-transaction`, `post-index-change`, or a husky-style `core.hooksPath` in its config — belong to
whoever set the repository up; the tool's own commits, reads and syncs must not run them, and neither an
fsmonitor command. `-c` on the command line wins over every config file. Imports nothing: the anchors'
cold path uses it."""

from __future__ import annotations

NO_REPOSITORY_CODE = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")
GIT = ("git", *NO_REPOSITORY_CODE)
