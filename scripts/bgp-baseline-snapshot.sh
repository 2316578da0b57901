#!/usr/bin/env bash
# The BGP baseline's per-task snapshot: every level over seeds 0..999 of the current generator
# version, one line per episode (id, content hash, label, finish, correct, safe, progress,
# turns), written to tests/data/bgp/baseline-s0-999.tsv. `cargo test --test bgp
# baseline_snapshot` replays a sample of its lines against the current code, so a change to
# generation, the tools or the baseline shows there. Level 4 runs in chunks of 20 seeds: a run
# generates all its tasks first, and 600–3,000-AS tasks are large.
#
#   bash scripts/bgp-baseline-snapshot.sh [path/to/netpress]   (default: a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-}"
if [[ -z "$bin" ]]; then
  cargo build --release --bin netpress
  bin=target/release/netpress
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for level in 1 2 3; do
  "$bin" run --app bgp --agent baseline --levels "$level" --seeds 0..999 --jobs 1 -q -o "$work/l$level.jsonl"
done
for a in $(seq 0 20 980); do
  "$bin" run --app bgp --agent baseline --levels 4 --seeds "$a..$((a + 19))" --jobs 1 -q -o "$work/l4-$(printf %04d "$a").jsonl"
done
out=tests/data/bgp/baseline-s0-999.tsv
cat "$work"/l1.jsonl "$work"/l2.jsonl "$work"/l3.jsonl "$work"/l4-*.jsonl \
  | python3 scripts/baseline_snapshot.py \
      --header "# netpress run --app bgp --agent baseline --levels L --seeds 0..999 (L4 in chunks of 20): one line per episode" \
  > "$out"
echo "wrote $out ($(($(wc -l < "$out") - 2)) episodes)"
