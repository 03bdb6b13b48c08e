"""The lifecycle (docs/design.md §5): expire, promote and archive memories, fold access counts, find near-duplicates."""
