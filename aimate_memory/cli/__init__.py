"""The `aimate` command line: a thin layer over `MemorySystem` (docs/design.md §9).

`main` serves the commands the assistants start on every prompt and session (`mem hook …`, `mem mcp`),
`--version` and the commands a running daemon answers (`cli.served`) through `cli.fast`, without importing
typer, rich or the command app; everything else — and a served command no daemon answered — goes to the
typer app in `cli.app`. Nothing is imported here at module level: importing `aimate_memory.cli.fast`
runs this file first and must stay light."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable


def main() -> None:
    # Everything the tool creates — vaults, memories, index.db, logs, state, the daemon it starts — is
    # for this person only (docs/reliability.md, "Security"); children inherit the umask.
    os.umask(0o077)
    from aimate_memory.blas import one_thread_unless_set

    one_thread_unless_set()  # before numpy loads
    from aimate_memory.cli.fast import fast_command

    command = fast_command(sys.argv[1:])
    code = None if command is None else _run_fast(command)
    if code is None:
        from aimate_memory.cli.app import main as app_main

        app_main()
        return
    from aimate_memory.cli.fast import leave_without_teardown

    leave_without_teardown(code)
    sys.exit(code)


def _run_fast(command: Callable[[], int | None]) -> int | None:
    """The app's error contract for a fast command: an error is one line plus a hint, exit 1 (the traceback
    with `--debug` or AIMATE_DEBUG=1); output cut short by a closed pipe (`| head`) ends quietly, exit 1, as
    click ends the typer app's."""
    from aimate_memory.errors import AimateError

    try:
        return command()
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the exit's flush writes nowhere
        return 1
    except Exception as exc:
        if "--debug" in sys.argv or os.environ.get("AIMATE_DEBUG") == "1":
            raise
        from aimate_memory.cli.faults import fault_or_bug
        from aimate_memory.cli.plain import print_error

        message, hint = (exc.message, exc.hint) if isinstance(exc, AimateError) else fault_or_bug(exc)
        print_error(message, hint)
        return 1


__all__ = ["main"]
