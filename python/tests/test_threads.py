"""Episodes run without the GIL: another Python thread advances during a long native call."""

from __future__ import annotations

import sys
import threading
import time

from netpress import _core


def advances_during(call) -> int:
    """How often the main thread ran while another thread was inside `call`."""
    inside = threading.Event()
    finished = threading.Event()

    def work():
        inside.set()
        call()
        finished.set()

    old = sys.getswitchinterval()
    # With a switch interval this long, a thread that held the GIL through the call would keep
    # every other Python thread out until it returned.
    sys.setswitchinterval(1000.0)
    try:
        t = threading.Thread(target=work)
        t.start()
        inside.wait()
        advanced = 0
        while not finished.is_set():
            advanced += 1
            time.sleep(0.001)  # sleeps release the GIL, so the worker can return
        t.join()
    finally:
        sys.setswitchinterval(old)
    return advanced


def test_another_thread_runs_during_a_native_call():
    ids = [f"k8s-v1-L3-s{s}-i0" for s in range(40)]
    assert advances_during(lambda: _core.run_baseline(ids)) > 0


def test_a_call_holding_the_gil_keeps_the_other_thread_out():
    """The control: the measure above is 0 for code that never releases the GIL."""

    def spin():
        n = 0
        for i in range(3_000_000):
            n += i
        return n

    assert advances_during(spin) == 0
