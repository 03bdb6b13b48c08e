"""Capture rules on labelled bilingual examples: accuracy printed, and every rule family checked."""

from __future__ import annotations

import pytest

from aimate_memory.capture import classify, title_of
from aimate_memory.vault.layout import Layer, Scope

CORE, SHORT, LONG = Layer.CORE, Layer.SHORT_TERM, Layer.LONG_TERM
G, P = Scope.GLOBAL, Scope.PROJECT
PROJECT_PATHS = {"src/main.go", "README.md", "aimate_memory/index/db.py", "docs"}

# (text, has_project, (layer, category, scope))
LABELLED: list[tuple[str, bool, tuple[Layer, str, Scope]]] = [
    # preferences → core, global
    ("我习惯用 Tab 缩进", True, (CORE, "preference", G)),
    ("我喜欢简洁的提交信息，一行说清楚", True, (CORE, "preference", G)),
    ("我偏好函数式风格的代码", True, (CORE, "preference", G)),
    ("回复时我更喜欢中文", False, (CORE, "preference", G)),
    ("I prefer pytest over unittest", True, (CORE, "preference", G)),
    ("I like small pull requests with one change each", True, (CORE, "preference", G)),
    ("I always use type hints in Python", True, (CORE, "preference", G)),
    ("I usually write commit messages in English", False, (CORE, "preference", G)),
    ("I'd rather see a diff than a summary", True, (CORE, "preference", G)),
    # rules → core, global unless the project is named
    ("不要在 main 分支上直接提交", True, (CORE, "rule", G)),
    ("提交前必须跑通全部测试", True, (CORE, "rule", G)),
    ("禁止在日志里打印密码", True, (CORE, "rule", G)),
    ("永远不要使用 rm -rf /", False, (CORE, "rule", G)),
    ("这个项目的接口必须保持向后兼容", True, (CORE, "rule", P)),
    ("Never commit secrets to git", True, (CORE, "rule", G)),
    ("Always run ruff before pushing", True, (CORE, "rule", G)),
    ("You must sign every release tag", True, (CORE, "rule", G)),
    ("Don't use print for logging", True, (CORE, "rule", G)),
    ("In this repo, never edit src/main.go by hand", True, (CORE, "rule", P)),
    ("Do not touch README.md without review", True, (CORE, "rule", P)),
    # decisions → long_term/decisions, project
    ("我们决定用 Redis 做会话缓存", True, (LONG, "decision", P)),
    ("数据库选用 PostgreSQL 16", True, (LONG, "decision", P)),
    ("前端改用 Vite 构建", True, (LONG, "decision", P)),
    ("最后决定使用 SQLite 存索引，部署简单", True, (LONG, "decision", P)),
    ("We decided to use FastAPI for the HTTP layer", True, (LONG, "decision", P)),
    ("We chose SQLite because it needs no server", True, (LONG, "decision", P)),
    ("We'll use GitHub Actions for CI", True, (LONG, "decision", P)),
    ("Switched to uv for dependency management", True, (LONG, "decision", P)),
    ("We decided to never use an ORM here", True, (LONG, "decision", P)),
    ("We went with ONNX Runtime to stay offline", False, (LONG, "decision", G)),
    # tasks → short_term/tasks, project
    ("TODO: 给登录接口加限流", True, (SHORT, "task", P)),
    ("待办：更新部署文档", True, (SHORT, "task", P)),
    ("明天修复登录页面的 bug", True, (SHORT, "task", P)),
    ("下周和运维确认备份策略", True, (SHORT, "task", P)),
    ("明天不要忘了发版本说明", True, (SHORT, "task", P)),
    ("TODO refactor the index writer", True, (SHORT, "task", P)),
    ("Remember to bump the version before the release", True, (SHORT, "task", P)),
    ("Fix the flaky login test by Friday", True, (SHORT, "task", P)),
    ("Don't forget to update the changelog", True, (SHORT, "task", P)),
    ("Follow up with the design team next week", False, (SHORT, "task", G)),
    # everything else → short_term/notes, project (global only without a project)
    ("登录服务的超时是 30 秒", True, (SHORT, "note", P)),
    ("Redis 的默认端口是 6379", False, (SHORT, "note", G)),
    ("本项目的测试数据在 fixtures 目录", True, (SHORT, "note", P)),
    ("The staging server restarts every night at 3am", True, (SHORT, "note", P)),
    ("aimate_memory/index/db.py holds the schema", True, (SHORT, "note", P)),
    ("The API returns dates in UTC", False, (SHORT, "note", G)),
    ("This project targets Python 3.10 and newer", True, (SHORT, "note", P)),
    # harder cases, labelled by what a person would expect (written before running the rules on them)
    ("Let's use Poetry from now on", True, (LONG, "decision", P)),
    ("以后时间一律用 UTC 存储", True, (CORE, "rule", G)),
    ("I like that we decided on Postgres", True, (LONG, "decision", P)),
    ("数据库连接池大小调到 20 了", True, (SHORT, "note", P)),
    ("Please never auto-format vendored files in this project", True, (CORE, "rule", P)),
    ("下周一之前必须完成迁移", True, (SHORT, "task", P)),
]


