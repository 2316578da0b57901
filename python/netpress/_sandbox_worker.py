"""A sandbox process of the package: `python -m netpress._sandbox_worker`.

Sandboxed applications' answers (agent code: MALT, traffic, microseg) never run in the process
that steps the episodes; the extension sends each turn to a child running this module, which
serves the sandbox worker's JSON-lines protocol on standard input and output (docs/env.md,
"Python package").
"""
from netpress import _core

if __name__ == "__main__":
    _core.sandbox_worker()
