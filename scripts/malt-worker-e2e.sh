#!/bin/sh
# Builds the MALT worker bundle (netpress-worker-malt, the one the page loads) and runs the browser test
# (tests/e2e/malt-worker.spec.mjs) in headless Chromium.
# Needs what `scripts/setup.sh --test` installs: the wasm32 target, wasm-bindgen 0.2.130,
# /usr/bin/chromium, and tests/e2e/node_modules (playwright-core, binaryen@132).
# The worker is built exactly as Trunk builds it (profile wasm-release), so after
# `trunk build` this cargo step is a no-op.
set -eu
cd "$(dirname "$0")/.."
OUT=target/malt-e2e
SITE="$PWD/$OUT/site"
NPM="$PWD/tests/e2e/node_modules"
mkdir -p "$SITE"
cargo build --profile wasm-release --target wasm32-unknown-unknown --bin netpress-worker-malt --no-default-features --features worker
wasm-bindgen --target no-modules --no-typescript --out-dir "$SITE" --out-name netpress-worker-malt \
  target/wasm32-unknown-unknown/wasm-release/netpress-worker-malt.wasm
"$NPM/.bin/wasm-opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals "$SITE/netpress-worker-malt_bg.wasm" -o "$SITE/netpress-worker-malt_bg.wasm"
cp tests/data/malt/e2e/index.html tests/data/malt/e2e/page.js "$SITE/"
# The site's own worker entry script, so this test also covers how it starts the wasm.
cp www/netpress-worker_loader.js "$SITE/loader.js"
ls -l "$SITE/netpress-worker-malt_bg.wasm"
MALT_E2E_CASES="$PWD/$OUT/cases.json" cargo test --test malt e2e_cases:: -- --ignored
SITE="$SITE" CASES="$PWD/$OUT/cases.json" \
  PLAYWRIGHT_CORE="$NPM/playwright-core/index.mjs" \
  node tests/e2e/malt-worker.spec.mjs
