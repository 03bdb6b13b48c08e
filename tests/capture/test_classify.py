"""The capture classifier (capture/classify.py, capture/model.py), Chinese and English.

The labelled sentences here were written for these tests: none is an exemplar the model was trained on
(`test_held_out_sentences_are_not_exemplars` checks) and none comes from the capture benchmark."""

from __future__ import annotations

import numpy as np
import pytest

from aimate_memory.capture import classify, title_of
from aimate_memory.capture.model import EMBEDDER, KINDS, exemplars_path, load_models
from aimate_memory.vault.layout import Layer, Scope

CORE, SHORT, LONG = Layer.CORE, Layer.SHORT_TERM, Layer.LONG_TERM
G, P = Scope.GLOBAL, Scope.PROJECT
PROJECT_PATHS = {"src/main.go", "README.md", "aimate_memory/index/db.py", "docs"}

# (text, the kind a careful reader files it as)
HELD_OUT: list[tuple[str, str]] = [
    ("Always squash commits before merging a feature branch.", "rule"),
    ("Never log request bodies; they may hold personal data.", "rule"),
    ("Reply in English even when I write in German.", "rule"),
    ("Keep each migration reversible.", "rule"),
    ("I prefer pytest fixtures to setUp methods.", "preference"),
    ("My favourite terminal is Alacritty.", "preference"),
    ("We picked Celery for the background workers.", "decision"),
    ("The team decided to drop Internet Explorer support.", "decision"),
    ("The billing service listens on port 9090.", "knowledge"),
    ("Backups are stored in the eu-west-1 bucket for 90 days.", "knowledge"),
    ("This repository is a static site generator for recipe blogs.", "project"),
    ("TODO: add a timeout to the health check.", "task"),
    ("Write the release notes for 3.2 before Thursday.", "task"),
    ("The nightly build broke after this morning's merge.", "note"),
    ("Thanks a lot, that fixed it!", "drop"),
    ("lol ok", "drop"),
    ("What does this regex do?", "drop"),
    ("My cat knocked my coffee over this morning, haha.", "drop"),
    ("合并功能分支之前先压缩提交。", "rule"),
    ("日志里不要记录请求体，里面可能有个人信息。", "rule"),
    ("每个数据库迁移都必须可以回滚。", "rule"),
    ("我更喜欢用 pytest 的 fixture。", "preference"),
    ("我平时用 Alacritty 做终端。", "preference"),
    ("后台任务队列选用了 Celery。", "decision"),
    ("团队决定不再支持 IE 浏览器。", "decision"),
    ("计费服务监听 9090 端口。", "knowledge"),
    ("备份存放在对象存储里，保留 90 天。", "knowledge"),
    ("这个仓库是一个面向美食博客的静态网站生成器。", "project"),
    ("TODO：给健康检查加上超时。", "task"),
    ("周四之前写好 3.2 版本的发布说明。", "task"),
    ("今天早上合并之后夜间构建挂了。", "note"),
    ("太感谢了，问题解决了！", "drop"),
    ("哈哈，好吧", "drop"),
    ("这个正则是什么意思？", "drop"),
    ("我家猫今天早上把我的咖啡打翻了。", "drop"),
]


def _placed(found) -> str:
    return "drop" if found.drop else found.kind


@pytest.fixture(scope="module")
def vectors() -> dict[str, np.ndarray]:
    """The held-out sentences' USE vectors, from the real model (what `remember` gives the classifier)."""
    from aimate_memory.embedding.use_provider import UseEmbedder

    texts = [text for text, _ in HELD_OUT]
    return dict(zip(texts, UseEmbedder(cache_dir=None, threads=1).embed(texts), strict=True))


def test_held_out_sentences_are_not_exemplars() -> None:
    exemplars = exemplars_path().read_text(encoding="utf-8")
    assert not [text for text, _ in HELD_OUT if f'"{text}"' in exemplars]
    assert sum(1 for text, _ in HELD_OUT if any("\u4e00" <= ch <= "\u9fff" for ch in text)) >= len(HELD_OUT) // 2


@pytest.mark.slow
def test_model_files_held_out_sentences(vectors: dict[str, np.ndarray], capsys: pytest.CaptureFixture[str]) -> None:
    results = [(text, kind, classify(text, has_project=True, vector=vectors[text])) for text, kind in HELD_OUT]
    misses = [(text, kind, _placed(found)) for text, kind, found in results if _placed(found) != kind]
    with capsys.disabled():
        print(f"\ncapture model: {len(HELD_OUT) - len(misses)}/{len(HELD_OUT)} kinds right")
        for text, want, got in misses:
            print(f"  miss: {text!r}: want {want}, got {got}")
    assert len(misses) <= len(HELD_OUT) // 5
    for lang_is_zh in (False, True):
        part = [(t, k, f) for t, k, f in results if any("\u4e00" <= ch <= "\u9fff" for ch in t) == lang_is_zh]
        right = sum(1 for _, kind, found in part if _placed(found) == kind)
        assert right / len(part) >= 0.75, (lang_is_zh, right, len(part))
    # Small talk, thanks and questions are dropped in both languages, and the reason says which.
    for _, kind, found in results:
        if kind == "drop" and found.drop:
            assert found.reason.startswith("dropped: ") and found.confidence is not None
    thanks = {text: found for text, _, found in results}
    assert thanks["Thanks a lot, that fixed it!"].reason.startswith("dropped: thanks")
    assert thanks["太感谢了，问题解决了！"].reason.startswith("dropped: thanks")


