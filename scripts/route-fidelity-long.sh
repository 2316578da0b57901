#!/usr/bin/env bash
# A long differential run of the Route emulator against real Linux on generated tasks: the
# CI sample plus TASKS more ids drawn from SEED (levels 1-3 in turn), each built in network
# namespaces and compared after injection, diagnostics, every fix and random steps (see
# tests/route/fidelity/generated.rs). Needs root and the lab's tools (iproute2, iptables,
# iputils-ping, traceroute, net-tools); otherwise the test prints SKIP and passes.
#
#   sudo bash scripts/route-fidelity-long.sh                 # 300 tasks, seed 0, small sizes
#   sudo bash scripts/route-fidelity-long.sh --tasks 1000 --seed 7
#   sudo bash scripts/route-fidelity-long.sh --drawn         # tasks draw their own sizes
#   ROUTE_FIDELITY_TASKS=50 sudo -E bash scripts/route-fidelity-long.sh
#   sudo bash scripts/route-fidelity-long.sh --ids route-v1-L2-s9027-i0,route-v1-L3-s9104-i0
#
# --sequences K also runs the hand-built cases with K random sequences (the other test of
# the binary). The run is built in release mode; a mismatch fails with the task id, its
# shortest failing sequence and the difference.
set -euo pipefail
cd "$(dirname "$0")/.."

tasks="${ROUTE_FIDELITY_TASKS:-300}"
seed="${ROUTE_FIDELITY_TASK_SEED:-0}"
knobs="${ROUTE_FIDELITY_TASK_KNOBS:-small}"
ids="${ROUTE_FIDELITY_IDS:-}"
sequences=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tasks) tasks="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --drawn) knobs="drawn"; shift ;;
    --ids) ids="$2"; shift 2 ;;
    --sequences) sequences="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "route-fidelity-long: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=line-tables-only
export ROUTE_FIDELITY_TASKS="$tasks" ROUTE_FIDELITY_TASK_SEED="$seed" ROUTE_FIDELITY_TASK_KNOBS="$knobs"
if [ -n "$ids" ]; then
  export ROUTE_FIDELITY_IDS="$ids"
fi
filter=(fidelity::route_fidelity_generated --exact)
if [ -n "$sequences" ]; then
  export ROUTE_FIDELITY_SEQUENCES="$sequences"
  filter=(fidelity::)
fi
start=$(date +%s)
cargo test --release --test route -- "${filter[@]}" --nocapture --test-threads 1
echo "route-fidelity-long: $(( $(date +%s) - start )) s"
