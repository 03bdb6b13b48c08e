"""The page's words in English and Chinese, as data (one row per phrase), and which language a request gets:
`?lang=en|zh` (remembered in a cookie), else the browser's `Accept-Language`, else English. The CLI speaks
English only; memories and errors are shown as they are written."""

from __future__ import annotations

LANGUAGES = ("en", "zh")
LANG_COOKIE = "aimate_ui_lang"

# key → (English, 中文)
WORDS: dict[str, tuple[str, str]] = {
    "app": ("AIMate memory", "AIMate 记忆"),
    "nav.review": ("Review", "审阅"),
    "nav.context": ("What the assistant sees", "助手看到的内容"),
    "nav.search": ("Search", "搜索"),
    "nav.timeline": ("Timeline", "时间线"),
    "other_language": ("中文", "English"),
    "error": ("Not done", "未完成"),
    "hint": ("Hint", "提示"),
    # review
    "review.title": ("Review", "审阅"),
    "review.lead": (
        "Captures waiting for you and memories changed by hand. Accept commits the change (as "
        "`aimate mem review --accept`); Reject restores the file (a new one is moved out of the vault, kept).",
        "等待你确认的捕获，以及被手动改过的记忆。接受会提交这项改动（同 `aimate mem review --accept`）；"
        "拒绝会还原文件（新文件会移出记忆库并保留）。",
    ),
    "review.empty": ("Nothing to review: every memory change is committed.", "没有需要审阅的：所有记忆改动都已提交。"),
    "review.count": ("{n} change(s) to review", "{n} 项改动待审阅"),
    "review.not_git": (
        "No vault is in a git repository: there is nothing to review.",
        "没有记忆库在 git 仓库中，无需审阅。",
    ),
    "review.accept": ("Accept", "接受"),
    "review.reject": ("Reject", "拒绝"),
    # a capture that may contradict active memories: accepting it supersedes them, unless both are kept
    "review.accept_replaces": ("Accept, replacing them", "接受并取代它们"),
    "review.keep_both": ("Accept, keep both", "接受，两者都保留"),
    "review.retired_on_accept": ("retired if you accept", "接受后将被取代"),
    "review.accept_replacing_only": ("Accept, replacing only this one", "接受，只取代这一条"),
    "review.edit": ("Edit", "编辑"),
    "review.accept_all": ("Accept all", "全部接受"),
    "review.accepted": ("Accepted: {what} → commit {commit}", "已接受：{what} → 提交 {commit}"),
    "review.rejected": ("Rejected: {what}", "已拒绝：{what}"),
    "review.skipped": ("Skipped: {what}", "已跳过：{what}"),
    "review.whole_diff": ("The whole file's diff", "整个文件的差异"),
    "review.fields": ("Fields", "字段"),
    "review.body": ("Body", "正文"),
    "review.secret": ("Looks like a secret", "疑似密钥"),
    "review.conflict_markers": (
        "Holds conflict markers: edit the file to resolve them, then review again.",
        "含有冲突标记：请编辑文件解决冲突后再审阅。",
    ),
    "kind.pending": ("pending capture", "待确认的捕获"),
    # a session's proposal: the person's own words, from a turn of a session; said again in later sessions
    "kind.proposal": ("proposal from your conversation", "来自你的对话的提议"),
    "review.proposal_from": ("you said this in session {session}, turn {turn}", "你在会话 {session} 第 {turn} 轮说过"),
    "review.said_times": ("said {n} times", "说过 {n} 次"),
    "kind.added": ("new", "新增"),
    "kind.modified": ("edited", "已编辑"),
    "kind.deleted": ("deleted", "已删除"),
    "kind.renamed": ("moved", "已移动"),
    "kind.conflict": ("conflict", "冲突"),
    # a project memory others added or changed (a clone, a `git pull`): Accept trusts it as it is
    "kind.team": ("team change, not trusted yet", "团队改动，尚未信任"),
    "kind.broken": ("broken file", "损坏的文件"),
    "review.broken": (
        "Does not parse as a memory ({error}): fix the file, then review again.",
        "无法解析为记忆（{error}）：请修好文件后再审阅。",
    ),
    "banner.broken": (
        "{n} memory file(s) could not be read: every search, list and context leaves them out until fixed.",
        "{n} 个记忆文件无法读取：修好之前，所有搜索、列表和上下文都不包含它们。",
    ),
    "flag.stale": ("stale", "可能过时"),
    "flag.conflict": ("conflicts with another memory", "与其他记忆冲突"),
    # memory fields
    "f.title": ("Title", "标题"),
    "f.layer": ("Layer", "层"),
    "f.category": ("Category", "类别"),
    "f.scope": ("Scope", "范围"),
    "f.tags": ("Tags", "标签"),
    "f.status": ("Status", "状态"),
    "f.importance": ("Importance", "重要性"),
    "f.updated": ("Updated", "更新于"),
    "f.created": ("Created", "创建于"),
    "f.source": ("Source", "来源"),
    "f.path": ("File", "文件"),
    "f.body": ("Body (Markdown)", "正文（Markdown）"),
    "f.since": ("Updated since", "更新时间晚于"),
    "f.any": ("any", "全部"),
    # context
    "context.title": ("What the assistant sees", "助手看到的内容"),
    "context.lead": (
        "The context a new session starts with, section by section: each bar is the section's budget, "
        "how much it used, and what was left out. Type what a prompt says to preview the prompt-time context.",
        "新会话开始时注入的上下文，按部分列出：每条进度条显示该部分的预算、已用量和被舍弃的内容。"
        "输入一条提示语，可预览提示时的上下文。",
    ),
    "context.query": ("A prompt (optional)", "提示语（可选）"),
    "context.budget": ("Budget (tokens)", "预算（token）"),
    "context.preview": ("Preview", "预览"),
    "context.session_start": ("Session start", "会话开始"),
    "context.for_prompt": ("For the prompt: {q}", "针对提示：{q}"),
    "context.total": ("{used} of {budget} tokens used", "已用 {used} / {budget} token"),
    "context.section": ("{used} of {allowance} tokens", "{used} / {allowance} token"),
    "context.left_out": ("Left out", "被舍弃"),
    "context.cut": ("shortened", "已截短"),
    "context.text": ("The text, as the assistant gets it", "助手收到的原文"),
    "context.empty": ("Nothing to show yet: no memory fits.", "暂无内容：没有可放入的记忆。"),
    "context.warnings": ("Warnings", "警告"),
    "section.core": ("Core", "核心"),
    "section.session": ("Session", "会话"),
    "section.short_term": ("Short-term", "短期"),
    "section.long_term": ("Long-term", "长期"),
    # search
    "search.title": ("Search and browse", "搜索与浏览"),
    "search.query": ("Search (any language)", "搜索（中英文皆可）"),
    "search.go": ("Search", "搜索"),
    "search.none": ("No memory about that.", "没有相关的记忆。"),
    "search.count": ("{n} result(s), {mode}, {ms} ms", "{n} 条结果，{mode}，{ms} 毫秒"),
    "search.browse_count": ("{n} memories", "{n} 条记忆"),
    "search.score": ("score", "得分"),
    "search.pending": ("pending review, not yet a memory", "待审阅，尚未成为记忆"),
    "search.explain": ("Why this score", "得分说明"),
    "search.next_to": ("next to {id} in their conversation", "与 {id} 在同一段对话中相邻"),
    # memory page
    "memory.frontmatter": ("Frontmatter", "前置元数据"),
    "memory.history": ("History", "历史"),
    "memory.no_history": ("No commits yet.", "还没有提交。"),
    "memory.chain": ("Supersede chain", "取代链"),
    "memory.supersedes": ("supersedes", "取代了"),
    "memory.superseded_by": ("superseded by", "被取代于"),
    "memory.related": ("Related", "相关"),
    "memory.thread": ("Conversation", "对话"),
    "memory.anchors": ("Anchors", "锚点"),
    "memory.edit": ("Edit", "编辑"),
    "memory.save": ("Save", "保存"),
    "memory.saved": ("Saved.", "已保存。"),
    "memory.cancel": ("Cancel", "取消"),
    "memory.tags_hint": ("separated by commas", "用逗号分隔"),
    "memory.missing": ("not in the vaults", "不在记忆库中"),
    # timeline
    "timeline.title": ("Timeline", "时间线"),
    "timeline.lead": (
        "Captures, edits and lifecycle moves, from the vault's git history and its files.",
        "捕获、编辑与生命周期变化，来自记忆库的 git 历史和文件。",
    ),
    "timeline.by_day": ("By day", "按天"),
    "timeline.by_session": ("By session", "按会话"),
    "timeline.no_session": ("Outside any session", "不属于任何会话"),
    "timeline.empty": ("Nothing happened in this period.", "这段时间没有变化。"),
    "timeline.pending": ("waiting in review", "待审阅"),
    "timeline.truncated": ("Older events are not shown.", "更早的事件未显示。"),
    "timeline.unavailable": ("The timeline is not available in this version.", "此版本尚不支持时间线。"),
    "event.capture": ("captured", "捕获"),
    "event.add": ("added", "添加"),
    "event.edit": ("edited", "编辑"),
    "event.accepted": ("accepted", "接受"),
    "event.expired": ("expired", "过期"),
    "event.promoted": ("promoted", "晋升"),
    "event.archived": ("archived", "归档"),
    "event.superseded": ("superseded", "被取代"),
    "event.moved": ("moved", "移动"),
    "event.removed": ("removed", "删除"),
}


def choose_language(asked: str | None, remembered: str | None, accept_language: str | None) -> str:
    """`asked` (`?lang=`) wins, then the cookie, then the first of our languages the browser lists (by its
    q-values), else English."""
    for value in (asked, remembered):
        if value in LANGUAGES:
            return value
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate((accept_language or "").split(",")):
        name, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        language = name.strip().lower().split("-")[0]
        if language in LANGUAGES and quality > 0:
            ranked.append((-quality, position, language))
    return min(ranked)[2] if ranked else "en"


class Words:
    """`words("review.count", n=3)` in one language; a key with no row is shown as itself (a test checks
    every key the templates use has a row)."""

    def __init__(self, language: str) -> None:
        self.language = language if language in LANGUAGES else "en"
        self._column = LANGUAGES.index(self.language)

    def __call__(self, key: str, **values: object) -> str:
        row = WORDS.get(key)
        text = row[self._column] if row is not None else key
        return text.format(**values) if values else text
