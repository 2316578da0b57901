#!/usr/bin/env bash
# Prints the gzip sizes of the web app's two wasm bundles in dist/ (after `trunk build
# --release --offline`) and fails if one is past its budget (issue 9): the main page's wasm
# at most 1 MB gzip, the MALT sandbox worker's at most 2.5 MB gzip (1 MB = 1,000,000 bytes;
# gzip -9, what a static server would send).
# Usage: scripts/size-check.sh [DIST]   (default: dist)
set -euo pipefail
cd "$(dirname "$0")/.."
DIST="${1:-dist}"
MAIN_BUDGET=1000000
WORKER_BUDGET=2500000

# The one file matching a pattern in DIST, or a clear failure.
one() {
  local found=()
  for f in "$DIST"/$1; do [ -f "$f" ] && found+=("$f"); done
  if [ "${#found[@]}" -ne 1 ]; then
    echo "size-check: expected one $1 in $DIST, found ${#found[@]} (run trunk build --release --offline)" >&2
    exit 2
  fi
  printf '%s' "${found[0]}"
}

main_wasm=$(one 'netpress-web-*_bg.wasm')
worker_wasm=$(one 'netpress-worker_bg.wasm')
status=0
check() {
  local name=$1 file=$2 budget=$3 raw gz verdict=ok
  raw=$(wc -c <"$file")
  gz=$(gzip -9 -c "$file" | wc -c)
  if [ "$gz" -gt "$budget" ]; then verdict="OVER BUDGET"; status=1; fi
  printf '%-7s %-40s raw %9d B  gzip %9d B (%.2f MB)  budget %9d B  %s\n' \
    "$name" "$(basename "$file")" "$raw" "$gz" "$(awk -v b="$gz" 'BEGIN { print b / 1000000 }')" "$budget" "$verdict"
}
check main "$main_wasm" "$MAIN_BUDGET"
check worker "$worker_wasm" "$WORKER_BUDGET"
exit "$status"
