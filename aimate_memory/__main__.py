"""`python -m aimate_memory`: the `aimate` command, as the installed script runs it."""

from aimate_memory.cli import main

main()
