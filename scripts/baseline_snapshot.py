"""A baseline's per-task snapshot: `netpress run` records (JSON lines on stdin) written as one
TSV line per episode (id, content hash, label, finish, correct, safe, progress, turns), the
file the applications' snapshot tests replay a sample of (tests/support/snapshot.rs).

With --against FILE it also compares the correct rate per (level, label) with the snapshot
already in FILE, prints both, and exits 1 if one moved by more than --tolerance (0.08, the
bar a snapshot's rates are held to) or a label appeared or vanished.

    netpress run ... -o run.jsonl
    python3 scripts/baseline_snapshot.py --header "# how" < run.jsonl > snapshot.tsv
"""

import argparse
import json
import sys
from collections import defaultdict

COLUMNS = "id\tcontent_hash\tlabel\tfinish\tcorrect\tsafe\tprogress\tturns"


def lines(records):
    for line in records:
        r = json.loads(line)
        s = r["score"]
        yield "\t".join([r["id"], r["content_hash"], r["label"], r["finish"],
                         str(s["correct"]).lower(), str(s["safe"]).lower(),
                         "%.3f" % s["progress"], str(s["turns"])])


def rates(rows):
    """Correct rate per (level, label) of TSV rows (ids `app-vN-LL-…`)."""
    tally = defaultdict(lambda: [0, 0])
    for row in rows:
        cells = row.split("\t")
        key = (cells[0].split("-")[2], cells[2])
        tally[key][0] += 1
        tally[key][1] += cells[4] == "true"
    return {k: ok / n for k, (n, ok) in tally.items()}


def table_rows(text):
    return [l for l in text.splitlines() if l and not l.startswith("#") and l != COLUMNS]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--header", default="", help="a comment line saying how the file was made")
    p.add_argument("--against", help="a committed snapshot whose rates the new one must keep")
    p.add_argument("--tolerance", type=float, default=0.08)
    a = p.parse_args()
    new = list(lines(sys.stdin))
    if a.header:
        print(a.header)
    print(COLUMNS)
    print("\n".join(new))
    if not a.against:
        return 0
    with open(a.against, encoding="utf-8") as f:
        old = rates(table_rows(f.read()))
    now = rates(new)
    moved = 0
    for key in sorted(set(old) | set(now)):
        o, n = old.get(key), now.get(key)
        bad = o is None or n is None or abs(o - n) > a.tolerance
        moved += bad
        show = lambda r: "absent" if r is None else "%.3f" % r
        print("%s %-14s committed %s now %s%s" % (key[0], key[1], show(o), show(n),
                                                  "  MOVED" if bad else ""), file=sys.stderr)
    print("%d of %d labels moved by more than %.2f" % (moved, len(set(old) | set(now)), a.tolerance),
          file=sys.stderr)
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main())
