"""The approach frames (capture/data/conflict_rules.json `approach_frames`) read the same things and ways with
the anchor the second frame carries: a match of "X 采用/使用/改用/基于 Y方法" can start only where a clause starts
(the thing runs over every character but the clause marks), so the frame is tried only there. Unanchored, it
tried every character of a long English memory again (~4 ms a text: a fifth of a cold `remember`'s conflict
check; docs/design.md §12)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from aimate_memory.capture import conflict

ANCHOR = "(?<![^，。；,;：:])"
PAIRS = Path(__file__).resolve().parent.parent / "data" / "conflict_pairs.jsonl"
SAID = [
    "将现有爬虫逐步迁移到基于策略模式的实现",
    "我们把爬虫都使用策略模式实现，日志统一采用结构化方案",
    "爬虫使用策略模式；日志使用结构化方案，部署改用蓝绿方式",
    "可以统一使用工厂模式：接口基于适配器模式实现",
    "a使用b模式c使用d方案",
    "The crawlers use the strategy pattern, and we switched logging to a structured approach",
    "We use service-7 behind the load balancer for the billing API, with retries instead of timeouts " * 6,
    "",
]


def _texts() -> list[str]:
    texts = list(SAID)
    for line in PAIRS.read_text(encoding="utf-8").splitlines():
        texts += [value for value in json.loads(line).values() if isinstance(value, str)]
    return [conflict.normalized(text) for text in texts]


def test_the_anchored_frame_reads_what_the_unanchored_one_read_in_chinese_and_english() -> None:
    anchored = next(frame for frame in conflict.default_rules().approach_frames if frame.pattern.startswith(ANCHOR))
    unanchored = re.compile(anchored.pattern.removeprefix(ANCHOR), anchored.flags)
    texts = _texts()
    assert len(texts) > 500 and any(anchored.search(text) for text in texts)
    for text in texts:
        assert [(m.span(), m.groupdict()) for m in anchored.finditer(text)] == [
            (m.span(), m.groupdict()) for m in unanchored.finditer(text)
        ], text
    assert [approach.way for approach in conflict.read(SAID[2]).approaches] == ["策略模式", "结构化方案", "蓝绿方式"]
