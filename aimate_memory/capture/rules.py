"""Capture rules as data: which words put a captured text in which layer, category and scope.

Why a table: the rules are reviewed and extended by reading them, and one loop applies them all
(docs/design.md, "Capture"). Rules are tried in table order and the first one with a matching pattern
wins, so the order encodes the precedence between overlapping cues:

- preference before everything: "I always use tabs" is a preference, not an `always` rule;
- task before decision and rule: "don't forget to …" / "明天不要忘了…" is a task, not a `don't` rule;
- decision before rule: "we decided to never use ORMs" records a decision.

`scope` None means "the project when there is one": decisions and tasks belong to the work at hand.
A rule whose `scope` is global still lands in the project when the text names the project
(`PROJECT_REFERENCES`, or a path that exists in it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from aimate_memory.vault.layout import Layer, Scope


@dataclass(frozen=True)
class CaptureRule:
    name: str
    layer: Layer
    category: str
    scope: Scope | None  # None: project when there is one (never pollute global)
    patterns: dict[str, tuple[re.Pattern[str], ...]]  # language → patterns


def _zh(*words: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(re.escape(word)) for word in words)


def _en(*phrases: str) -> tuple[re.Pattern[str], ...]:
    # Phrases are regex fragments matched on word boundaries, case-insensitively.
    return tuple(re.compile(rf"(?<![\w']){phrase}(?![\w'])", re.IGNORECASE) for phrase in phrases)


_APOSTROPHE = "['’]"
# "强制所有模块使用 X" sets a rule (a rule's cue, and one that stands); "强制刷新" / "强制推送" is an action of
# the moment.
_MANDATORY_ZH = re.compile(r"强制(?:所有|全部|统一|使用|采用|要求|每个|各)")

RULES: tuple[CaptureRule, ...] = (
    CaptureRule(
        "preference",
        Layer.CORE,
        "preference",
        Scope.GLOBAL,
        {
            "zh": _zh("我习惯", "我喜欢", "我偏好", "我更喜欢", "我倾向", "我一般用", "我通常", "我总是", "我爱用"),
            "en": _en(
                "I prefer",
                "I like(?! that)",  # "I like that we …" approves of something; it states no preference
                "I love",
                "I always",
                "I usually",
                "I normally",
                "I tend to",
                f"I{_APOSTROPHE}d rather",
                f"I(?:{_APOSTROPHE}d)? lean (?:more )?towards?",
                "my preferred",
                "my preference",
            ),
        },
    ),
    CaptureRule(
        "task",
        Layer.SHORT_TERM,
        "task",
        None,
        {
            "zh": (
                *_zh("TODO", "待办", "明天", "下周", "记得", "别忘了", "不要忘了", "不要忘记", "回头", "稍后", "截止"),
                # Left for later, said as when ("当前结构稳定后再考虑", "上线之后再优化"): what "at some point" says.
                re.compile(r"(?:之后|以后|后)再(?:考虑|做|处理|实现|优化|讨论|加)"),
            ),
            "en": _en(
                "TODO",
                "FIXME",
                "remember to",
                f"don{_APOSTROPHE}t forget",
                "do not forget",
                "tomorrow",
                "next week",
                "follow up",
                "at some point",
                f"I{_APOSTROPHE}?(?:ll| will) (?:have|need) to",
                r"fix\b.{1,80}?\bby",
                r"by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|eod|end of (?:day|week))",
            ),
        },
    ),
    CaptureRule(
        "decision",
        Layer.LONG_TERM,
        "decision",
        None,
        {
            "zh": (
                *_zh("我们决定", "决定用", "决定使用", "决定采用", "选用", "改用", "采用", "最终选择", "换成"),
                re.compile(r"(?<![你由])决定(?:进行|要|把|将|不|先|改)"),  # "由你决定" leaves it open
            ),
            "en": _en(
                "we decided",
                f"we{_APOSTROPHE}ve decided",
                "we chose",
                f"we{_APOSTROPHE}ve chosen",
                f"we{_APOSTROPHE}ll use",
                "we will use",
                f"we{_APOSTROPHE}re going with",
                "we went with",
                "we settled on",
                "switched to",
                "migrated to",
                "decided (?:to|on)",
                f"let{_APOSTROPHE}s (?:use|go with|switch to)",
            ),
        },
    ),
    CaptureRule(
        "rule",
        Layer.CORE,
        "rule",
        Scope.GLOBAL,
        {
            "zh": (
                *_zh(
                    "不要", "必须", "禁止", "严禁", "永远不", "不得", "不允许", "务必", "一定要", "切勿", "始终", "一律"
                ),
                _MANDATORY_ZH,
            ),
            "en": _en(
                "always",
                "never",
                "must",
                f"don{_APOSTROPHE}t",
                "do not",
                "make sure",
                "is forbidden",
                "not allowed",
            ),
        },
    ),
)

# What everything else becomes: a project note (global only when there is no project).
FALLBACK = CaptureRule("note", Layer.SHORT_TERM, "note", None, {})

PROJECT_REFERENCES: dict[str, tuple[re.Pattern[str], ...]] = {
    "zh": _zh("这个项目", "本项目", "该项目", "此项目", "这个仓库", "本仓库", "项目里"),
    "en": _en("this repo", "this repository", "this project", "this codebase", "our repo", "in the repo"),
}

# Words that could be a path in the project: a slash inside, or a name with a file extension.
PATH_CANDIDATE = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)+[\w.-]*|(?<![\w/.-])[\w-]+\.[A-Za-z][\w]{0,7}(?![\w/])")

# Cues the kind model reads as features besides the rules above (capture/model.py); they decide nothing alone.
CUE_FEATURES: dict[str, tuple[re.Pattern[str], ...]] = {
    "thanks": (
        *_zh("谢谢", "感谢", "多谢", "辛苦了", "麻烦了"),
        *_en("thanks", "thank you", "thx", "cheers", "appreciate(?:d)?"),
    ),
    "acknowledgement": (
        re.compile(r"^\W*(?:好的|好吧|收到|可以的?|嗯+|哈哈+|明白了?|没问题|对的?|是的|行|哦+)"),
        re.compile(
            r"^\W*(?:ok(?:ay)?|got it|sounds good|will do|sure|yes|yeah|yep|no|nope|nice|great|cool|lol|haha|wow|"
            r"oops|hmm+|hi|hello|hey|good (?:morning|night)|never ?mind)\b",
            re.IGNORECASE,
        ),
    ),
    "describes the project": (
        *_zh("本项目", "这个项目", "该项目", "本仓库", "是一个", "是一款", "旨在", "目标是"),
        *_en("this project", "this repo(?:sitory)?", r"is an? (?:\w+ ){0,4}(?:tool|library|app|framework|service)"),
    ),
    "change made": (
        *_zh("废弃", "更名", "改名", "替换为", "升级至", "升级到", "改为", "迁移到", "调整为"),
        *_en("deprecated", "renamed", "replaced", "switched", "migrated", "changed (?:from|to)", "adopted", "selected"),
    ),
    "transient": (
        *_zh("今天", "正在", "目前", "报错", "无法", "崩溃", "失败", "这周", "刚才"),
        *_en(
            "today",
            "currently",
            "right now",
            "this morning",
            "this week",
            "broken",
            "fail(?:s|ed|ing)?",
            "crash(?:es|ed)?",
            "error",
        ),
    ),
    "request": (
        *_zh("希望可以", "希望能", "能不能", "可否", "建议增加", "支持一下"),
        *_en("please add", "would be nice", "feature request", "support for", "it would be great"),
    ),
}

# What a session proposes (capture/distill.py; docs/design.md, "Capture from a conversation"). Most of what a
# person types to an assistant is a request for now ("fix this error", "请你修改 README"); a memory is what
# still holds next week. A sentence is proposed only when it says so in its words: a standing instruction
# (always/never/from now on, 以后/每次/不要), a choice or a change of it (we use…, 改用…), a fact about the setup
# (I'm using…, 我用的是…), about the person (their reply language, shell), a decision or an open task (the
# decision and task rules' cues above), a choice of how the thing is built (`DIRECTIVE_CUES`) — and it is not a
# request for now (`ONE_OFF_CUES`) unless it says it stands. Without one, a well-filed sentence is a one-off
# (capture/heard.py reads these tables; docs/design.md, "Capture from a conversation", "Turn by turn").
# Words that say it holds from now on, whatever else the sentence asks for.
LASTING_CUES: tuple[re.Pattern[str], ...] = (
    *_en("from now on", "going forward", "in the future", "every time", "each time", "whenever"),
    *_zh("以后", "今后", "每次", "始终", "永远", "一律", "总是", "一直", "记住", "任何时候"),
    # A requirement the person sets ("提交要求分步提交"), not one a change must meet ("符合要求", "按要求") nor
    # requirements named as a thing ("测试要求需要遵循哪些").
    re.compile(r"(?<!符合)(?<!满足)(?<!达到)(?<![按的])要求(?=[\u4e00-\u9fff])(?!需要|是|有|等|的)"),
)


# A change to the assistant's own instruction file (copilot-instructions.md, CLAUDE.md, AGENTS.md, .cursorrules):
# what is written there holds for every later session, even when asked as a step of this one.
INSTRUCTION_FILE_CHANGE = re.compile(
    r"\b(?:update|add to|change|edit)\b.{0,40}?(?:copilot-instructions|claude\.md|agents\.md|\.cursorrules)",
    re.IGNORECASE,
)
# How the person wants the assistant to go about any task: think first, explain the plan, ask. It holds beyond the
# task it is said in, even as one of its steps ("Then ask any questions you might have").
WAY_OF_WORKING: tuple[re.Pattern[str], ...] = _en(
    r"ask (?:me )?(?:any )?(?:clarifying )?questions",
    r"explain (?:your|the) plan",
    r"think (?:carefully|hard|step by step)",
)


def _cues(name: str, language: str) -> tuple[re.Pattern[str], ...]:
    return next(rule for rule in RULES if rule.name == name).patterns[language]


# The person's preference and a rule's must/never said in Chinese ("我更喜欢用 pytest", "我倾向于 Pinia", "严禁
# 提交密钥", "一定要先跑测试"): what "I prefer" and "must"/"never" are among the English cues below — the
# preference and rule rows' own words, one list for filing and hearing.
PREFERENCE_ZH = _cues("preference", "zh")
RULE_ZH = _cues("rule", "zh")
# An instruction for a situation that comes back ("When debugging, explain the root cause", "After each
# significant change, run the tests", "For every commit on main, we need a build", "在修改代码前，先了解上下
# 文"): it holds each time the situation does. Not a list's header ("For each test, include:"), and "when"
# must name a doing, not a moment ("When you did the review, you skipped …" looks back). Issue 39, sixth
# round: the capture bench's dev split, 7 sentences worth keeping and none to drop; the replay's development
# projects, none (a situation followed by a description, "When running the dev server, the root is …", is a fact).
RECURRING_SITUATION: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"^\W*(?:when(?:ever)? (?:\w+ing|asked)\b|(?:after|before) (?:each|every|any)\b|"
        r"(?:for|on) (?:every|each|any)\b)[^,?:]{0,60},\s*(?!(?:please|the|it|this|that|there|they)\b)\w(?!.*:\W*$)",
        re.IGNORECASE,
    ),
    # The situation said last ("Update README.md when adding significant features"): an instruction's verb first,
    # not the person ("I don't want to paint when changing …") nor a gerund ("Using X when storing … does solve").
    re.compile(
        r"^\W*(?!(?:I|we|you|it|this|that|the|there|they|but|and|so|or|then)\b)[A-Za-z]+(?<!ing)\b[^,?]{3,60}"
        r"\bwhen(?:ever)? (?:\w+ing|asked)\b",
        re.IGNORECASE,
    ),
    re.compile(r"^\W*(?:每当|在)[^，。？]{1,12}?(?:之前|之后|前|后|时)，\s*(?:请?先|再|都要|要|务必)"),
)
STANDING_CUES: tuple[re.Pattern[str], ...] = (
    *LASTING_CUES,
    *PREFERENCE_ZH,
    *RULE_ZH,
    *_en(
        "always",
        "never",
        f"don{_APOSTROPHE}t",
        "do not",
        "must",
        "should(?:n't)?",
        "prefer(?:red)?",
        f"I(?:{_APOSTROPHE}d)? lean (?:more )?towards?",
        "instead of",
        "rather than",
        "remember",
        "keep in mind",
        "note that",
        "make sure",
    ),
    *WAY_OF_WORKING,
    # A conditional instruction ("If your plan changes, append the reasons to the file"): it holds whenever
    # the condition does — unless the condition looks back at what was or was not done just now ("If you did
    # not do it already, create one more plan file"): that asks for now.
    re.compile(
        r"^\W*if (?:you|your|the|a|an|we|it)\b(?! (?:did|didn['’]t|have(?:n['’]t| not)|already)\b)[^,?]{3,80},"
        r"\s*(?!try|check|run|look|let)\w",
        re.IGNORECASE,
    ),
    *RECURRING_SITUATION,
    INSTRUCTION_FILE_CHANGE,
    # Sentence-initial "use X" / "使用X": what to build with, said as an instruction.
    re.compile(r"^\W*(?:stick (?:to|with)|switch to|go with)\b", re.IGNORECASE),
    re.compile(r"^\W*(?:使用|采用|选用|改用)(?!的)"),  # "使用的是…" describes, it does not instruct
    *_zh("不要", "别再", "不能", "必须", "应该"),
    _MANDATORY_ZH,
    # "统一用/统一为 X" sets a convention; "统一所有组件的接口" is a refactoring to do once (a directive's
    # decision at most, `DIRECTIVE_CUES`), not an instruction that stands.
    re.compile(r"统一(?:使用|用|采用|为|成|到)"),
    *_zh("注意", "而不是", "代替", "替代", "改用", "采用", "偏好"),
    # "should" and "prefer" without the person named ("应将文档移到 docs/", "优先使用 Shell 命令"); "优先级" is a
    # priority, "相应" / "响应" are other words.
    re.compile(r"(?<![响对反供适相回效])应(?:当|将|在|以)|优先(?!级)"),
)
# A choice the team lives with, said as a fact ("we use Pinia", "我们用的是 Vue 3") or as a change ("switch the
# store to Vuex", "instead of", 改用 / 换成 / 不再): filed a decision, so a later change of mind is checked
# against it (capture/conflict.py reads core rules and decisions).
CHOICE_CUES: tuple[re.Pattern[str], ...] = (
    re.compile(rf"^\W*(?:we use|we{_APOSTROPHE}?re using|we are using)\b", re.IGNORECASE),
    *_en(r"switch(?:ed)? (?:\w+ ){0,4}to", "instead of", r"(?<!I )no longer", "rather than"),
    *_zh("我们用的是", "我们使用", "我们在用", "改用", "换成", "改为", "不再用", "不再使用"),
    re.compile(r"[：:]\s*选用?\s*[A-Za-z\u3400-\u9fff]"),  # a plan's "桌面端：选 Element Plus"
)
# The project's state as the person made it, what the assistant did not see (`FACT_CUES`): a change they made
# themselves ("I updated the loader's path", "added basic testing with vitest", "I've made a new directory").
MADE_BY_THE_PERSON: tuple[re.Pattern[str], ...] = (
    re.compile(
        rf"^\W*(?:(?:I|we)(?:{_APOSTROPHE}ve| have)? )?(?:updated|added|installed|configured|set up|moved|renamed|"
        r"made an? new (?:directory|folder|file|module|branch))\b"
        r"(?! (?:it|them|this|that|these|those)\b)",  # "I moved them higher up" points at the chat, not the project
        re.IGNORECASE,
    ),
)
# Where things of the project live (`DIRECTIVE_CUES`).
PLACEMENT_CUES: tuple[re.Pattern[str], ...] = (
    # Where things of a kind live: saved, put or created in a folder of the project ("save the plan as a
    # markdown file in `notes/plans`", "create a plan for this review in `docs/plans/`").
    re.compile(
        r"\b(?:save|put|place|store|keep|create|write) (?:[\w`.-]+ ){0,8}(?:in|into|under) [`'\"]?[\w.-]*[/\\]",
        re.IGNORECASE,
    ),
    # A file of the project created at a path of its own ("create a new file, docs/src/color/color-system.md",
    # "Create `docs/plans/refactor.md` with:"): where the thing lives from now on, as the folder rule above.
    re.compile(
        r"\bcreate (?:an? )?(?:new )?(?:file|document|doc)?,?\s*[`'\"]?[\w.-]+/[\w./-]*\.[A-Za-z]\w{0,7}\b",
        re.IGNORECASE,
    ),
)
# How the code behaves over time, which part answers for what, or what a tool of the project holds against it,
# said as a fact: an object of the code made, dropped or rebuilt at the moments it names ("the drawingLayer is
# disposed of and recreated at various times - such as rotation", "画布在每次旋转后都会被销毁并重新创建"), and a
# checker objecting to the code ("Javascript Standard Style is unhappy with this file", "ESLint 对这个文件不满
# 意"). What the assistant cannot see in the code at hand and later requests build on (`FACT_CUES`: filed
# knowledge). A lifecycle verb alone ("the cache is cleared") is a request's outcome as often as a fact: the
# moment it happens at is what makes it behaviour.
_LIFECYCLE_EN = (
    r"(?:disposed(?: of)?|destroyed|re-?created|rebuilt|regenerated|re-?initiali[sz]ed|reset|replaced|removed)"
)
BEHAVIOUR_CUES: tuple[re.Pattern[str], ...] = (
    re.compile(
        rf"\b(?:is|are|gets?) {_LIFECYCLE_EN}(?: and {_LIFECYCLE_EN})? (?:at (?:various|different|several) times?|"
        r"(?:on|after|before|during) (?:every|each|any)|whenever|every time|each time)\b",
        re.IGNORECASE,
    ),
    re.compile(r"(?:每次|每当|各种时候|不同时候).{0,20}?(?:都会?|就会?)被?(?:销毁|重建|重新创建|重置|替换|移除)"),
    # Which part of the code answers for what ("the external code is responsible for disposing of it", "由调用方负责
    # 释放"): the contract the parts keep.
    re.compile(r"\b(?:is|are) (?:responsible|in charge) for\b", re.IGNORECASE),
    re.compile(r"由.{1,20}?负责|负责(?:释放|销毁|清理|创建|管理|关闭)"),
    re.compile(r"\b(?:is|are) (?:unhappy|not happy) (?:with|about)\b|\bcomplains? (?:about|that)\b", re.IGNORECASE),
    re.compile(r"对.{1,20}?(?:不满意|有意见)"),
)
FACT_CUES: tuple[re.Pattern[str], ...] = (
    re.compile(
        rf"^\W*(?:(?:however|but|also|and|so|btw),? )?(?:I{_APOSTROPHE}?m (?:using|running|on)|I use|"
        r"(?:my|our) \w+(?: \w+)?(?:, [\w.-]+,?)? (?:is|are|runs)|it is currently|this (?:is|app|project))\b",
        re.IGNORECASE,
    ),
    re.compile(r"\b(?:is|are) (?:running|hosted|deployed|installed) (?:in|on|within|inside)\b", re.IGNORECASE),
    # What the project is, named by what it is built with ("I need to debug a Nuxt 2 project", "this is a Vue 3
    # app"): the stack's name is capitalized, as a product's name is ("a New project" is no stack).
    re.compile(r"\b(?:a|an|this|our|my) [A-Z][\w.+-]*(?: \d[\w.]*)? (?:project|app|application|codebase|site)\b"),
    # How the thing behaves unless told otherwise, and a change the person made to it themselves ("I updated
    # the loader's path", "added basic testing with vitest"): facts about the project the assistant did not see.
    *_en("by default"),
    *MADE_BY_THE_PERSON,
    re.compile(r"我(?:用的是|使用的是|在用|的\S{1,8}是)|本项目|这个项目|目前(?:是|使用|用)"),
    # What the person has, lacks or needs, and what it is for ("我们根本没有api获取渠道", "我需要股票基金的数据",
    # "我是用爬取的数据来学习的"), and what works when ("使用增强命令就可以"): facts a later session builds on.
    re.compile(r"我们?(?:根本|并|也|还|目前)?(?:没有|需要)|我是用.{1,20}?来"),
    re.compile(r"(?<!这样)(?<!那样)(?<!这么)(?:就|才)(?:可以|能用|能正常|行)(?![吗了么])"),
    *BEHAVIOUR_CUES,
)
# About the person wherever they work (the language of replies, their shell, OS or editor): the only
# proposals filed in the global vault; everything else said in a project is about that project.
PERSONAL_CUES: tuple[re.Pattern[str], ...] = (
    *_en(
        # "Reply in English", "Answer my questions in English"
        r"(?:answer|reply|respond|write|talk)(?: to me| my (?:questions|messages|prompts))? in "
        r"(?:english|chinese|german|french|spanish|japanese)",
        "zsh",
        "bash",
        "fish shell",
        "powershell",
        "macbook",
        "macos",
        "os ?x",
        "windows(?! ?nt)",  # a user agent's "(Windows NT 10.0; Win64)" says nothing about the person
        "linux",
        "my editor",
        "vs ?code",
        "neovim",
        "vim",
        "emacs",
    ),
    *_zh("中文回答", "中文回复", "用中文", "英文回答", "英文回复", "用英文", "我的电脑", "我的系统", "我的编辑器"),
)

# A question that proposes one change of how the thing is built or set up ("Can we put the port into a config
# file, instead of a magic number in multiple files?", "Is it possible to mark the node engine for any LTS
# version?"): the person's choice, asked politely — a decision, not a question (`NOT_A_STATEMENT` lets it
# through). One that offers alternatives ("Should we continue here, or start a new chat?") still asks.
PROPOSED_CHANGE: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"^\W*(?:(?:so|and|also|but),? )?(?:(?:can|could|shall) we|is it possible to) (?:just |also )?"
        r"(?:use|make|keep|move|place|put|target|store|name|prefix|rename|split|separate|merge|combine|replace|"
        r"adopt|base|structure|organi[sz]e|go with|stick (?:to|with)|avoid|skip|limit|default to|switch|mark|set)\b"
        r"(?!.*\bor\b)",
        re.IGNORECASE,
    ),
)
# How the code is to be divided, proposed for parts the person names ("Functions like `flip` and `mirror` seem
# like they could form a "canvas transforms" module", "the parsers should be extracted into their own file", "这些
# 函数可以抽成一个独立的模块"): a choice of structure that the next sessions' requests build on, even when its
# modal softens it (a guess's "maybe" / "I think" / 可能 still makes it no statement, `NOT_A_STATEMENT`). A part
# becoming a unit of its own: a module, file, class, component, package.
_UNIT_EN = r"(?:module|package|component|class|service|library|file|folder|directory)s?"
STRUCTURE_CUES: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"\b(?:could|should|would|can|might|will)\s+(?:\w+\s+)?(?:form|become|make up|"
        r"be (?:extracted|moved|split|pulled|grouped|combined|merged)(?:\s+out)?\s+(?:in)?to|go\s+(?:in)?to|"
        r"live in|belong (?:in|to))\s+(?:a|an|its own|their own|one|the)\b[^.?!]{0,50}?\b" + _UNIT_EN + r"\b",
        re.IGNORECASE,
    ),
    re.compile(
        r"(?:可以|应该|应当|能|该)(?:组成|构成|合并[成为]|抽[成取出]|抽取[成为]|提取[成为]|拆[成分]|拆分[成为]|独立[成为]|"
        r"单独[成为]|放[进入到]|归入)(?:成|为)?(?:一个|独立的|单独的|各自的)?.{0,20}?(?:模块|组件|类|文件|包|服务|库|目录)"
    ),
)
# A choice of how the thing is built, said as an instruction about its shape rather than a task for now ("Make it
# an ES6 module", "Target latest Chrome", "Place the plans into docs/plans", "将调度逻辑与爬虫逻辑分离", "使用 aiohttp
# 替代 requests", "为每个爬虫指定专属数据库"): on the replay's projects most decisions are said this way, without "we
# decided". Verbs of structure, placement and choice; a sentence with one is a decision unless a rule's cue
# (always/never/不要/必须) makes it a standing rule.
DIRECTIVE_CUES: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"^\W*(?:(?:yes|ok(?:ay)?|also|and|then|so|please|let['’]s|we should|we will|we['’]ll)\W+)*"
        r"(?:use|make (?:it|them|this|that|the)|keep|move (?!on\b)(?:[\w`./\\-]+ ){0,4}(?:to|toward|towards|into)|"
        r"place|put|target|"
        r"store|name|prefix|rename|split|separate|merge|combine|replace|adopt|base|structure|organi[sz]e|"
        r"go with|stick (?:to|with)|prefer|avoid|skip|limit|default to)\b",
        re.IGNORECASE,
    ),
    *_en(
        r"should (?:be|use|go|live|stay|remain|contain|follow|only)",
        r"(?:will|shall) (?:use|be using)",
        "instead of",
        "rather than",
        "as the (?:default|standard|source of truth)",
        "source of truth",
        r"is the most (?:critical|important)",
    ),
    *PLACEMENT_CUES,
    *STRUCTURE_CUES,
    re.compile(r"将.{1,40}?(?:改为|改成|拆分|分离|统一|迁移|合并|整合|放在|放到|存放|替换|指定|设为|设置为|去掉)"),
    re.compile(r"^\W*(?:(?:使用|采用|选用|改用)(?!的)|统一|基于|避免|跳过|保留|保持|去掉|移除|为每个|所有)"),
    re.compile(r"(?<![所被])(?:替代|代替|取代)"),  # "被新的 API 所取代" tells what happened, it decides nothing
    # Built the way another part is ("新浪爬虫使用和东方财富爬虫相同的方式爬取"): a convention the parts share.
    re.compile(r"(?:和|与|跟|同|按照?|参照).{1,20}?(?:相同|一样|一致)的?(?:方式|方法|做法|风格|格式|结构|逻辑|写法)"),
    *_zh("专属", "统一使用", "统一为", "统一到", "分离", "拆分为", "放在", "存放在"),
    *PROPOSED_CHANGE,
)
# Words of a rule's cue that set no rule: "always" and "never" that tell how the thing behaves ("the bounding
# box never disappears", "the button is always visible", "it is almost never the case", "the error does not
# always occur") — a bug report; and "don't" that lifts a need rather than forbids ("we do not need to keep
# backward compatibility", "you don't need the MCP server to read files", "I don't want to paint by accident")
# — a remark for now. Read out of a sentence before its cues are (capture/heard.py); a passive rule ("the key
# is never committed") keeps its cue.
NO_RULE_MEANT: tuple[re.Pattern[str], ...] = _en(
    r"(?:almost|nearly|not|n['’]t) (?:always|never)",
    r"(?:is|are|was|were|will be) (?:always|never)(?! \w+ed\b)",
    r"(?:always|never) (?:appears?|disappears?|occurs?|happens?|works?|shows?|returns?|fails?|changes?)",
    rf"(?:do|does|did)(?: not|n{_APOSTROPHE}t) (?:need|want|have)",
)
# The same in Chinese: what the fix at hand must not do again, break or get wrong ("修复不要再出现", "删除这个文件
# 不要影响提交", "恢复到以前的样子不要出错") is a wish for this change, no rule ("不要出现低级错误" keeps its cue: it
# holds for every change).
NO_RULE_MEANT_ZH: tuple[re.Pattern[str], ...] = (re.compile(r"不要再出现|不要影响|不要出错"),)
# A problem of the project the person reports as a fact, naming what is broken ("网易爬虫也没注册", "web页面无法
# 启动", "有些连接不存在", "每条日志输出两次", "只有东方财富的爬虫可以使用"): the state later requests build on
# ("请你检查这个爬虫是否正确注册" the next day), filed knowledge of the project's state. Its own 无法 is no request
# for now (`heard.reports_problem` hears it before `ONE_OFF_CUES` are read); a request, a question or "还是不行"
# in the same clause still is one. Chinese wording only: English problem reports were not measured here.
BROKEN_STATE: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"(?:无法|不能|没有?|未能?|都无)(?:正常|正确|成功)?(?:启动|运行|输出|注册|显示|爬取|加载|保存|打开|使用|写入|生效)"
    ),
    re.compile(r"(?<![是否])不存在"),
    re.compile(r"(?:输出|显示|保存|执行|运行|写入)了?(?:两|多)次"),
    re.compile(r"只有(?=.{1,20}?(?:可以|能))"),  # what still works names what does not
)
# A limit of the project as it stands, said with what it can do instead or what it does not support yet ("无法爬取
# 内容只能创建爬虫", "目前不支持对文件的 mock", "当前只支持中文模板", "the exporter currently only supports PNG",
# "the CLI currently doesn't support default arguments"): a problem of the project's state (`BROKEN_STATE`), named
# by its own words, that later requests work around. Issue 39, sixth round: newly heard on the replay's development
# projects 1 statement and nothing else, on the capture bench's dev split 1 sentence worth keeping and none to drop
# (3 more of its sentences have the shape and stay unheard for other words: "…导致一定的问题" ends on a problem).
LIMITATION: tuple[re.Pattern[str], ...] = (
    re.compile(r"(?:无法|不能|没法)[^，。；,;]{1,16}?只能"),
    re.compile(r"(?:当前|目前|暂时)[^，。；,;]{0,12}?(?:不支持|只支持|仅支持)"),
    re.compile(
        r"\bcurrently (?:only (?:supports?|works?|runs?)|(?:does not|doesn't|do not|don't|cannot|can't) "
        r"(?:support|handle|work))\b",
        re.IGNORECASE,
    ),
)
# A clause that reports a problem but asks about it or follows one up ("还是无法启动", "为啥无法启动", "请你修…"),
# ties it to the moment ("今天爬取的文章", "在添加几个css文件后…", "在没有启动时") or quotes a report ("Favicon文件
# 缺失: …"): a turn of the moment, not the state itself.
PROBLEM_OF_THE_MOMENT = re.compile(
    r"还是|^\W*(?:还|依然|仍然|又)|请|修|帮|为啥|为什么|什么|怎么|检查|查看|提示|今天|刚才|刚刚|现在|这次"
    r"|在.{1,24}?[后时]|[\u4e00-\u9fff][：:]"
)
# Advice hedged by its own verb ("we should probably use `git mv` instead of mv"): still the person's choice,
# not a guess — the hedge is read out before `NOT_A_STATEMENT` is.
HEDGED_ADVICE = re.compile(r"\b(should|ought to)\s+(?:probably|maybe|perhaps)\b", re.IGNORECASE)

# A request for the work at hand, however it is worded (docs/design.md, "One-off requests"): it points at the
# thing in front of the person now — these changes, this error, the message just asked for, what the assistant
# answered — asks for a piece of work for them ("帮我…", "给我写…", "write me …", "…写一下"), or is one step of the
# task in progress ("then rename …", "然后…"). Read on every path: a turn's sentence with one is never proposed
# (capture/heard.py), and `remember` files one as a task for now, not a standing rule (capture/classify.py) —
# unless it also says it stands ("from now on write the commit message in English", "以后每次都帮我…").
AT_HAND_CUES: tuple[re.Pattern[str], ...] = (
    *_en(
        r"(?:these|those) (?:changes|edits|modifications|diffs?|files|errors|tests)",
        r"this (?:approach|change|diff|pr|pull request|commit|branch|message|output|answer|reply|session|chat|"
        r"conversation|task|error|bug|exception|failure)",
        r"(?:the|my) (?:changes|edits) (?:I|you|we) (?:just )?(?:made|did)",
        r"(?:create|write|generate|draft|suggest|give me|prepare) (?:an? |the )?(?:git )?commit message",
        r"(?:write|give|show|make|create|generate|draft|find|send) me",
        "for me",
        r"so (?:that )?I can",
        # What the assistant said, taken as it stands ("Let's go with your recommendation", "do what you
        # suggested"): a choice that names nothing of its own.
        r"your (?:recommendation|suggestion|proposal|proposed|idea|option|answer|reply|last (?:answer|reply|message))",
        r"(?:what|as) you (?:suggested|recommended|proposed|said)",
        f"I{_APOSTROPHE}?(?:d| would) like (?:you )?to",
        r"I want you to",
    ),
    # One step of the task in progress: the sentence begins with what comes next.
    re.compile(r"^\W*(?:(?:and|ok(?:ay)?),? )?(?:then|next|after that|afterwards),?\s+\w", re.IGNORECASE),
    *_zh("这次", "本次", "此次", "这些改动", "这些修改", "这些变更", "刚才", "刚刚", "上面的", "上述"),
    *_zh("帮我", "帮忙", "给我写", "给我生成", "写一下", "改一下", "弄一下", "处理一下", "我想让你", "我想要你"),
    *_zh("你的建议", "你说的", "你推荐的", "按你的"),
    re.compile(r"^\W*(?:然后|接着|接下来)"),
    # "请把 A 改成 B": one change, asked once.
    re.compile(r"请(?:你)?(?:帮我)?把.{1,40}?(?:改成|改为|换成|替换成|替换为)"),
)

# A request for now, the most common thing a person types ("fix the error", "check the logs", "请你修复", "查看
# 日志"): with none of the cues of something that stands (a rule's always/never, a decision, the person's own
# setup), a sentence that asks for one of these is not proposed, whatever its other words.
ONE_OFF_CUES: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"^\W*(?:(?:ok(?:ay)?|now|so|then|please|can you|could you|would you)\W+)*"
        r"(?:fix|check|look(?: at| into)?|analy[sz]e|debug|investigate|explain|run|try|test|show|tell|help|"
        r"continue|review|find|see|read|commit|create a commit|summari[sz]e|diagnose|troubleshoot|verify|"
        r"go ahead|proceed|undo|revert|retry)\b",
        re.IGNORECASE,
    ),
    *_en(
        "(?:this|that|the|an?) (?:error|bug|exception|warning|failure|issue|problem)",
        r"(?:is|are) (?:not|n['’]t) working",
        r"does(?: not|n['’]t) work",
        "still (?:fails|failing|broken|not)",
        "commit message",
        # A remark on the thing at hand, the answer or file just shown ("This should consist of a list of
        # imports", "These should only be using X", "This is an instructions file for copilot").
        r"^\W*(?:this|these|that|those) should",
        r"^\W*this is (?:a|an|the) (?:[\w-]+ ){0,3}file",
        # The work at hand bounded or judged for now ("Please limit your fixes to `sketch.js`", "One file should be
        # enough", "the arrow keys do work as expected").
        r"your (?:fix(?:es)?|changes|edits)",
        r"should be (?:enough|sufficient|fine|ok(?:ay)?)",
        "as expected",
        # Housekeeping of the moment in git: what was staged or committed just now.
        r"(?:to|the) stag(?:e|ing)",
        "WIP",
        r"git commit",
    ),
    *_zh(
        "修复",
        "检查",
        "查看",
        "看看",
        "看一下",
        "分析",
        "排查",
        "解释",
        "帮我",
        "继续",
        "报错",
        "出错",
        "错误",
        "无法",
        "不能正确",
        "运行一下",
        "测试一下",
        "核对",
        "提交",
        "试试",
    ),
)

# Never a memory whatever else it says: a question, a guess, or the person saying they do not know.
NOT_A_STATEMENT: tuple[re.Pattern[str], ...] = (
    re.compile(r"[?？]\W*$|[吗呢么]\W*$"),
    re.compile(
        # "Do not …" is an instruction, not a question, and so is "When …, do …" / "When I said X - use Y": a
        # clause before the main one.
        r"^\W*(?:what|why|how|which|who|when(?![^,?]*(?:,| - | – ))|where|should|shall|can|could|would|will|"
        r"do(?! not\b)|does|did|is|are|"
        r"was|were|have|has|any idea)\b",
        re.IGNORECASE,
    ),
    *_en(f"I don{_APOSTROPHE}t (?:know|understand|think)", "not sure", "unclear", "I wonder", "it turns out"),
    *_en("I think", "I assume", "I guess", "possibly", "probably", "maybe", "perhaps"),
    # What would follow if ("This would allow the user to …"): a thought about a change, not how things stand.
    re.compile(r"^\W*(?:this|that|it) would\b", re.IGNORECASE),
    *_zh("是不是", "不知道", "不确定", "为什么", "怎么", "能否", "是否", "可能", "也许", "大概", "或许"),
    # A question without its mark ("哪些功能只是创建出来缺不能使用", "需要遵循哪些"), or naming a problem ("…等问题").
    re.compile(r"哪些|哪个|哪里|哪儿|(?<!我的)问题\W*$"),  # "中文回答我的问题" asks nothing
    # What the client wrote around the person's request, the same words in every project and language (Cursor's
    # "Fix in Chat": "For the code present, we get this error: … How can I resolve this? If you propose a fix,
    # please make it concise."): said in many turns, it would look like the person's most repeated instruction.
    *_en("If you propose a fix, please make it concise", "For the code present, we get this error"),
)
