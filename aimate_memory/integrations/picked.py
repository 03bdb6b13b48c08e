"""An option the person picks in a prompt ("let's go with option 2", "就用第二种方案"), resolved in the prompt hook's
turn against the assistant's turn just before it in the client's transcript (capture/choice.py), so the decision
waits for review from that turn on instead of from the session's end (docs/design.md, "Choices among the
assistant's options"). Pure reading; the hook captures what it returns, pending like any capture."""

from __future__ import annotations

from pathlib import Path

from aimate_memory.capture.choice import chosen, resolve
from aimate_memory.integrations.claude_transcript import TranscriptFormat, parse_records

TAIL_BYTES = 256 * 1024  # of the transcript read for the last reply: an offer of options closes a turn


def last_reply(transcript: Path, how: TranscriptFormat, prompt: str) -> str:
    """The assistant's last turn in the transcript's tail, when nothing the person said came after it but this
    `prompt` (the client may have written it already); "" otherwise."""
    size = transcript.stat().st_size
    with open(transcript, "rb") as handle:
        handle.seek(max(0, size - TAIL_BYTES))
        data = handle.read()
    if size > TAIL_BYTES:
        data = data[data.find(b"\n") + 1 :]  # the first line is cut: read from the next
    turns = parse_records(data, how).turns
    for turn in reversed(turns):
        if turn.role == "assistant":
            return turn.content
        if turn.role == "user" and turn.content.strip() != prompt.strip():
            return ""  # the person said something else since: the options are not the ones picked
    return ""


def picked_decision(prompt: str, transcript: Path | None, how: TranscriptFormat) -> str | None:
    """The decision `prompt` makes by picking an option of the assistant's last reply — the person's words and
    the option's text — or None (no pick, no transcript, an option the reply does not spell out)."""
    if chosen(prompt) is None or transcript is None or not transcript.is_file():
        return None
    return resolve(prompt, last_reply(transcript, how, prompt))
