"""Package marker of a pinned interface stub (python/tests/pinned/README.md)."""
