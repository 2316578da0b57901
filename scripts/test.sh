#!/usr/bin/env bash
# Sets up and runs every test: formatting, native tests, clippy (native and wasm32), API docs,
# the wasm32 build of the library, the wasm-bindgen tests in headless Chrome, the release web
# build and the browser tests.
# Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
export PATH="$PWD/tests/e2e/node_modules/.bin:$PATH"
# A one-shot run gains nothing from incremental caches or full debug info, and both cost
# gigabytes of disk and minutes of linking on a fresh clone. Opt-level 1 (debug assertions and
# overflow checks stay on): unoptimised, the native suites ran an hour on two cores (the
# adaptive search's tests alone 17 minutes), far more than the optimisation costs to compile.
export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=line-tables-only CARGO_PROFILE_DEV_OPT_LEVEL=1
# The BGP differential test's oracle (scripts/setup.sh --test made the venv).
export NETPRESS_BGPY_PYTHON="$PWD/.venv-bgpy/bin/python"
# The real bgpdump our MRT files are read with (Debian's package, same setup step).
export NETPRESS_BGPDUMP=/usr/bin/bgpdump
# Python's mrtparse, which reads the same files (same setup step).
export NETPRESS_MRTPARSE_PYTHON="$PWD/.venv-mrt/bin/python"
# The flows round trip through flowlogs-reader (same setup step).
export NETPRESS_FLOWLOGS_PYTHON="$PWD/.venv-flows/bin/python"
# The traffic truths against networkx (same setup step).
export NETPRESS_NX_PYTHON="$PWD/.venv-nx/bin/python"
step() { printf '\n== %s (at %d s)\n' "$*" "$SECONDS"; }

step "Fresh machine: the serve path's setup fills an empty cargo cache for the offline web build"
bash scripts/fresh-cargo-check.sh

step "Formatting (cargo fmt --check)"
cargo fmt --check

step "Native tests (cargo test)"
cargo test --all-targets
cargo test --doc

step "Partition scores against scikit-learn (200 random pairs and the baselines' 24 of seeds 0..3; 1,000 of each: scripts/microseg_sklearn_diff.py)"
cargo build --quiet --bin netpress
.venv-sk/bin/python scripts/microseg_sklearn_diff.py --count 200 --baseline-seeds 0..4 --netpress target/debug/netpress

step "Lints (cargo clippy -D warnings)"
cargo clippy --all-targets -- -D warnings

step "API docs (cargo doc --no-deps, warnings denied: broken links, bad doc syntax)"
# Broken intra-doc links are how a doc comment goes stale after a move. --no-deps documents
# this crate alone; the dependencies' metadata it needs is what clippy just built.
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps

step "Lints on wasm32: the web app and the sandbox worker (cargo clippy -D warnings)"
# Natively these feature sets are not compiled at all, so only a wasm32 lint sees their code.
# clippy lints this crate only; the dependencies' wasm32 metadata it builds is what `cargo
# check` builds, so the bare-library check below reuses what the feature sets share.
cargo clippy --target wasm32-unknown-unknown --no-default-features --features web --bin netpress-web -- -D warnings
# Every worker binary: the one of all applications and each application's engine bundle.
cargo clippy --target wasm32-unknown-unknown --no-default-features --features worker --bins -- -D warnings

step "Fuzz targets: build on stable and replay the inputs that once crashed them"
# Fuzzing itself needs nightly and minutes per target (scripts/fuzz.sh); this keeps the
# targets compiling and every past crash fixed. Unoptimised here, so the limit is generous.
cargo build --manifest-path fuzz/Cargo.toml --target-dir target --bin slowest
for dir in fuzz/regressions/*/; do
  target/debug/slowest "$(basename "$dir")" "$dir" --limit-ms 1000
done

# The library with the sandbox and the web app compiles for wasm32 in the next step's build;
# this checks the bare library (no optional features) there too.
step "Library for wasm32 (cargo check --lib --target wasm32-unknown-unknown --no-default-features)"
cargo check --lib --target wasm32-unknown-unknown --no-default-features

step "wasm-bindgen tests in headless Chrome (golden hashes, MALT sandbox, agent clients)"
# A test blocks the page while it runs and the runner gives up on a page silent for ~20 s, so
# the wasm tests (MALT's million-node fabric among them) are built optimised, here and in
# scripts/agent-wasm-test.sh (the same settings, so the library is built for wasm32 once).
CARGO_PROFILE_DEV_OPT_LEVEL=2 \
CHROMEDRIVER=/usr/bin/chromedriver \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --target wasm32-unknown-unknown --no-default-features --features web,sandbox \
    --test wasm_determinism --test malt_wasm_browser --test wasm_scale -- --nocapture
bash scripts/agent-wasm-test.sh

step "Release web build (trunk build --release --offline)"
trunk build --release --offline
bash scripts/size-check.sh   # first paint <= 600 kB gzip, each engine bundle <= 1 MB gzip

step "MALT worker bundle in headless Chromium (limits, responsiveness, same record as natively)"
bash scripts/malt-worker-e2e.sh

step "Browser tests (playwright-core + Chromium against dist/ on loopback)"
cargo build --bin netpress
(cd tests/e2e && npm test)

step "Python package (maturin wheel into .venv-py, pytest)"
bash scripts/python-test.sh

printf '\nAll tests passed in %d s.\n' "$SECONDS"
