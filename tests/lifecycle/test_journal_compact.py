"""The use journal (`state/access.jsonl`, docs/lifecycle.md "Uses") through `aimate mem maintain`: a home
where nothing was read yet has no journal, and maintain says nothing about it (it used to warn "could not
compact … No such file" on every fresh home); a journal past its size bound is rewritten one line per memory
and day with the same counts."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from aimate_memory.lifecycle.journal import AccessJournal
from aimate_memory.lifecycle.maintenance import COMPACT_OVER_BYTES


def test_maintain_on_a_fresh_home_does_not_warn_about_a_missing_journal(cli, initialized, home: Path) -> None:
    assert not (home / "state" / "access.jsonl").exists()
    result = cli("mem", "maintain")
    assert result.code == 0, result.err
    assert "could not compact" not in result.err + result.out


def test_maintain_compacts_a_big_journal_and_keeps_every_count(cli, initialized, home: Path) -> None:
    journal = AccessJournal(home / "state" / "access.jsonl")
    start = datetime(2026, 11, 1, 9, tzinfo=timezone.utc)
    ids = [f"{n:08x}-0000-4000-8000-000000000000" for n in range(40)]
    while not journal.path.exists() or journal.path.stat().st_size <= COMPACT_OVER_BYTES:
        for minute in range(200):
            journal.record(ids, start + timedelta(days=minute % 3, minutes=minute))
    before = journal.counts()

    result = cli("mem", "maintain")
    assert result.code == 0, result.err
    assert "could not compact" not in result.err
    assert journal.path.stat().st_size < COMPACT_OVER_BYTES
    assert journal.counts() == before
    assert len(journal.path.read_text(encoding="utf-8").splitlines()) == len(ids) * 3  # one per memory and day
