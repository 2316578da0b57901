#!/usr/bin/env bash
# Sets up and runs every test: native tests, clippy, the wasm32 build of the library, the
# wasm-bindgen tests in headless Chrome, the release web build and the browser tests.
# Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
export PATH="$PWD/tests/e2e/node_modules/.bin:$PATH"
step() { printf '\n== %s\n' "$*"; }

step "Native tests (cargo test)"
cargo test --all-targets
cargo test --doc

step "Lints (cargo clippy -D warnings)"
cargo clippy --all-targets -- -D warnings

step "Library for wasm32 (cargo check --lib --target wasm32-unknown-unknown)"
cargo check --lib --target wasm32-unknown-unknown
cargo check --lib --target wasm32-unknown-unknown --no-default-features

step "wasm-bindgen tests in headless Chrome"
CHROMEDRIVER=/usr/bin/chromedriver \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --target wasm32-unknown-unknown --no-default-features --features web --test wasm_determinism
bash scripts/agent-wasm-test.sh

step "Release web build (trunk build --release --offline)"
trunk build --release --offline

step "Browser tests (playwright-core + Chromium against dist/ on loopback)"
cargo build --bin netpress
(cd tests/e2e && npm test)

printf '\nAll tests passed.\n'
