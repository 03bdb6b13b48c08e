"""Capture turn by turn (capture/heard.py, capture/ledger.py, capture/distill.py; pure but the ledger's file):
what a prompt states is heard without a model; pastes — a tool's output, an assistant's answer pasted back —
are not the person's words; a request for now is not a statement, its standing clause is; said again, in the
session or in another one, a statement is one proposal, proposed first; a choice of how the thing is built is
filed as a decision. Chinese and English."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aimate_memory.capture.classify import classify
from aimate_memory.capture.distill import distill
from aimate_memory.capture.heard import heard, matches, worth_keeping
from aimate_memory.capture.ledger import LEDGER_FILE, HeardLedger
from aimate_memory.capture.rules import PERSONAL_CUES
from aimate_memory.text.typed import typed_lines


def _file(sentence: str):
    return classify(sentence, has_project=True)


def test_a_tools_output_and_an_assistants_answer_pasted_back_are_not_typed() -> None:
    turn = "\n".join(
        [
            "(base) ➜  shop git:(main) ✗ npm run build",
            "npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported",
            "FAIL  src/cart.test.js > Cart > keeps items",
            '  (use "git add <file>..." to include in what will be committed)',
            "M  src/cart.js",
            "🎯 任务：统一所有模块的数据库路径",
            "✅ 所有接口返回真实数据",
            "**Critical Issues**: must fix the cart",
            "| 模块 | 状态 |",
            "The build should always run the linter first.",
            "以后构建前都先运行 lint。",
        ]
    )
    assert typed_lines(turn) == ["The build should always run the linter first.", "以后构建前都先运行 lint。"]


@pytest.mark.parametrize(
    ("one_off", "standing"),
    [
        ("Fix the error in the cart module.", "Always keep the cart state in Pinia."),
        ("Check why the tests fail on CI.", "Target Node 20 for every build."),
        ("请你修复购物车模块的报错。", "以后购物车的状态都放在 Pinia 里。"),
        ("查看一下日志为什么没有输出。", "将日志配置拆分为独立的模块。"),
    ],
)
def test_a_request_for_now_is_not_heard_and_a_standing_statement_is(one_off: str, standing: str) -> None:
    assert heard(1, one_off) == []
    assert [statement.text for statement in heard(1, standing)] == [standing]
    assert not worth_keeping(one_off) and worth_keeping(standing)


def test_of_a_request_joined_to_a_standing_instruction_the_standing_clause_is_heard() -> None:
    assert [statement.text for statement in heard(3, "修复 cart.js 中的错误，使用中文回答")] == ["使用中文回答"]
    assert [s.turn for s in heard(3, "修复 cart.js 中的错误，使用中文回答")] == [3]


@pytest.mark.parametrize(
    "sentence",
    [
        "Move the config loading into its own module.",
        "Make it an ES module with named exports.",
        "Use httpx instead of requests for the API client.",
        "将配置加载拆分为独立的模块。",
        "使用 httpx 替代 requests 作为接口客户端。",
        "为每个服务指定专属的数据库。",
    ],
)
def test_a_choice_of_how_the_thing_is_built_is_filed_as_a_decision(sentence: str) -> None:
    (proposal,) = distill([("user", sentence)], _file, min_confidence=0.2, limit=3)
    assert proposal.kind == "decision", proposal


@pytest.mark.parametrize(
    ("rule", "decision"),
    [
        ("Never commit the .env file.", "Use pnpm instead of npm in this repo."),
        ("不要提交 .env 文件。", "使用 pnpm 替代 npm。"),
    ],
)
def test_a_rule_stays_a_rule_beside_a_decision(rule: str, decision: str) -> None:
    kinds = {p.text: p.kind for p in distill([("user", rule), ("user", decision)], _file, 0.2, 3)}
    assert kinds == {rule: "rule", decision: "decision"}


@pytest.mark.parametrize(
    ("said_twice", "other"),
    [
        ("Always answer in English.", "We decided to use Redis for the session cache."),
        ("使用中文回答。", "我们决定用 Redis 做会话缓存。"),
    ],
)
def test_a_thing_said_in_two_turns_is_one_proposal_proposed_first(said_twice: str, other: str) -> None:
    turns = [("user", other), ("assistant", "ok"), ("user", f"{said_twice}"), ("user", f"Thanks. {said_twice}")]
    proposals = distill(turns, _file, min_confidence=0.2, limit=10)
    assert [(p.text, p.turn, p.said) for p in proposals if p.text == said_twice] == [(said_twice, 3, 2)]
    assert [p.text for p in distill(turns, _file, 0.2, 1)] == [said_twice]


@pytest.mark.parametrize(
    ("before", "now"),
    [
        ("Keep the API handlers thin.", "We decided to use Redis for the session cache."),
        ("保持接口处理函数简短。", "我们决定用 Redis 做会话缓存。"),
    ],
)
def test_a_statement_heard_in_another_session_is_proposed_first(tmp_path: Path, before: str, now: str) -> None:
    ledger = HeardLedger(tmp_path / "state")
    ledger.note("claude:earlier", (s.key for s in heard(1, before)))
    turns = [("user", now), ("user", before)]
    counts = ledger.sessions_besides("claude:now")
    said_before = lambda key: counts.get(HeardLedger.hashed(key), 0)  # noqa: E731
    (first,) = distill(turns, _file, 0.2, 1, said_before=said_before)
    assert (first.text, first.said) == (before, 2)
    assert [p.text for p in distill(turns, _file, 0.2, 1)] == [now]  # without the evidence the decision leads
    # The ledger keeps hashes only, never the words; the session itself is no evidence for itself.
    text = (tmp_path / "state" / LEDGER_FILE).read_text(encoding="utf-8")
    assert before.split()[0] not in text and "接口" not in text and "earlier" not in text
    assert ledger.sessions_besides("claude:earlier") == {}
    ledger.note("claude:earlier", (s.key for s in heard(1, before)))  # noted twice: still one session
    assert list(ledger.sessions_besides("claude:now").values()) == [1]


def test_a_damaged_ledger_is_no_evidence_and_is_written_over(tmp_path: Path) -> None:
    (tmp_path / LEDGER_FILE).write_text("{not json", encoding="utf-8")
    ledger = HeardLedger(tmp_path)
    assert ledger.sessions_besides("claude:a") == {}
    ledger.note("claude:a", ["以后都用中文回答"])
    assert len(json.loads((tmp_path / LEDGER_FILE).read_text(encoding="utf-8"))) == 1


@pytest.mark.parametrize(
    ("turn", "heard_as"),
    [
        # Standing clauses said one after the other are one statement, in the person's words: the fact and the
        # decision it explains. In English the sentence is already one unit.
        (
            "修复网易爬虫，我们根本没有api获取渠道，去掉api获取部分，在原有文件修复",
            ["我们根本没有api获取渠道，去掉api获取部分"],
        ),
        (
            "Fix the netease crawler; we have no API access, so never call the API.",
            ["we have no API access, so never call the API."],
        ),
        # Items numbered inline on one line are sentences of their own; one numbered line by line already is.
        ("@netease.py 1 链接有问题 ，2 去掉api结构选项3 重构该爬虫", ["去掉api结构选项"]),
        ("1. the links are broken\n2. Avoid the API option\n3. refactor the crawler", ["Avoid the API option"]),
        # What the person needs, lacks, or found to work is a fact about the project, even beside a request.
        (
            "我是用爬取的数据来进行学习的，我需要股票基金等一些重要的数据，我发现这几个链接都有错误请你修复",
            ["我是用爬取的数据来进行学习的，我需要股票基金等一些重要的数据"],
        ),
        ("我发现使用增强命令就可以，但是是不是保存有问题，查看日志", ["我发现使用增强命令就可以"]),
        # A requirement the person sets stands, however it is asked; one a change must meet is the request's.
        ("对现在的项目进行git提交要求分步提交，描述准确", ["对现在的项目进行git提交要求分步提交，描述准确"]),
        (
            "From now on commit in small steps with accurate messages.",
            ["From now on commit in small steps with accurate messages."],
        ),
        ("按要求修复这个错误", []),
        # A question without its mark, a problem named, a description of what is used: not statements.
        ("哪些功能只是创建出来却不能使用", []),
        ("关于项目的测试要求需要遵循哪些请你列出来", []),
        ("将文件进行统一存放等问题", []),
        ("Which features were created but never worked", []),
        ("这样就可以了", []),
    ],
)
def test_what_a_chinese_turn_states_is_heard_in_the_persons_own_clauses(turn: str, heard_as: list[str]) -> None:
    assert [statement.text for statement in heard(1, turn)] == heard_as


def test_an_inline_number_that_lists_nothing_does_not_split_the_sentence() -> None:
    said = "以后所有爬虫都统一用 Vue 3 的组件库，有3个页面要改"
    assert [statement.text for statement in heard(1, said)] == [said]


@pytest.mark.parametrize(
    ("convention", "refactoring"),
    [
        ("所有爬虫统一使用 aiohttp 发送请求", "统一所有爬虫组件的接口设计"),
        ("All crawlers always send requests with aiohttp.", "Unify the interface design of all crawler components."),
    ],
)
def test_a_convention_is_proposed_before_a_refactoring_to_do_once(convention: str, refactoring: str) -> None:
    """Of a session's statements the standing ones come first (capture/distill.py): "统一用 X" sets a convention,
    "统一所有组件的接口" is a piece of work, as "unify" is in English."""
    turns = [("user", refactoring), ("user", convention)]
    [first] = distill(turns, _file, 0.0, limit=1)
    assert first.text == convention and first.standing


@pytest.mark.parametrize(
    "description",
    [
        "使用的是旧版Dart Sass 最初使用的 API，在 Dart Sass 1.45.0 中，它被一个新的现代 API 所取代。",
        "The legacy JS API is used by old Dart Sass, and it was superseded by a modern API in 1.45.0.",
    ],
)
def test_a_description_of_what_is_used_or_was_replaced_is_not_a_decision(description: str) -> None:
    assert heard(1, description) == []


@pytest.mark.parametrize(
    ("for_now", "standing"),
    [
        # "always"/"never" that describe how the thing behaves are a bug report; a rule's keep their cue.
        (
            'The "Define zone" button is always visible, and the white box never disappears.',
            "Never commit the API key to the repository.",
        ),
        # "don't need" lifts a need for now; "Do not …" is an instruction, not a question.
        (
            "We do not need to keep backward compatibility with the old parameters.",
            "Do not use the MCP server to read local files.",
        ),
        # A remark on the thing at hand ("This should …") asks for now; a thing named ("This plan should …") stands.
        ("This should consist of a list of imports and functions.", "This plan should be prefixed with `15.`."),
        # A condition about what was just done asks for now; one about what may come stands.
        (
            "If you did not do it already, create one more plan file.",
            "If your plan changes, append the reasons to the plan file.",
        ),
        # A question with alternatives asks; one that proposes one change is the person's choice.
        (
            "Should we continue here, or start a new chat?",
            "Can we put the port into a config file, instead of a magic number in multiple files?",
        ),
        # A guess is no statement; advice hedged by its own verb is.
        ("It is probably the cache.", "We should probably use `git mv` instead of mv to keep the history."),
        ("这个报错还是没有解决。", "以后端口统一放在配置文件里。"),
        ("为什么测试又失败了？", "不要在代码里写死端口号。"),
    ],
)
def test_what_holds_for_now_only_is_not_heard_and_what_stands_is(for_now: str, standing: str) -> None:
    assert heard(1, for_now) == []
    assert [statement.text for statement in heard(1, standing)] == [standing]


@pytest.mark.parametrize(
    ("turn", "instruction"),
    [
        (
            'Add this step: "Update `CLAUDE.md` to ask the user before any refactoring." If the step is unclear, ask.',
            'Add this step: "Update `CLAUDE.md` to ask the user before any refactoring."',
        ),
        ("加上这一步：“以后都用中文回答。” 这一步不清楚就问我。", "加上这一步：“以后都用中文回答。"),
    ],
)
def test_a_quoted_instruction_ends_its_sentence_at_the_closing_quote(turn: str, instruction: str) -> None:
    """'… refactoring." If the step is unclear' is two sentences: the instruction is heard without the remark
    after it (whose "unclear" would make the whole a question)."""
    assert [statement.text for statement in heard(1, turn)] == [instruction]


@pytest.mark.parametrize(
    ("turn", "heard_as"),
    [
        # A problem of the project said as a fact, naming what is broken: the person's clause, not the request.
        ("网易爬虫也没注册，请你检查这个爬虫是否正确注册", ["网易爬虫也没注册"]),
        ("用这个命令日志就无法输出到指定文件请查看相关文件并修复", ["用这个命令日志就无法输出到指定文件"]),
        ("只有东方财富的爬虫可以使用，其他三个都无法启动", ["只有东方财富的爬虫可以使用，其他三个都无法启动"]),
        ("有些连接不存在，请你核对或者搜索并修改", ["有些连接不存在"]),
        ("每条日志输出两次，一次带毫秒，一次不带毫秒", ["每条日志输出两次，一次带毫秒，一次不带毫秒"]),
        # Asked about, followed up, tied to the moment or naming nothing: a turn of the moment.
        ("还是无法启动，请找到相关问题", []),
        ("为啥无法启动请你修复", []),
        ("在添加几个css文件后页面无法正确打开", []),
        ("web页面没有显示今天爬取的文章", []),
        ("无法正常输出", []),
        ("Favicon文件缺失: 这些文件不存在", []),
        # In English a problem report is read as a request for now (its wording was not measured this round).
        ("The NetEase crawler is not registered either, please check it.", []),
        ("The page still does not load after I added the css files.", []),
    ],
)
def test_a_problem_of_the_project_said_as_a_fact_is_heard_and_one_of_the_moment_is_not(
    turn: str, heard_as: list[str]
) -> None:
    assert [statement.text for statement in heard(1, turn)] == heard_as


@pytest.mark.parametrize(
    ("wish_for_this_fix", "rule"),
    [
        ("标题显示仪表盘但是界面还是白板，排查问题，并修复不要再出现", "以后修改爬虫时不要出现低级错误"),
        ("删除 node_modules 这个文件夹不要影响提交", "不要把 node_modules 提交到仓库"),
    ],
)
def test_what_a_fix_must_not_do_again_is_no_rule(wish_for_this_fix: str, rule: str) -> None:
    assert heard(1, wish_for_this_fix) == []
    assert [statement.text for statement in heard(1, rule)] == [rule]


@pytest.mark.parametrize(
    ("user_agent", "machine"),
    [
        ("Send every request with Mozilla/5.0 (Windows NT 10.0; Win64; x64) from now on.", "I always work on Windows."),
        ("爬虫以后都用这个用户代理：Mozilla/5.0 (Windows NT 10.0; Win64; x64)", "我的电脑一直是 Windows"),
    ],
)
def test_a_user_agent_string_is_not_the_persons_machine(user_agent: str, machine: str) -> None:
    """Only what is about the person goes to the global vault (`PERSONAL_CUES`): "Windows NT" inside a
    user-agent string is what the crawler sends, not the machine the person works on."""
    assert not matches(PERSONAL_CUES, user_agent)
    assert matches(PERSONAL_CUES, machine)


@pytest.mark.parametrize(
    ("turn", "heard_as"),
    [
        # A limit of the project as it stands, said with what it can do instead or what it does not support yet.
        ("导出功能无法生成PDF只能导出图片，先这样吧", ["导出功能无法生成PDF只能导出图片"]),
        ("目前只支持 SQLite 数据库", ["目前只支持 SQLite 数据库"]),
        ("The importer currently only supports CSV files.", ["The importer currently only supports CSV files."]),
        (
            "Our sync job currently doesn't handle deleted rows.",
            ["Our sync job currently doesn't handle deleted rows."],
        ),
        # "只能" alone is a rule or a question, never this: it is heard as a rule or not at all.
        ("现在只能这样了吗", []),
        ("What does it currently support?", []),
    ],
)
def test_a_limit_of_the_project_is_heard_as_a_fact_about_it(turn: str, heard_as: list[str]) -> None:
    assert [statement.text for statement in heard(1, turn)] == heard_as
    assert all(p.kind == "knowledge" for p in distill([("user", turn)], _file, min_confidence=0.2, limit=4))


@pytest.mark.parametrize(
    ("recurring", "once"),
    [
        (
            "When reviewing a pull request, list the risky changes first.",
            "When you ran the migration, you skipped two files.",
        ),
        ("After every schema change, regenerate the client types.", "For each endpoint, include:"),
        ("Bump the changelog when releasing a new version.", "I get a warning when opening the settings page."),
        ("Squash the commits when merging a feature branch.", "And the icon flickers when starting the app."),
        ("When deploying to staging, warm the cache first.", "When deploying to staging, the cache is cleared."),
        ("在合并分支前，先跑一遍集成测试。", "在昨天合并分支的时候出了问题"),
        ("每当新增接口时，要同步更新接口文档。", "新增接口的时候报错了"),
    ],
)
def test_an_instruction_for_a_situation_that_comes_back_stands(recurring: str, once: str) -> None:
    """A situation that recurs (when doing X, after each Y, 在…前) makes its instruction hold each time — a request
    verb ("list", "run") included — while a look back, a list's header, a report or a description does not."""
    assert [statement.text for statement in heard(1, recurring)] == [recurring]
    assert [statement.text for statement in heard(1, once)] == []


