#!/usr/bin/env bash
# The Python package's CI step (docs/env.md, "Python package"): builds the abi3 wheel with
# maturin, installs it into .venv-py (made by scripts/setup.sh --test) and runs its tests
# against the native binary. The wheel is built with the dev profile: the release build of the
# whole core would add minutes, and the tests compare records, not speed.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="$PWD/target" CARGO_PROFILE_DEV_DEBUG=line-tables-only
rm -rf target/wheels-py
.venv-py/bin/maturin build --profile dev -m python/Cargo.toml -o target/wheels-py
.venv-py/bin/pip install -q --force-reinstall --no-deps target/wheels-py/netpress-*.whl
cargo build --bin netpress
# pytest, not `python -m pytest`: the latter puts the working folder (the package source,
# without the built extension) first on the import path. From python/tests, not python/: Ray's
# workers put the driver's working folder on their import path, where python/netpress (without
# the extension) would shadow the installed package.
cd python/tests
NETPRESS_BIN="$PWD/../../target/debug/netpress" ../../.venv-py/bin/pytest -q -p no:cacheprovider .
