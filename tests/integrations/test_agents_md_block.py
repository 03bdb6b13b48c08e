"""The managed AGENTS.md / CLAUDE.md block: bytes outside it never change."""

from __future__ import annotations

import pytest

from aimate_memory.integrations.agents_md import (
    BEGIN,
    END,
    is_fresh,
    line_ending,
    remove_block,
    render_block,
    replace_block,
)
from aimate_memory.integrations.edits import ConfigSyntaxError
from aimate_memory.vault.layout import Scope

CORE_ZH = "### 包管理\n\n本项目只用 pnpm，不用 npm。"
CORE_EN = "### Tests\n\nRun `pytest -x -q` before every commit."
USER_TEXT = "# 项目说明 / Project notes\n\nHand-written: keep   odd  spacing.\r\nWindows line.\n\n\n末尾的空行。\n"


@pytest.mark.parametrize("core", [CORE_ZH, CORE_EN])
def test_block_appended_after_one_blank_line_and_replaced_in_place(core: str) -> None:
    block = render_block(core)
    assert block.startswith(BEGIN) and block.endswith(END) and core in block
    written = replace_block(USER_TEXT, block)
    assert written == USER_TEXT + "\n" + block + "\n"
    assert is_fresh(written, block) and not is_fresh(USER_TEXT, block) and not is_fresh(None, block)
    newer = render_block(core + "\n\n### 新规则\n\n只写类型提示完整的代码。")
    rewritten = replace_block(written, newer)
    assert rewritten == USER_TEXT + "\n" + newer + "\n"
    assert not is_fresh(written, newer) and is_fresh(rewritten, newer)


def test_block_in_the_middle_keeps_text_on_both_sides() -> None:
    before, after = "# Top\n\n", "\n\n## Below the block\n中文。"
    text = before + render_block(CORE_EN) + after
    replaced = replace_block(text, render_block(CORE_ZH))
    assert replaced == before + render_block(CORE_ZH) + after
    assert remove_block(replaced) == before + after


def test_missing_file_gets_only_the_block_and_removal_deletes_it() -> None:
    block = render_block("")
    assert "No project core memories yet" in block
    assert replace_block(None, block) == block + "\n"
    assert remove_block(replace_block(None, block)) is None
    assert remove_block(replace_block(USER_TEXT, block)) == USER_TEXT
    assert remove_block(USER_TEXT) == USER_TEXT


def test_a_cut_block_is_an_error_not_a_guess() -> None:
    with pytest.raises(ConfigSyntaxError, match="aimate:end"):
        replace_block(f"intro\n{BEGIN}\nhalf a block\n", render_block(CORE_EN))
    with pytest.raises(ConfigSyntaxError, match="aimate:begin"):
        remove_block(f"intro\n{END}\n")


@pytest.mark.parametrize("core", [CORE_ZH, CORE_EN])
def test_a_crlf_file_gets_a_crlf_block_and_loses_it_exactly(core: str) -> None:
    crlf = "# 项目 / Project\r\n\r\nBuild with `make`.\r\n"
    written = replace_block(crlf, render_block(core))
    assert "\n" not in written.replace("\r\n", "")  # no bare LF line in a CRLF file
    assert written.startswith(crlf + "\r\n" + BEGIN) and written.endswith(END + "\r\n")
    assert is_fresh(written, render_block(core)) and remove_block(written) == crlf
    assert line_ending(crlf) == "\r\n" and line_ending("a\nb\r\nc\n") == "\n" and line_ending(None) == "\n"


def test_block_headings_nest_under_one_section() -> None:
    for scope in (Scope.PROJECT, Scope.GLOBAL):
        block = render_block(CORE_EN, scope)
        headings = [line.split(" ", 1)[0] for line in block.splitlines() if line.startswith("#")]
        assert headings == ["##", "###"]  # was `## Memory` then `# Core memory`
    assert "Project memory" in render_block(CORE_ZH) and "Personal memory" in render_block(CORE_ZH, Scope.GLOBAL)
