"""The daemon (docs/design.md §6): file watching, the Unix-socket server and its client, the user service."""
