#!/usr/bin/env bash
# The long networkx differential run of the traffic application (docs/traffic.md): every
# family of levels 1-4 on seeds 0..1999 at the default knobs (flow questions on the default
# hour of logs), and on seeds 0..199 with a small, a large and a dense graph and each log
# format, and NeMoEval's 24 questions (m=nemo, levels 1 to 3) on seeds 0..1999, recomputed
# by tests/traffic/nx_oracle.py (networkx; plain Python over the rows).
# Needs .venv-nx (bash scripts/setup.sh --test). Exits non-zero on any disagreement.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
py="${NETPRESS_NX_PYTHON:-$PWD/.venv-nx/bin/python}"
run() {
  echo "== seeds $1 knobs ${2:-default}${3:+ level $3}"
  ./target/release/netpress traffic export --seeds "$1" ${2:+--knobs "$2"} ${3:+--level "$3"} \
    | "$py" tests/traffic/nx_oracle.py
}
run 0..2000
run 0..200 -n10-p1-faws2
run 0..200 -n2000-p16-faws5
run 0..200 -n40-p2-e500-fnsg2
run 0..200 -fgcp
run 0..2000 -mnemo 1
run 0..2000 -mnemo 2
run 0..2000 -mnemo 3
