#!/usr/bin/env bash
# Fuzzes targets for a while each, then replays each corpus without instrumentation and fails
# when an input takes over 10 ms (bgp_mrt: 250 ms, below) (5 minutes each, no panic, no input over 10 ms: long enough to
# reach deep states, short enough to rerun after a fix; docs/route.md and docs/k8s.md, "Tests"). Needs the nightly toolchain and cargo-fuzz (scripts/setup.sh --fuzz installs both).
#
#   bash scripts/fuzz.sh [--seconds 300] [TARGET...]     (default: every target)
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=300
if [[ "${1:-}" == "--seconds" ]]; then seconds="$2"; shift 2; fi
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then mapfile -t targets < <(cargo +nightly fuzz list | grep -vx slowest); fi

cargo build --release --bin slowest
for t in "${targets[@]}"; do
  # bgp_mrt generates a whole task per input, and generation has slow seeds (tens of
  # milliseconds at level 2: docs/bgp.md, "Fuzz targets"), so its bounds are generation's, not a
  # parser's: a hang still fails, a slow seed does not.
  case "$t" in
    bgp_mrt) timeout=5 limit_ms=250 ;;
    *) timeout=1 limit_ms=10 ;;
  esac
  printf '\n== %s: %s s\n' "$t" "$seconds"
  mkdir -p "corpus/$t"
  log="target/fuzz-$t.log"
  status=0
  cargo +nightly fuzz run "$t" "corpus/$t" -- -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 \
    -print_final_stats=1 >"$log" 2>&1 || status=$?
  grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY)' "$log" || true
  if [[ $status -ne 0 ]]; then tail -30 "$log"; echo "fuzz: $t failed (exit $status; inputs in fuzz/artifacts/$t)"; exit 1; fi
  target/release/slowest "$t" "corpus/$t" --limit-ms "$limit_ms"
done
