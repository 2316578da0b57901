#!/usr/bin/env bash
# Sets up, builds the release web app and serves it on http://127.0.0.1:8080 (Ctrl-C stops).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/tests/e2e/node_modules/.bin:$PATH"
printf '\n== Building the web app (trunk build --release --offline)\n'
trunk build --release --offline
printf '\n== Serving dist/ on http://127.0.0.1:8080 (stop with Ctrl-C)\n'
exec python3 -m http.server 8080 --bind 127.0.0.1 --directory dist
