# Sourced by quickstart.sh and test.sh: make sure $VENV exists and has the package installed.
# Usage: install_into_venv [EXTRAS]   (e.g. "[test]")
VENV="${AIMATE_VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
install_into_venv() {
  if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
  fi
  "$VENV/bin/python" -m pip install --quiet --upgrade pip >/dev/null
  "$VENV/bin/python" -m pip install --quiet -e ".${1:-}"
}
