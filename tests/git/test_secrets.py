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
        ("https://hooks.slack.com/services/" + "T0000/B0000/XXXXXXXXXXXX", "Slack webhook"),
        ("the admin password is hunter2hunter2", "password stated in words"),
        ("password = hunter2hunter", "password or key assignment"),
        ('api_key: "9f8e7d6c5b4a"', "password or key assignment"),
        ("数据库密码：Sup3rS3cret!", "password or key assignment"),
    ],
)
def test_catches(line: str, kind: str) -> None:
    findings = scan_text(f"# note\n\n{line}\n")
    assert [f.kind for f in findings] == [kind], findings
    assert findings[0].line == 3


def test_every_kind_has_a_case_above() -> None:
    """The trigger words (secrets.TRIGGERS) let a line skip the patterns: a kind without a case here could
    lose its trigger unnoticed."""
    from aimate_memory.git.secrets import SECRET_KINDS

    cases = {kind for _, kind in test_catches.pytestmark[0].args[1]}
    assert cases | {"sensitive keyword"} == set(SECRET_KINDS)


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


# -- issue 25: every finding masked, passwords in words, bytes in any encoding -----------------------


def test_every_excerpt_masks_every_secret_on_its_line() -> None:
    from aimate_memory.git.secrets import mask_text

    line = f"keys {AWS_ID} and {GH_TOKEN}; 密码：hunter2hunter2"
    findings = scan_text(line)
    assert [f.kind for f in findings] == ["AWS access key id", "GitHub token", "password or key assignment"]
    for finding in findings:
        assert AWS_ID[4:] not in finding.excerpt_masked and GH_TOKEN[4:] not in finding.excerpt_masked
        assert "hunter2" not in finding.excerpt_masked
    assert mask_text(line) == "keys AKIA…**** and ghp_…****; 密码：****"


def test_a_keyword_said_twice_is_masked_twice() -> None:
    (finding,) = scan_text("Falcon ships before falcon-2", ["falcon"])
    assert "alcon" not in finding.excerpt_masked


def test_a_secret_far_into_a_long_line_is_in_its_excerpt() -> None:
    (finding,) = scan_text("x" * 300 + f" token {GH_TOKEN} " + "y" * 300)
    assert "ghp_…****" in finding.excerpt_masked and len(finding.excerpt_masked) <= 101


@pytest.mark.parametrize(
    "line",
    [
        "the admin password is hunter2hunter2",
        "The password for prod is 'Tr0ub4dor&3'.",
        "my passphrase was correcthorsebatterystaple",
        "数据库密码是 hunter2hunter2",
        "生产库的密码是hunter2hunter2，别外传",
        "口令为 Sup3rS3cret!",
        "口令：hunter2hunter2",
    ],
)
def test_passwords_stated_in_words_are_caught(line: str) -> None:
    from aimate_memory.git.secrets import mask_text

    findings = scan_text(line)
    assert findings and findings[0].kind.startswith("password"), findings
    for secret in ("hunter2", "Tr0ub4dor", "correcthorse", "Sup3rS3cret"):
        assert secret not in findings[0].excerpt_masked and secret not in mask_text(line)


@pytest.mark.parametrize(
    "line",
    [
        "the password is stored in the keychain",
        "the password is required",
        "Password is `$DB_PASSWORD` from the environment",
        "密码是必填的",
        "密码是 none",
        "口令为空时拒绝登录",
    ],
)
def test_talk_about_passwords_is_not_a_password(line: str) -> None:
    assert scan_text(line) == []


ENCODINGS = {
    "nul-appended": lambda text: text.encode("utf-8") + b"\x00",
    "utf16-bom": lambda text: text.encode("utf-16"),
    "utf16le": lambda text: text.encode("utf-16-le"),
    "utf16be": lambda text: text.encode("utf-16-be"),
    "utf8-bom": lambda text: text.encode("utf-8-sig"),
    "gb18030": lambda text: text.encode("gb18030"),
    # UTF-16 one byte off: the Chinese reads as noise, the ASCII value survives the NUL-dropping reading
    "utf16-odd-offset": lambda text: b"\x00" + text.encode("utf-16-le"),
}


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
@pytest.mark.parametrize(
    ("text", "kind"),
    [(f"部署 token {GH_TOKEN}\n", "GitHub token"), ("数据库密码是 hunter2hunter2\n", "password stated in words")],
)
def test_scan_bytes_reads_any_encoding(encoding: str, text: str, kind: str) -> None:
    from aimate_memory.git.secrets import scan_bytes

    if encoding == "utf16-odd-offset" and kind != "GitHub token":
        text, kind = "db password = hunter2hunter2\n", "password or key assignment"
    found = scan_bytes(ENCODINGS[encoding](text))
    assert [f.kind for f in found][:1] == [kind], found
    assert all("hunter2" not in f.excerpt_masked and GH_TOKEN[4:] not in f.excerpt_masked for f in found)


def test_scan_bytes_skips_secrets_the_old_version_held() -> None:
    from aimate_memory.git.secrets import scan_bytes

    old = f"deploy {GH_TOKEN}\n".encode()
    assert scan_bytes(old + b"more\n", known=old) == []
    assert [f.kind for f in scan_bytes(old + f"aws {AWS_ID}\n".encode(), known=old)] == ["AWS access key id"]


def test_mask_data_masks_nested_strings_and_keeps_json_valid() -> None:
    import json

    from aimate_memory.git.secrets import mask_data

    data = {"body": f'say "{GH_TOKEN}"', "items": [{"tags": ["ci", AWS_ID]}], "n": 3}
    masked = json.loads(json.dumps(mask_data(data)))
    assert GH_TOKEN[4:] not in json.dumps(masked) and AWS_ID[4:] not in json.dumps(masked) and masked["n"] == 3
