"""Labelled pairs for the supersede threshold: (existing memory, new capture, same?).

`True`: the new text restates or updates the old one (one of them should remain active). `False`: a
different memory on a related subject (both should stay). Written by hand, Chinese and English, before
any model scored them; scripts/research/supersede_threshold.py sweeps the thresholds on them.
"""

from __future__ import annotations

PAIRS: list[tuple[str, str, bool]] = [
    # --- English: restatements and updates
    ("We use Redis for the session cache", "Session cache: we use Redis", True),
    ("We decided to use Redis for the session cache", "We switched the session cache from Redis to Memcached", True),
    ("I prefer tabs for indentation", "I prefer tabs over spaces for indentation", True),
    ("Always run the tests before pushing", "Run the whole test suite before every push", True),
    ("The staging server is at staging.example.com", "Staging moved: the server is now staging2.example.com", True),
    ("Deploy with GitHub Actions", "We deploy through GitHub Actions workflows", True),
    ("The API timeout is 30 seconds", "The API timeout was raised to 60 seconds", True),
    ("Use Python 3.11 for this project", "This project now requires Python 3.12", True),
    ("I like short commit messages", "I like commit messages to be short, one line", True),
    ("Never commit secrets to the repository", "Do not ever commit secrets into the repo", True),
    ("We chose PostgreSQL as the main database", "PostgreSQL is our main database", True),
    # --- English: related but different
    ("We use Redis for the session cache", "We use Redis for the leaderboard", False),
    ("I prefer tabs for indentation", "I prefer single quotes for strings", False),
    ("Always run the tests before pushing", "Always update the changelog before a release", False),
    ("The API timeout is 30 seconds", "The database connection pool holds 20 connections", False),
    ("We chose PostgreSQL as the main database", "We chose SQLite for the local index", False),
    ("Deploy with GitHub Actions", "Lint with ruff in a pre-commit hook", False),
    ("Never commit secrets to the repository", "Never force-push to the main branch", False),
    ("The staging server is at staging.example.com", "The production server is at example.com", False),
    ("Fix the flaky login test", "Fix the slow search test", False),
    ("I like short commit messages", "I like small pull requests", False),
    # --- Chinese: restatements and updates
    ("我们决定用 Redis 做会话缓存", "会话缓存用 Redis", True),
    ("我们决定用 Redis 做会话缓存", "会话缓存从 Redis 改用 Memcached", True),
    ("我习惯用 Tab 缩进", "缩进我习惯用 Tab 而不是空格", True),
    ("提交前必须跑通全部测试", "每次提交之前都要先跑完所有测试", True),
    ("接口超时时间是 30 秒", "接口超时时间调整为 60 秒", True),
    ("测试服务器地址是 test.example.com", "测试服务器换到了 test2.example.com", True),
    ("禁止在日志里打印密码", "日志中不允许输出密码", True),
    ("数据库选用 PostgreSQL", "主数据库用的是 PostgreSQL", True),
    ("我喜欢简洁的提交信息", "提交信息我喜欢写得简洁一些", True),
    ("前端用 Webpack 构建", "前端构建改用 Vite", True),
    ("项目使用 Python 3.11", "项目升级到 Python 3.12 了", True),
    # --- Chinese: related but different
    ("我们决定用 Redis 做会话缓存", "我们决定用 Redis 做排行榜", False),
    ("我习惯用 Tab 缩进", "我习惯用单引号写字符串", False),
    ("提交前必须跑通全部测试", "发布前必须更新变更日志", False),
    ("接口超时时间是 30 秒", "数据库连接池大小是 20", False),
    ("数据库选用 PostgreSQL", "本地索引选用 SQLite", False),
    ("禁止在日志里打印密码", "禁止直接推送到 main 分支", False),
    ("测试服务器地址是 test.example.com", "生产服务器地址是 example.com", False),
    ("修复登录页面的 bug", "修复搜索页面很慢的问题", False),
    ("我喜欢简洁的提交信息", "我喜欢小而专注的合并请求", False),
]