@pytest.mark.parametrize(
    ("context", "recurring"),
    [
        (
            "The dashboard loads the report table from the nightly export and shows it in three panels. ",
            "When adding a migration, run the schema check first.",
        ),
        (
            "仪表盘从每晚导出的数据里读取报表，并在三个面板中展示，每个面板都有自己的筛选条件和排序方式，数据按地区汇总。",
            "在发布新版本前，先更新变更日志。",
        ),
    ],
)
def test_an_instruction_for_a_situation_that_comes_back_is_proposed_from_a_long_turn(
    context: str, recurring: str
) -> None:
    """A long turn (`LONG_TURN_CHARS`) proposes only what stands: the situation that comes back says it does."""
    turn = context * 8 + recurring
    assert len(turn) > 400
    assert [statement.in_paste for statement in heard(1, turn) if statement.text == recurring] == [True]
    assert recurring in [p.text for p in distill([("user", turn)], _file, min_confidence=0.2, limit=4)]


@pytest.mark.parametrize(
    "recurring",
    ["After every schema change, regenerate the client types.", "每当新增接口时，要同步更新接口文档。"],
)
def test_an_instruction_for_a_situation_that_comes_back_is_filed_a_rule(recurring: str) -> None:
    """Its words settle the kind: the model alone reads "After every schema change, regenerate …" as a remark."""
    assert [(p.text, p.kind) for p in distill([("user", recurring)], _file, min_confidence=0.2, limit=4)] == [
        (recurring, "rule")
    ]
