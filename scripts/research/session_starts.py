"""Re-render the session starts a replay run recorded through this code's context builder, and score the run
with them (issue 39: the largest Chinese session start).

    .venv/bin/python scripts/research/session_starts.py RUN.capture.json [--replay-dir DIR] [--show SESSION]

Each recorded session start is parsed back into its sections and memories (a `- text (id)` line, a `### title
(id)` block) and built again with the session-start rules of `context/` and `system/context.py` (a long
short-term or long-term memory as its summary line, each episode request once and not the heading's), at the
hook's budget. Without those rules the same parse rebuilds the recorded text to within whitespace, which the
script checks and reports. Prints the sizes before and after, by the replay's count (characters ÷ 1.5 for
Chinese, ÷ 4 for English) and by the tool's (`prompt_tokens`); with `--replay-dir` (the replay harness's
folder, imported where it lies), the replay's scores of the run as recorded and with the re-rendered starts:
what the assistant was given at each session start is all that changes, every capture stays as it was.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from aimate_memory.context import ContextItem, SectionRequest, build_context
from aimate_memory.system.context import SUMMARIZED, SUMMARY_TOKENS
from aimate_memory.text.estimate import prompt_tokens

PREFACE = "Memory from AIMate (the `aimate` MCP tools search and save more):"
CHARS_PER_TOKEN = {"en": 4.0, "zh": 1.5}  # the replay's count
HOOK_BUDGET = 3000  # hooks.context_budget
_LINE = re.compile(r"^- (.*) \(([0-9a-f]{8})\)$")
_BLOCK = re.compile(r"^### (.*) \(([0-9a-f]{8})\)$")


def sections(text: str) -> list[tuple[str, str, str, list[ContextItem]]]:
    """(layer, scope, heading, items) of a rendered context, in order."""
    found = []
    body = text.split("\n\n", 1)[1] if text.startswith(PREFACE) else text
    for block in re.split(r"\n(?=## )", body.strip()):
        heading, _, rest = block.partition("\n")
        if rest.startswith("\n> "):  # the team frame under the first project heading
            frame, _, rest = rest[1:].partition("\n")
            heading = f"{heading}\n\n{frame}"
        layer = "core" if "Core memory" in heading else "episode" if "Last sessions" in heading else "long_term"
        layer = "short_term" if "short-term" in heading else layer
        scope = "global" if "· global" in heading else "project"
        found.append((layer, scope, heading, _items(rest.split("\n"), scope)))
    return found


def _items(lines: list[str], scope: str) -> list[ContextItem]:
    items, index = [], 0
    while index < len(lines):
        line, block = _LINE.match(lines[index]), _BLOCK.match(lines[index])
        if line:
            items.append(ContextItem(line[2] * 4, line[1], line[1], scope, ""))
        elif block:
            text, index = [], index + 2
            while index < len(lines) and lines[index] and not lines[index].startswith(("- ", "### ")):
                text.append(lines[index])
                index += 1
            items.append(ContextItem(block[2] * 4, block[1], "\n".join(text), scope, ""))
            continue
        index += 1
    return items


def _episode(item: ContextItem) -> ContextItem:
    """An episode with each request once and not the heading's (system/context.py `_episode_requests`)."""
    heading, text = item.title, item.body
    if "\n" not in text:  # one line: "date · title: asked: …" rendered as the title's label
        heading, _, rest = text.partition(": asked: ")
        text = f"asked: {rest}" if rest else text
    title = heading.split(" · ", 1)[-1]
    lines = []
    for line in text.split("\n"):
        if line.startswith("asked: "):
            asked = [said for said in dict.fromkeys(line.removeprefix("asked: ").split("; ")) if said != title]
            line = f"asked: {'; '.join(asked)}" if asked else ""
        if line:
            lines.append(line)
    return replace(item, title=heading, body="\n".join(lines) or heading)


def rebuild(text: str, *, rules: bool = True) -> str:
    requests = []
    for layer, scope, heading, items in sections(text):
        if layer == "episode" and rules:
            items = [_episode(item) for item in items]
        summary = SUMMARY_TOKENS if rules and layer in SUMMARIZED else None
        request = SectionRequest(layer, scope, items, 1.0, heading, layer == "core", summary_tokens=summary)
        requests.append(request)
    built = build_context(requests, HOOK_BUDGET, core_cap=HOOK_BUDGET)
    return f"{PREFACE}\n\n{built.text.strip()}"


def sizes(texts: list[str], per: float) -> str:
    counts = [len(text) / per for text in texts]
    largest = max(range(len(texts)), key=lambda index: counts[index])
    return (
        f"replay's count mean {sum(counts) / len(counts):,.0f} max {counts[largest]:,.0f}; "
        f"tool's count max {max(prompt_tokens(text) for text in texts):,}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--replay-dir", type=Path, help="the replay harness's folder: score the run both ways")
    parser.add_argument("--show", help="print this session's re-rendered start")
    args = parser.parse_args(argv)
    run: dict[str, Any] = json.loads(args.run.read_text(encoding="utf-8"))
    before = [session["start_context"] or "" for session in run["sessions"]]
    after = [rebuild(text) if text else "" for text in before]
    drifted = [
        s["session_id"]
        for s, text in zip(run["sessions"], before, strict=True)
        if text and rebuild(text, rules=False).split() != text.split()
    ]
    per = CHARS_PER_TOKEN[run["lang"]]
    print(f"{run['project']} ({run['lang']}), {len(before)} sessions")
    print(f"  recorded:    {sizes(before, per)}")
    print(f"  re-rendered: {sizes(after, per)}")
    print(f"  rebuilt without the new rules, differing beyond whitespace: {drifted or 'none'}")
    for session, text in zip(run["sessions"], after, strict=True):
        if session["session_id"] == args.show:
            print(text)
    if args.replay_dir is not None:
        sys.path.insert(0, str(args.replay_dir))
        import replay  # the harness, read where it lies

        keys = ("statements", "captured", "proposed", "accepted", "restated_known_before", "depends")
        print("  scores as recorded:   ", {key: replay.evaluate(run)[key] for key in keys})
        for session, text in zip(run["sessions"], after, strict=True):
            session["start_context"] = text
        print("  with re-rendered starts:", {key: replay.evaluate(run)[key] for key in keys})


if __name__ == "__main__":
    main()