def _predict(text: str, has_project: bool) -> tuple[Layer, str, Scope]:
    result = classify(text, has_project=has_project, path_exists=PROJECT_PATHS.__contains__)
    return result.layer, result.category, result.scope


def _label(prediction: tuple[Layer, str, Scope]) -> str:
    layer, category, scope = prediction
    return f"{layer.value}/{category} ({scope.value})"


def test_rules_accuracy_on_labelled_examples(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(LABELLED) >= 40
    assert sum(1 for text, _, _ in LABELLED if any("\u4e00" <= ch <= "\u9fff" for ch in text)) >= 20
    misses = [(text, want, _predict(text, proj)) for text, proj, want in LABELLED if _predict(text, proj) != want]
    accuracy = 1 - len(misses) / len(LABELLED)
    with capsys.disabled():
        print(f"\ncapture rules: {len(LABELLED) - len(misses)}/{len(LABELLED)} correct, accuracy {accuracy:.3f}")
        for text, want, got in misses:
            print(f"  miss: {text!r}: want {_label(want)}, got {_label(got)}")
    assert accuracy >= 0.9


@pytest.mark.parametrize(
    ("text", "cue"),
    [("I prefer tabs", "'I prefer' → preference"), ("我们决定用 Redis", "'我们决定' → decision")],
)
def test_reason_names_the_matched_cue(text: str, cue: str) -> None:
    assert cue in classify(text, has_project=True).reason


def test_scope_override_wins() -> None:
    result = classify("我喜欢深色主题", has_project=True, scope_override=Scope.PROJECT)
    assert (result.scope, result.category) == (Scope.PROJECT, "preference")
    assert "--scope" in result.reason
    assert classify("some note", has_project=True, scope_override=Scope.GLOBAL).scope is Scope.GLOBAL


def test_paths_are_checked_only_when_a_checker_is_given() -> None:
    text = "Never edit src/main.go by hand"
    assert classify(text, has_project=True).scope is Scope.GLOBAL
    named = classify(text, has_project=True, path_exists=PROJECT_PATHS.__contains__)
    assert named.scope is Scope.PROJECT and "path src/main.go" in named.reason
    assert classify("Never edit lib/other.go", has_project=True, path_exists=PROJECT_PATHS.__contains__).scope is G


def test_body_is_the_whole_text_and_title_the_first_clause() -> None:
    result = classify("我们决定用 Redis 做会话缓存。原因：延迟低，支持过期。\n备选是 Memcached。", has_project=True)
    assert result.title == "我们决定用 Redis 做会话缓存"
    assert result.body.startswith("我们决定用 Redis") and result.body.endswith("备选是 Memcached。")
    assert title_of("Use v1.2 of the API. It is stable.") == "Use v1.2 of the API"
    assert title_of("# Deploy notes\nsteps follow") == "Deploy notes"


def test_long_titles_are_cut_at_a_soft_break() -> None:
    english = "We decided to keep the whole index in one SQLite file, " + "with vectors stored beside it " * 4
    title = title_of(english)
    assert len(title) <= 80 and title.endswith("…") and not title.startswith(" ")
    chinese = "我们决定" + "把所有索引放在同一个数据库文件里，" * 8
    zh_title = title_of(chinese)
    assert len(zh_title) <= 80 and zh_title.endswith("…")
