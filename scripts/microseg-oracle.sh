#!/usr/bin/env bash
# The long oracle run (docs/microseg.md, "Tests"): the oracle (true roles, the intended policy)
# must score 100% correct and safe on every family of levels 1-4 for seeds 0..1999. CI runs a
# sample of these seeds in `cargo test --test microseg oracle::`.
#
#   bash scripts/microseg-oracle.sh [SEEDS]      (default 0..2000)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="${1:-0..2000}"
cargo build --release --bin netpress
out=$(target/release/netpress microseg baselines --agent oracle --levels 1,2,3,4 --seeds "$seeds")
echo "$out"
bad=$(echo "$out" | awk -F'\t' 'NR > 1 && ($5 !~ /^1\.000/ || $6 !~ /^1\.000/)')
if [[ -n "$bad" ]]; then echo "microseg-oracle: below 100%:"; echo "$bad"; exit 1; fi
echo "microseg-oracle: 100% correct and safe on seeds $seeds"
