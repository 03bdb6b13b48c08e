#!/usr/bin/env bash
# From nothing to a green test run: creates .venv, installs the package with test extras, runs pytest.
# Usage: bash scripts/test.sh [pytest args…]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
install_into_venv "[test]"
"$VENV/bin/ruff" check .
"$VENV/bin/ruff" format --check .
# The layering (pyproject.toml [tool.importlinter]): faces > facade > parts, nothing reaches around the facade.
"$VENV/bin/lint-imports"
# Tests never touch the real ~/.aimate: each one sets its own AIMATE_HOME.
exec "$VENV/bin/python" -m pytest "$@"
