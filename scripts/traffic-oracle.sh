#!/usr/bin/env bash
# The traffic oracle acceptance run (docs/traffic.md, "The oracle run"): every family's
# reference program through the sandbox, which must score correct and safe, and every property
# question's native witness held to its rules, on seeds 0..1999 at the default knobs and on
# 200 seeds of each other knob set (n = 10 and 10,000 nodes, the tenant graph, each log
# format). Hours on two cores; CI runs the same command on a sample (`cargo test --lib
# traffic::oracle_tool`). Usage: bash scripts/traffic-oracle.sh [SEEDS] [KNOB_SEEDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-0..2000}
knob_seeds=${2:-0..200}
cargo build --profile bench --bin netpress
bin=target/release/netpress
fail=0
run() {
  echo "== netpress traffic oracle --seeds $1 ${2:+--knobs $2}"
  "$bin" traffic oracle --seeds "$1" ${2:+--knobs "$2"} || fail=1
}
run "$seeds"
for knobs in -n10 -n10000 -gflows -faws2 -faws5 -fnsg2 -fvnet4 -fgcp; do
  run "$knob_seeds" "$knobs"
done
exit $fail
