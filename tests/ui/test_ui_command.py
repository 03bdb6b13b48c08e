"""`aimate mem ui` as a person runs it (a subprocess against a temp home): the address it prints, the 403 without
its token, the one-line errors, the private opener file — and that no other command imports the page."""

from __future__ import annotations

import os
import re
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from aimate_memory.ui.serve import bind, opener_file

AIMATE = Path(sys.executable).with_name("aimate")
URL = re.compile(r"http://(127\.\d+\.\d+\.\d+):(\d+)/\?token=([\w-]+)")


def start_ui(home: Path, cwd: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_EMBEDDING__ENABLED": "false", "AIMATE_NO_DAEMON": "1"}
    process = subprocess.Popen(
        [str(AIMATE), "mem", "ui", "--no-open", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    line = process.stdout.readline()  # click.echo flushes: the address is there before the server blocks
    return process, line


def wait_for(address: str, port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex((address, port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_it_prints_its_address_and_answers_only_with_the_token(cli, initialized, home: Path, workdir: Path) -> None:
    process, line = start_ui(home, workdir)
    try:
        found = URL.search(line)
        assert found, line
        address, port, token = found.group(1), int(found.group(2)), found.group(3)
        assert address != "127.0.0.1"  # an address of its own: its cookie goes to no other local server
        wait_for(address, port)
        assert status_of(f"http://{address}:{port}/review") == 403
        assert status_of(f"http://{address}:{port}/review?token=not-{token}") == 403
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with opener.open(f"http://{address}:{port}/?token={token}", timeout=10) as answer:
            assert answer.status == 200 and answer.url == f"http://{address}:{port}/review"  # token gone
            assert "AIMate" in answer.read().decode()
    finally:
        process.terminate()
        process.wait(timeout=20)
    assert process.returncode in (0, -15)
    assert "Traceback" not in (process.stderr.read() if process.stderr else "")


def test_without_a_vault_or_on_a_taken_port_it_says_so_in_one_line(cli, home: Path, workdir: Path) -> None:
    result = cli("mem", "ui", "--no-open")
    assert result.code == 1 and "no memory vault yet" in result.err and "Traceback" not in result.err
    assert cli("mem", "init").code == 0
    with socket.socket() as taken:
        taken.bind(("", 0))  # every address: the page's own loopback address too
        taken.listen()
        port = taken.getsockname()[1]
        result = cli("mem", "ui", "--no-open", "--port", str(port))
    said = " ".join(result.err.split())
    assert result.code == 1 and "cannot listen on 127." in said and f":{port}" in said and "--port" in said


def test_it_listens_on_loopback_only() -> None:
    socks = [bind(0) for _ in range(3)]
    try:
        addresses = {sock.getsockname()[0] for sock in socks}
        assert all(address.startswith("127.") and address != "127.0.0.1" for address in addresses)
        assert len(addresses) == 3  # one of its own each run
    finally:
        for sock in socks:
            sock.close()


def test_the_file_the_browser_opens_is_private(home: Path) -> None:
    path = opener_file(home, 5555, "http://127.0.0.1:5555/?token=abc")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert "http://127.0.0.1:5555/?token=abc" in path.read_text(encoding="utf-8")


def test_no_other_command_imports_the_page(home: Path) -> None:
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('LOADED ' + ' '.join(sorted(m for m in "
        "('aimate_memory.ui', 'starlette', 'uvicorn', 'jinja2', 'markdown_it') if m in sys.modules)) + '\\n'))\n"
        "from aimate_memory.cli import main; sys.argv[0] = 'aimate'; main()"
    )
    for args in (["mem", "--help"], ["mem", "ui", "--help"], ["mem", "list"]):
        env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_EMBEDDING__ENABLED": "false"}
        done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, env=env, timeout=60)
        assert "LOADED \n" in done.stderr, (args, done.stderr[-300:])
