#!/usr/bin/env bash
# Writes the service worker of a built site: DIR/sw.js is www/sw.js preceded by the manifest of
# every other file in DIR (path and SHA-256) and a build id hashed from that manifest, so any
# change to any file makes a new service worker and a new cache (docs/site.md).
# Run by Trunk after each build (Trunk.toml, post_build hook, on its staging directory); by hand:
#   scripts/offline-manifest.sh DIR
set -euo pipefail
dir="${1:-${TRUNK_STAGING_DIR:-}}"
if [ -z "$dir" ] || [ ! -f "$dir/index.html" ]; then
  echo "offline-manifest: no built site at '${dir}' (give a directory holding index.html)" >&2
  exit 2
fi
template="$(dirname "$0")/../www/sw.js"

# "<sha256>  <path>" per file, sorted bytewise so the id does not depend on the locale.
manifest=$(cd "$dir" && find . -type f ! -path ./sw.js -printf '%P\0' | LC_ALL=C sort -z | xargs -0 sha256sum)
# The paths go into a JavaScript string literal: refuse anything that would need escaping.
if printf '%s\n' "$manifest" | cut -c67- | grep -qv '^[A-Za-z0-9._/@+-]*$'; then
  echo "offline-manifest: a file name in $dir needs quoting; rename it" >&2
  exit 2
fi
build=$(printf '%s\n' "$manifest" | sha256sum | cut -c1-16)

{
  printf "const BUILD = '%s';\nconst FILES = {\n" "$build"
  printf '%s\n' "$manifest" | awk '{ printf "  \x27%s\x27: \x27%s\x27,\n", substr($0, 67), $1 }'
  printf '};\n'
  cat "$template"
} >"$dir/sw.js.tmp"
mv "$dir/sw.js.tmp" "$dir/sw.js"
echo "offline-manifest: $dir/sw.js for build $build ($(printf '%s\n' "$manifest" | wc -l) files)"
