#!/usr/bin/env bash
# The long repair-fault run (docs/microseg.md, "Acceptance checklist"): every repair task of
# levels 2 and 3 (index 4, default knobs) generates for seeds 0..9999, so the fault draw (types,
# then up to 64 draws of parameters until every fault shows and none is masked) never ends in
# GenerationExhausted; each task is then solved by the oracle's known-good fix, which must score
# 100% correct and safe. A generation error stops the run and names the id.
#
#   bash scripts/microseg-repair-faults.sh [SEEDS] [JOBS]   (default 0..10000, 1 job)
#
# JOBS > 1 splits the seeds into that many ranges run side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="${1:-0..10000}"
jobs="${2:-1}"
from="${seeds%..*}"
to="${seeds#*..}"
if [[ ! "$from" =~ ^[0-9]+$ || ! "$to" =~ ^[0-9]+$ || "$from" -ge "$to" || ! "$jobs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: bash scripts/microseg-repair-faults.sh [A..B] [JOBS]   (A < B, JOBS >= 1)" >&2
  exit 2
fi
bin="${NETPRESS_BIN:-target/release/netpress}"
if [[ -z "${NETPRESS_BIN:-}" ]]; then cargo build --release --bin netpress; fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
step=$(( (to - from + jobs - 1) / jobs ))
pids=()
for ((a = from; a < to; a += step)); do
  b=$(( a + step < to ? a + step : to ))
  "$bin" microseg baselines --agent oracle --family repair --levels 2,3 --seeds "$a..$b" \
    >"$dir/$a.out" 2>"$dir/$a.err" &
  pids+=("$!")
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
cat "$dir"/*.err
if [[ $failed -ne 0 ]]; then echo "microseg-repair-faults: generation failed (above)"; exit 1; fi
cat "$dir"/*.out
bad=$(cat "$dir"/*.out | awk -F'\t' '$1 == "oracle" && ($5 !~ /^1\.000/ || $6 !~ /^1\.000/)')
if [[ -n "$bad" ]]; then echo "microseg-repair-faults: oracle below 100%:"; echo "$bad"; exit 1; fi
n=$(cat "$dir"/*.out | awk -F'\t' '$1 == "oracle" { n += $4 } END { print n + 0 }')
if [[ $n -ne $(( 2 * (to - from) )) ]]; then
  echo "microseg-repair-faults: $n tasks scored, expected $(( 2 * (to - from) ))"; exit 1
fi
echo "microseg-repair-faults: $n repair tasks (levels 2 and 3, seeds $seeds) generated without exhausting the fault draw; the oracle fixed all"
