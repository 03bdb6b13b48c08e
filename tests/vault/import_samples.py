"""Realistic inputs for the importers, English and Chinese: a basic-memory project and a Cline memory bank."""

from __future__ import annotations

BASIC_MEMORY = {
    "decisions/选用-postgresql.md": """---
title: 选用 PostgreSQL 作为主库
type: decision
tags: [数据库, architecture]
permalink: decisions/xuan-yong-postgresql
created: 2025-03-02
status: accepted
---

# 选用 PostgreSQL 作为主库

## Observations
- [decision] 主库用 PostgreSQL 16，放弃 MySQL #数据库 (2025 年 3 月评审)
- [reason] JSONB 和部分索引省掉了一层缓存 #性能
- [ ] 迁移脚本还没写 #todo

## Relations
- implements [[Storage Architecture]]
- relates_to [[缓存策略]]
""",
    "architecture/storage.md": """---
title: Storage Architecture
type: note
tags: storage, sqlite
permalink: architecture/storage-architecture
modified: 2024-01-15
---

# Storage Architecture

Files are the source of truth; the database is derived and can be rebuilt.

## Observations
- [design] Local-first: every note is a Markdown file on disk #local-first
- [tech] Uses SQLite with FTS5 for search #database (chosen over Postgres for the desktop app)
- [process] Review PR #42 before the release

```markdown
- [example] Not an observation, this is a code sample #notatag
```

## Relations
- part_of [[Billing Service]]
- "decided by" [[选用 PostgreSQL 作为主库]]
""",
    "notes/缓存策略.md": """# 缓存策略

- [tip] 会话缓存的 TTL 设为 30 分钟 #redis
- 过期后从主库重新加载，见 [[Storage Architecture]]
""",
    "broken.md": """---
title: [never closed
tags: oops
---

body
""",
}
BASIC_MEMORY_GOOD = 3

CLINE_BANK = {
    "projectbrief.md": """# Project Brief

TaskFlow is a task manager for small teams.

## Core requirements
- Shared boards with offline editing
- 中文和英文界面
""",
    "productContext.md": """# 产品背景

## 为什么做这个项目
小团队在多个工具之间切换，任务经常丢。

## 用户体验目标
- 三次点击之内建好一个看板
""",
    "activeContext.md": """# Active Context

## Current focus
Migrating authentication to OAuth device flow.

## Next steps
- Finish the token refresh endpoint
- 更新登录页的文案
""",
    "systemPatterns.md": """# System Patterns

- Event sourcing for board history; projections rebuilt on start.
- CRDT merge for offline edits.
""",
    "techContext.md": """## Stack
- Python 3.12, FastAPI, PostgreSQL 16
- 前端：SvelteKit
""",
    "progress.md": """# 进度

## 已完成
- 看板和卡片的增删改
## 待办
- 导出 CSV
- 离线同步的冲突提示
""",
    "components/auth.md": """# 认证组件 / Auth component

Tokens live in the OS keychain; refresh tokens rotate on every use. 刷新令牌每次使用后轮换。
""",
    "notes/empty.md": "\n\n",
}
CLINE_GOOD = 7
