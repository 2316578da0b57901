#!/usr/bin/env bash
# Proves that README's serve command works on a machine whose cargo cache is empty: runs the
# serve path's setup (scripts/setup.sh, as scripts/serve.sh does) with CARGO_HOME pointing at an
# empty directory, then resolves every crate of each offline wasm build in index.html there,
# without network, as `trunk build --offline` will. Cheap: a download of the crates and a
# resolution, no build (docs/site.md).
# Needs the tools scripts/setup.sh installs already on PATH (otherwise setup would install them
# again into the empty CARGO_HOME); rustup's toolchains stay found through RUSTUP_HOME.
set -euo pipefail
cd "$(dirname "$0")/.."

home=$(mktemp -d "${TMPDIR:-/tmp}/netpress-cargo-home-XXXXXX")
trap 'rm -rf "$home"' EXIT
export CARGO_HOME="$home"

bash scripts/setup.sh

host=$(rustc -vV | sed -n 's/^host: //p')
# Each Rust bundle Trunk builds: its features, always without the default ones.
mapfile -t bundles < <(grep -o '<link data-trunk rel="rust"[^>]*>' index.html)
[ "${#bundles[@]}" -gt 0 ] || { echo "fresh-cargo-check: no Rust bundle in index.html" >&2; exit 2; }
for link in "${bundles[@]}"; do
  case "$link" in *data-cargo-no-default-features*) ;; *)
    echo "fresh-cargo-check: $link builds default features; this check assumes none" >&2; exit 2 ;;
  esac
  features=$(sed -n 's/.*data-cargo-features="\([^"]*\)".*/\1/p' <<<"$link")
  # The wasm target's crates and the host's (build scripts, proc macros).
  cargo metadata --offline --locked --format-version 1 --no-default-features --features "$features" \
    --filter-platform wasm32-unknown-unknown --filter-platform "$host" >/dev/null
  echo "features '$features': every crate of the wasm build is available offline"
done
