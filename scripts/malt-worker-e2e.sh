#!/bin/sh
# Builds the MALT sandbox worker as its own wasm bundle and runs the browser test
# (tests/e2e/malt-worker.spec.mjs) in headless Chromium.
# Needs: the wasm32 target, wasm-bindgen 0.2.130, node, /usr/bin/chromium, and npm packages
# playwright-core and binaryen@132 (installed into target/malt-e2e/npm when missing).
set -eu
cd "$(dirname "$0")/.."
OUT=target/malt-e2e
SITE="$PWD/$OUT/site"
mkdir -p "$SITE" "$OUT/npm"
if [ ! -d "$OUT/npm/node_modules/playwright-core" ] || [ ! -x "$OUT/npm/node_modules/.bin/wasm-opt" ]; then
  (cd "$OUT/npm" && npm init -y >/dev/null && npm i --no-audit --no-fund playwright-core binaryen@132 >/dev/null)
fi
cargo build --release --target wasm32-unknown-unknown --bin netpress-worker --no-default-features --features worker
wasm-bindgen --target no-modules --no-typescript --out-dir "$SITE" --out-name netpress-worker \
  target/wasm32-unknown-unknown/release/netpress-worker.wasm
"$OUT/npm/node_modules/.bin/wasm-opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals "$SITE/netpress-worker_bg.wasm" -o "$SITE/netpress-worker_bg.wasm"
cp tests/data/malt/e2e/index.html tests/data/malt/e2e/page.js tests/data/malt/e2e/loader.js "$SITE/"
ls -l "$SITE/netpress-worker_bg.wasm"
MALT_E2E_CASES="$PWD/$OUT/cases.json" cargo test --test malt_e2e_cases -- --ignored
SITE="$SITE" CASES="$PWD/$OUT/cases.json" \
  PLAYWRIGHT_CORE="$PWD/$OUT/npm/node_modules/playwright-core/index.mjs" \
  node tests/e2e/malt-worker.spec.mjs
