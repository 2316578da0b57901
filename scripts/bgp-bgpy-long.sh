#!/usr/bin/env bash
# A long differential run of the BGP routing model against BGPy (bgpy-pkg 13.0.x): TOPOLOGIES
# seeded topologies, three quarters of 20-60 ASes and a quarter of 200-600, each checked as a
# baseline, an attack mix (ROV, hijacks, forged origins, prepending, ROA changes) and route
# leaks (see tests/bgp/bgpy.rs). Needs python3 >= 3.10 with bgpy-pkg in a venv:
#
#   python3 -m venv .venv-bgpy && .venv-bgpy/bin/pip install bgpy-pkg==13.0.13
#   bash scripts/bgp-bgpy-long.sh                      # 1,000 topologies (CI runs 200)
#   bash scripts/bgp-bgpy-long.sh --topologies 5000
#   NETPRESS_BGPY_PYTHON=/path/to/venv/bin/python NETPRESS_BGPY_TOPOLOGIES=50 bash scripts/bgp-bgpy-long.sh
#
# Without the interpreter or the package the test prints SKIP and passes; a disagreement
# fails with the smallest case that still shows it.
set -euo pipefail
cd "$(dirname "$0")/.."

topologies="${NETPRESS_BGPY_TOPOLOGIES:-1000}"
while [ $# -gt 0 ]; do
  case "$1" in
    --topologies) topologies="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "bgp-bgpy-long: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=line-tables-only
export NETPRESS_BGPY_TOPOLOGIES="$topologies"
if [ -z "${NETPRESS_BGPY_PYTHON:-}" ] && [ -x .venv-bgpy/bin/python ]; then
  export NETPRESS_BGPY_PYTHON="$PWD/.venv-bgpy/bin/python"
fi
start=$(date +%s)
cargo test --test bgp -- bgpy::bgp_bgpy_agreement --exact --nocapture
echo "bgp-bgpy-long: $(( $(date +%s) - start )) s"