@pytest.mark.slow
def test_reason_says_where_and_why(vectors: dict[str, np.ndarray]) -> None:
    rule = classify("Never log request bodies; they may hold personal data.", has_project=True,
                    vector=vectors["Never log request bodies; they may hold personal data."])  # fmt: skip
    assert rule.reason.startswith("core/rule: an imperative convention about how work is done (embedding, ")
    assert "global" in rule.reason and "\n" not in rule.reason
    fact = classify("计费服务监听 9090 端口。", has_project=True, vector=vectors["计费服务监听 9090 端口。"])
    assert fact.reason.startswith("long_term/knowledge: a fact about the project") and fact.scope is P


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("TODO: rotate the signing keys", "task"),
        ("FIXME 分页参数没有校验", "task"),
        ("thanks!", "drop"),
        ("谢谢！", "drop"),
        ("ok", "drop"),
    ],
)
def test_cue_features_alone_decide_without_a_vector(text: str, kind: str) -> None:
    """Without an embedder (vectors off, another model configured) the cue-feature weights decide."""
    found = classify(text, has_project=True)
    assert _placed(found) == kind and "cue features" in found.reason


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("我习惯用 Tab 缩进", (CORE, "preference", G)),
        ("不要在 main 分支上直接提交", (CORE, "rule", G)),
        ("Never commit secrets to git", (CORE, "rule", G)),
        ("我们决定用 Redis 做会话缓存", (LONG, "decision", P)),
        ("We decided to use FastAPI for the HTTP layer", (LONG, "decision", P)),
        ("TODO refactor the index writer", (SHORT, "task", P)),
        ("明天修复登录页面的 bug", (SHORT, "task", P)),
        ("登录服务的超时是 30 秒", (SHORT, "note", P)),
    ],
)
def test_cue_table_is_the_fallback_without_weights(text: str, where: tuple[Layer, str, Scope]) -> None:
    found = classify(text, has_project=True, models=None)
    assert (found.layer, found.category, found.scope) == where and not found.drop
    assert found.reason.split(":")[0] == f"{where[0].value}/{where[1]}" and "cue table" in found.reason


@pytest.mark.parametrize(
    ("kind", "where"),
    [
        ("rule", (CORE, "rule", G)),
        ("preference", (CORE, "preference", G)),
        ("decision", (LONG, "decision", P)),
        ("knowledge", (LONG, "knowledge", P)),
        ("project", (LONG, "project", P)),
        ("task", (SHORT, "task", P)),
        ("note", (SHORT, "note", P)),
    ],
)
def test_a_given_kind_sets_layer_and_category(kind: str, where: tuple[Layer, str, Scope]) -> None:
    for text in ("谢谢", "thanks"):  # even what the model would drop
        found = classify(text, has_project=True, kind=kind)
        assert (found.layer, found.category, found.scope) == where and not found.drop
        assert f"given as kind {kind}" in found.reason and found.confidence is None
    # Scope is still decided: the project named, or --scope, wins over the kind's default.
    assert classify("本项目的测试数据在 fixtures 目录", has_project=True, kind="rule").scope is P
    assert classify("anything", has_project=True, kind="task", scope_override=G).scope is G


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown kind"):
        classify("x", has_project=True, kind="fact")


def test_shipped_weights_load_and_match_the_exemplars() -> None:
    models = load_models()
    assert models is not None and models.embedder == EMBEDDER
    assert models.embedded.weights.shape[1] == models.cues_only.weights.shape[1] == len(KINDS)
    assert models.embedded.embedding_dim == 512 and models.cues_only.embedding_dim == 0
    probabilities = models.embedded.probabilities("any text", np.zeros(512, dtype=np.float32))
    assert probabilities.shape == (len(KINDS),) and abs(float(probabilities.sum()) - 1.0) < 1e-5
    kinds = {line.split('"kind": "')[1].split('"')[0] for line in exemplars_path().read_text("utf-8").splitlines()}
    assert kinds == set(KINDS)


def test_a_vector_of_another_size_falls_back_to_the_cues() -> None:
    found = classify("TODO: rotate the signing keys", has_project=True, vector=np.ones(384, dtype=np.float32))
    assert found.kind == "task" and "cue features" in found.reason


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
