#!/usr/bin/env bash
# Runs the browser agent tests (tests/wasm_agent.rs) in headless Chrome against a scripted
# mock agent server (`netpress mock-agent`) on 127.0.0.1, started here and stopped on exit.
# The server's URL reaches the tests at build time as NETPRESS_MOCK_URL.
# Extra arguments go to the test binary (e.g. a test name filter).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --bin netpress
log=$(mktemp)
./target/debug/netpress mock-agent >"$log" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q '^listening on ' "$log" && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$log")
[ -n "$url" ] || { echo "netpress mock-agent did not start" >&2; exit 1; }
echo "mock agent server: $url"
NETPRESS_MOCK_URL="$url" \
CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}" \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --target wasm32-unknown-unknown --no-default-features --features web --test wasm_agent -- "$@"
