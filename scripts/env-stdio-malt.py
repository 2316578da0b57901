"""Step latency of sandboxed (MALT) steps over `netpress env --stdio` (docs/env.md).

Usage: python3 scripts/env-stdio-malt.py [BINARY] [EPISODES]
(default target/debug/netpress, 20). Each episode is a MALT level-1 task with two turns: a
reply without code (the episode's parse error), then the built-in baseline's answer (taken
from `netpress run`'s records), each step replayed in a sandbox process. Prints the median,
minimum and maximum round trip of each turn's step line; the first episode (which starts the
sandbox process) is left out and printed apart.
"""
import json
import statistics
import subprocess
import sys
import tempfile
import time

binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/netpress"
episodes = int(sys.argv[2]) if len(sys.argv) > 2 else 20
with tempfile.NamedTemporaryFile(suffix=".jsonl") as out:
    subprocess.run([binary, "run", "--app", "malt", "--levels", "1", "--seeds", f"0..{episodes - 1}",
                    "-q", "-o", out.name], check=True)
    records = [json.loads(line) for line in open(out.name)]
child = subprocess.Popen([binary, "env", "--stdio", "--sandbox-jobs", "1"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, bufsize=1)


def ask(message):
    child.stdin.write(json.dumps(message) + "\n")
    child.stdin.flush()
    answer = json.loads(child.stdout.readline())
    assert answer["type"] == "observation", answer
    return answer


times = [[], []]
for record in records:
    ask({"type": "reset", "data": {"task_id": record["id"], "max_turns": 2}})
    for turn, reply in enumerate(["no code", record["turns"][0]["reply"]]):
        start = time.perf_counter()
        ask({"type": "step", "data": {"reply": reply}})
        times[turn].append((time.perf_counter() - start) * 1000)
child.stdin.close()
child.wait()
for turn, ms in enumerate(times):
    rest = sorted(ms[1:])
    print(f"turn {turn + 1}: {len(rest)} steps, median {statistics.median(rest):.1f} ms, "
          f"min {rest[0]:.1f}, max {rest[-1]:.1f}")
print(f"first step (starts the sandbox process): {times[0][0]:.1f} ms")
