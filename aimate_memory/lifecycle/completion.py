"""Which open tasks a session finished (pure; docs/lifecycle.md "Tasks the person finishes"): the person said
so — a sentence with a completion cue that names the task ("the login test is fixed now", "分页已完成") — or a
commit of the session closes it (a subject opening with a closing verb that names the task: "Fix flaky
login test"). Naming means sharing most of the task's content words, so a passing "done" or an unrelated
commit closes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from aimate_memory.text.stopwords import EN_STOPWORDS, ZH_STOPWORDS
from aimate_memory.text.words import tokens

# The person says a piece of work is finished (English and Chinese, as people write it).
DONE_CUES = re.compile(
    r"\b(?:done|finished|completed|fixed|resolved|implemented|solved|closed|works now|is working)\b|"
    r"已完成|完成了|做完了|搞定|修好了|已修复|修复了|解决了|已解决|实现了|已实现|好了",
    re.IGNORECASE,
)
# …unless it says it is not, or only will be ("done when the API settles", "还没修好").
NOT_YET = re.compile(
    r"\b(?:when|once|after|until|will|not|yet|if|should|needs?)\b|n['’]t\b|还没|没有|未|如果|之后|以后|等.{0,12}再",
    re.IGNORECASE,
)
# A commit that closes work: its subject opens with one of these verbs (or says it closes/fixes something).
CLOSING_COMMIT = re.compile(
    r"^\s*(?:fix(?:e[sd])?|add(?:s|ed)?|implement(?:s|ed)?|close[sd]?|resolve[sd]?|finish(?:es|ed)?|"
    r"complete[sd]?|修复|完成|实现|添加|新增|增加|解决)|\b(?:closes|fixes|resolves)\b",
    re.IGNORECASE,
)
OWN_COMMITS = "memory: "  # the tool's own commits (`memory: add "…"`) record memories, not work
# A task's own markers are not what it is about.
TASK_MARKERS = re.compile(r"\b(?:todo|fixme|task)\b|待办|任务", re.IGNORECASE)
NAMED_SHARE = 0.6  # of the task's content words, in the sentence or the commit subject
MIN_WORDS = 2  # a task named by one word ("tests") is too vague to close


def closing_reports(said: Sequence[str], subjects: Sequence[str]) -> list[str]:
    """The person's sentences (`said`) that report work done and the commit subjects that close work."""
    reports = [sentence for sentence in said if DONE_CUES.search(sentence) and not NOT_YET.search(sentence)]
    work = [subject for subject in subjects if not subject.startswith(OWN_COMMITS)]
    return reports + [subject for subject in work if CLOSING_COMMIT.search(subject)]


def finished_tasks(tasks: Sequence[tuple[str, str]], reports: Sequence[str]) -> list[str]:
    """Ids of `tasks` ((id, text)) that one of the `reports` (`closing_reports`) names."""
    found = [_content(report) for report in reports]
    closed = []
    for task_id, text in tasks:
        wanted = _content(text)
        if len(wanted) >= MIN_WORDS and any(len(wanted & words) >= NAMED_SHARE * len(wanted) for words in found):
            closed.append(task_id)
    return closed


def _content(text: str) -> set[str]:
    """The words that say what a text is about: tokens without stopwords and task markers."""
    about = TASK_MARKERS.sub(" ", DONE_CUES.sub(" ", text))
    return {token for token in tokens(about) if token not in EN_STOPWORDS and token not in ZH_STOPWORDS}
