"""The lifecycle (docs/design.md §5): expire, promote and archive memories by their uses (kept in the state
folder, never in the files), find near-duplicates."""
