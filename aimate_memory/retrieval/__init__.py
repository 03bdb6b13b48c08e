"""Retrieval (docs/design.md §7): hybrid search over the indexes, ranked, floored and explained; evaluation."""
