#!/usr/bin/env bash
# Installs what NetPress needs on a fresh machine; each step is skipped when already satisfied.
#   scripts/setup.sh          tools to build and serve the web app
#   scripts/setup.sh --test   also what the tests need (Chromium, iproute2, iptables, ...)
#   scripts/setup.sh --fuzz   also the nightly toolchain and cargo-fuzz (scripts/fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }
have_version() { command -v "$1" >/dev/null 2>&1 && "$1" --version 2>/dev/null | grep -q "$2"; }

step "Rust target wasm32-unknown-unknown"
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  echo "already installed"
else
  rustup target add wasm32-unknown-unknown
fi

step "Trunk 0.21.14"
if have_version trunk "trunk 0.21.14"; then echo "already installed"; else
  cargo install --locked trunk --version 0.21.14
fi

step "wasm-bindgen-cli 0.2.130 (must equal the wasm-bindgen crate version)"
if have_version wasm-bindgen "wasm-bindgen 0.2.130"; then echo "already installed"; else
  # Not --locked: with it this install failed on the project's machines; without it cargo
  # resolves the tool's own dependencies afresh.
  cargo install wasm-bindgen-cli --version 0.2.130
fi

step "npm packages (binaryen 132 for wasm-opt, playwright-core)"
if [ -x tests/e2e/node_modules/.bin/wasm-opt ] && tests/e2e/node_modules/.bin/wasm-opt --version | grep -q "version 132" \
   && [ -d tests/e2e/node_modules/playwright-core ]; then
  echo "already installed"
else
  (cd tests/e2e && npm ci --no-audit --no-fund)
fi

# The release web build runs offline (Trunk.toml), so every crate it needs must be in the cargo
# cache before it starts; on a fresh machine nothing is (docs/site.md). Quick once fetched.
step "Crates of Cargo.lock (cargo fetch --locked)"
cargo fetch --locked

if [ "${1:-}" = "--test" ]; then
  # g++: the fuzz crate's libfuzzer-sys compiles libFuzzer, also when built on stable for the
  # regression replay.
  # bgpdump: the BGP application's MRT files must read the same in the real bgpdump (tests/bgp).
  step "Debian packages for the tests (Chromium, ChromeDriver, iproute2, iptables, ping, traceroute, net-tools, g++, bgpdump)"
  need=()
  for pkg in chromium chromium-driver iproute2 iptables iputils-ping traceroute net-tools g++ bgpdump; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
  done
  if [ ${#need[@]} -eq 0 ]; then echo "already installed"; else
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
  fi
fi

# A virtual environment of its own for one Python tool the tests compare against, so no system
# Python package is touched; kept when it already holds exactly these versions.
#   pyvenv DIR PACKAGE==VERSION...
pyvenv() {
  local dir=$1 check="import importlib.metadata as m" p
  shift
  for p in "$@"; do check+="; assert m.version('${p%%==*}') == '${p#*==}'"; done
  if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "$check" 2>/dev/null; then
    echo "already installed"
  else
    rm -rf "$dir"
    python3 -m venv "$dir"
    "$dir/bin/pip" install -q "$@"
  fi
}

if [ "${1:-}" = "--test" ]; then
  if ! python3 -m venv --help >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv
  fi
  # The BGP routing model is checked against UConn's BGPy simulator (tests/bgp, docs/bgp.md).
  step "BGPy for the BGP differential test (.venv-bgpy with bgpy-pkg 13.0.13)"
  pyvenv .venv-bgpy bgpy-pkg==13.0.13
  # Our MRT files are also read by Python's mrtparse (tests/bgp/mrtparse.rs, docs/bgp.md).
  step "mrtparse for the MRT read-back (.venv-mrt with mrtparse 2.2.0)"
  pyvenv .venv-mrt mrtparse==2.2.0
  # AWS flow-log files are also read by flowlogs-reader (tests/flows/reader.rs, docs/flows.md).
  step "flowlogs-reader for the flows round trip (.venv-flows with flowlogs-reader 5.0.1)"
  pyvenv .venv-flows flowlogs-reader==5.0.1
  # The traffic application's truths are recomputed with networkx (tests/traffic/nx.rs, docs/traffic.md).
  step "networkx for the traffic differential test (.venv-nx with networkx 3.6.1)"
  pyvenv .venv-nx networkx==3.6.1
  # The partition scores of role inference against scikit-learn (scripts/microseg_sklearn_diff.py,
  # docs/microseg-partition.md); mpmath gives the exact reference where scikit-learn rounds.
  step "scikit-learn for the partition-score differential test (.venv-sk with scikit-learn 1.9.1, mpmath 1.4.1)"
  pyvenv .venv-sk scikit-learn==1.9.1 mpmath==1.4.1
fi

if [ "${1:-}" = "--test" ]; then
  # The Python package's build and tests (scripts/python-test.sh, docs/env.md).
  step "Python package tools (.venv-py with python/requirements-test.txt; the extension's crates)"
  want=$(grep -v '^#' python/requirements-test.txt)
  if [ -x .venv-py/bin/pip ] && [ "$(.venv-py/bin/pip freeze | grep -cxF "$want")" = "$(grep -c . <<<"$want")" ]; then
    echo "already installed"
  else
    rm -rf .venv-py
    python3 -m venv .venv-py
    .venv-py/bin/pip install -q -r python/requirements-test.txt
  fi
  cargo fetch --locked --manifest-path python/Cargo.toml
fi

if [ "${1:-}" = "--fuzz" ]; then
  step "Nightly toolchain and cargo-fuzz (for scripts/fuzz.sh)"
  rustup toolchain list | grep '^nightly' >/dev/null || rustup toolchain install nightly --profile minimal
  if command -v cargo-fuzz >/dev/null 2>&1; then echo "cargo-fuzz already installed"; else
    cargo install cargo-fuzz --locked
  fi
fi
