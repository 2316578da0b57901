#!/usr/bin/env bash
# Times the flow model as wasm in a dedicated worker of headless Chrome (benches/flows_wasm.rs,
# wasm-bindgen-test's criterion): a million connections, for the browser target docs/flows.md
# gives. Needs what `scripts/setup.sh --test` installs (the wasm32 target, wasm-bindgen-test-
# runner 0.2.130, Chrome and chromedriver). Built with the bench profile, as `cargo bench` is
# natively. The runner's timeout (20 s by default) is raised: the million-connection case
# takes about 10 s, longer on a busy machine. Criterion's estimates are printed; baselines go
# to target/wbg_benchmark.json.
set -euo pipefail
cd "$(dirname "$0")/.."
WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-300}" \
CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}" \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo bench --target wasm32-unknown-unknown --no-default-features --bench flows_wasm -- "$@"
