"""The secret scanner: what it catches (with examples) and what it leaves alone."""

from __future__ import annotations

import pytest

from aimate_memory.git.secrets import contains_sensitive, scan_text

# Fake credentials in the documented shapes (built by concatenation so this file itself is not a hit).
AWS_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
GH_TOKEN = "ghp_" + "a" * 36
OPENAI_KEY = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8t"


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("-----BEGIN RSA PRIVATE KEY-----", "private key"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----", "private key"),
        ("-----BEGIN PRIVATE KEY-----", "private key"),
        (f"部署用的 key 是 {AWS_ID}", "AWS access key id"),
        ("ASIA" + "Y34FZKBOKMUTVV7A temp creds", "AWS access key id"),
        (f"aws_secret_access_key = {AWS_SECRET}", "AWS secret access key"),
        (f"token {GH_TOKEN}", "GitHub token"),
        ("github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnop", "GitHub token"),
        (f"OPENAI_API_KEY={OPENAI_KEY}", "OpenAI-style API key"),
        ("sk-" + "x" * 32, "OpenAI-style API key"),
        ("xoxb-" + "123456789012-abcdefghijkl", "Slack token"),
        ("password = hunter2hunter", "password or key assignment"),
        ('api_key: "9f8e7d6c5b4a"', "password or key assignment"),
        ("数据库密码：Sup3rS3cret!", "password or key assignment"),
    ],
)
def test_catches(line: str, kind: str) -> None:
    findings = scan_text(f"# note\n\n{line}\n")
    assert [f.kind for f in findings] == [kind], findings
    assert findings[0].line == 3


def test_excerpt_is_masked() -> None:
    (finding,) = scan_text(f"key {AWS_ID} here")
    assert AWS_ID not in finding.excerpt_masked
    assert finding.excerpt_masked.startswith("key AKIA…")


@pytest.mark.parametrize(
    "line",
    [
        "We store the password in the OS keychain, never in a file.",
        "password = ${DB_PASSWORD}",
        "api_key: <your key here>",
        "password: os.environ['X']",
        "use scikit-learn (sk-learn) for the baseline",
        "选用 Redis 做会话缓存",
        "token: none",
    ],
)
def test_leaves_ordinary_text_alone(line: str) -> None:
    assert scan_text(line) == []


def test_sensitive_keywords_case_insensitive() -> None:
    findings = scan_text("Project Falcon launch date\n内部代号：青龙\n", ["falcon", "青龙"])
    assert [(f.line, f.kind) for f in findings] == [(1, "sensitive keyword"), (2, "sensitive keyword")]
    assert "Falcon" not in findings[0].excerpt_masked


def test_contains_sensitive() -> None:
    assert contains_sensitive("the PASSWORD policy", ["password"])
    assert contains_sensitive("客户名单：某某银行", ["客户名单"])
    assert not contains_sensitive("选用 Redis 做会话缓存", ["password", "secret"])
    assert not contains_sensitive(f"key {AWS_ID}", [])
    assert contains_sensitive(f"key {AWS_ID}", [], include_secrets=True)


@pytest.mark.parametrize(
    "line",
    ["password = hunter2hunter2", "db_password: 'hunter2hunter2'", "密码：hunter2hunter2", "api_key=hunter2hunter2"],
)
def test_password_values_reveal_no_character(line: str) -> None:
    from aimate_memory.git.secrets import mask_text

    (finding,) = scan_text(line)
    assert "hunt" not in finding.excerpt_masked and "****" in finding.excerpt_masked
    assert "hunt" not in mask_text(f"+{line}\n context") and mask_text("no secret here") == "no secret here"
