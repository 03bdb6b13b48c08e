#!/usr/bin/env bash
# From nothing to a working memory: creates .venv, installs, initializes a demo vault (a temporary
# AIMATE_HOME unless you set one), adds memories in English and Chinese, lists, shows, indexes, searches.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
install_into_venv
export AIMATE_HOME="${AIMATE_HOME:-$(mktemp -d)/aimate}"
aimate() { "$VENV/bin/aimate" "$@"; }
run() { printf '\n$ aimate %s\n' "$*"; aimate "$@"; }

echo "AIMATE_HOME=$AIMATE_HOME"
run mem --global init
run mem --global add "Use pytest for tests" --layer core --tags testing,python \
  --body "I prefer pytest over unittest, with fixtures instead of setUp."
run mem --global add "选用 Redis 做会话缓存" --category decision --tags cache,redis --importance 4 \
  --body "我们决定用 Redis 做会话缓存：延迟低，支持过期时间。"
run mem --global add "Fix the flaky login test" --layer short_term --category task --tags todo \
  --body "TODO: the login test fails when the clock crosses midnight."
run mem --global list
id=$(aimate mem --global list --json --category decision | "$VENV/bin/python" -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
run mem --global show "${id:0:8}"
run mem --global index
run mem --global search "which cache did we choose for sessions"
run mem --global search "登录测试为什么失败"
run mem --global stats
echo
echo "Your demo vault is in $AIMATE_HOME/memory — open the files in any editor."
