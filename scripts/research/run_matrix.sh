#!/usr/bin/env bash
# Usage: scripts/research/run_matrix.sh "auto minilm use none" "auto maxmin weighted"  [datasets]
# Prints one line per (embed, fusion, dataset): R@5 R@10 MRR (turn level, ALL).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BENCH="${BENCH:-$ROOT/../shared/bench}"
PY="${PY:-$ROOT/.venv/bin/python}"
EMBEDS="${1:-auto}"; FUSIONS="${2:-auto}"; DATASETS="${3:-locomo madial-en madial-zh}"
for e in $EMBEDS; do for f in $FUSIONS; do for d in $DATASETS; do
  out=$(AIM_EMBED="$e" AIM_FUSION="$f" "$PY" "$BENCH/eval_retrieval.py" --dataset "$d" --baselines none \
        --retriever "$HERE/hybrid_plugin.py:make" 2>/dev/null | awk '$2=="ALL" && $3!="w/o"{print $5, $6, $7}' | head -1)
  echo "$e $f $d $out"
done; done; done
