#!/usr/bin/env bash
# The traffic baseline's per-task snapshot: 300 tasks per family (seeds 0..299, one task of
# each family per seed, every level), one line per episode, written to
# tests/data/traffic/baseline-s0-299.tsv. `cargo test --test traffic snapshot` replays a sample
# of its lines against the current code; this script replays them all, and exits 1 if a
# family's correct rate moved by more than 0.08 from the committed file's (the lines it
# rewrites show in `git diff`). About 4 minutes of one core with the release CLI.
#
#   bash scripts/traffic-baseline-snapshot.sh [path/to/netpress]   (default: a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-}"
if [[ -z "$bin" ]]; then
  cargo build --profile bench --bin netpress
  bin=target/release/netpress
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
out=tests/data/traffic/baseline-s0-299.tsv
args=(--app traffic --agent baseline --levels 1,2,3,4 --seeds 0..299 --per-label 1)
"$bin" run "${args[@]}" --jobs 1 -q -o "$work/run.jsonl"
against=()
if [[ -f "$out" ]]; then
  cp "$out" "$work/committed.tsv"
  against=(--against "$work/committed.tsv")
fi
status=0
python3 scripts/baseline_snapshot.py --header "# netpress run ${args[*]}: one line per episode" \
  "${against[@]}" < "$work/run.jsonl" > "$out" || status=$?
echo "wrote $out ($(($(wc -l < "$out") - 2)) episodes)"
exit "$status"
