"""Errors a person sees: one line saying what went wrong, plus a hint saying how to fix it."""

from __future__ import annotations

import os
from pathlib import Path


class AimateError(Exception):
    """Base for every error the CLI turns into `error: … / hint: …` and exit code 1."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class NotFoundError(AimateError):
    pass


class InvalidInputError(AimateError):
    pass


class OutsideVaultError(InvalidInputError):
    pass


class ConfigError(AimateError):
    pass


class MemoryFileError(AimateError):
    """A memory file that cannot be read as a memory. The file is never rewritten because of it."""

    def __init__(self, path: Path, line: int | None, reason: str, hint: str | None = None) -> None:
        location = f"{printable_path(path)}:{line}" if line else printable_path(path)
        super().__init__(f"{location}: {reason}", hint)
        self.path = path
        self.line = line
        self.reason = reason
        self.kind = type(self).__name__


class BrokenYamlError(MemoryFileError):
    pass


class ConflictMarkersError(MemoryFileError):
    pass


class BinaryFileError(MemoryFileError):
    pass


class FileTooLargeError(MemoryFileError):
    pass


class EncodingError(MemoryFileError):
    pass


class FileNameError(MemoryFileError):
    """A file name that is not valid UTF-8: it cannot be stored, printed or committed as text."""


class PathTooLongError(MemoryFileError):
    """A path past the system's PATH_MAX: it cannot be opened, so it is never indexed."""


def printable_path(path: Path | str) -> str:
    """A path as text even when its name is not valid UTF-8 (undecodable bytes shown as \\xNN escapes)."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")
