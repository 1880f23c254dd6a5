#!/usr/bin/env python3
"""Counts what a Chrome / PyTorch trace JSON holds, independently of
profview's decoder (Python's own json module, numbers read as decimals so
durations stay exact): events by phase, kernel events (cat kernel or
Kernel) and their summed duration in picoseconds, and [memory] instant
events. The numbers test_chrome_json.c expects come from this.

    python3 tools/reference/count_trace.py FILE.json[.gz] ...

With --window START_MS END_MS it also counts the X and i events that
overlap that window (both ends inclusive), in milliseconds from the whole
microsecond of the first timed event, as trace_viewer@ is asked for it
(test_trace_json_api.c).
"""
import collections
import gzip
import json
import sys
from decimal import Decimal


TIMED = ("X", "B", "E", "i", "I", "R", "C", "s", "t", "f")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f, parse_float=Decimal)
    return data["traceEvents"] if isinstance(data, dict) else data


def in_window(events, start_ms, end_ms):
    base = next(int(Decimal(str(e["ts"]))) for e in events if e.get("ph") in TIMED and "ts" in e)
    lo, hi = Decimal(start_ms) * 1000, Decimal(end_ms) * 1000
    found = collections.Counter()
    for e in events:
        if e.get("ph") not in ("X", "i"):
            continue
        start = Decimal(str(e["ts"])) - base
        if start <= hi and start + Decimal(str(e.get("dur", 0))) >= lo:
            found[e["ph"]] += 1
    return found


def count(path):
    events = load(path)
    phases = collections.Counter(e.get("ph") for e in events)
    kernels = [e for e in events
               if e.get("ph") == "X" and str(e.get("cat", "")).lower() == "kernel"]
    kernel_ps = sum(Decimal(str(e.get("dur", 0))) for e in kernels) * 1000000
    memory = sum(1 for e in events if e.get("ph") in ("i", "I") and e.get("name") == "[memory]")
    return phases, len(kernels), kernel_ps, memory


def main():
    args = sys.argv[1:]
    window = None
    if len(args) >= 3 and args[0] == "--window":
        window = (args[1], args[2])
        args = args[3:]
    for path in args:
        phases, n_kernels, kernel_ps, memory = count(path)
        shown = ", ".join(f"{k}:{v}" for k, v in sorted(phases.items(), key=str))
        print(f"{path}: {shown}; kernels {n_kernels}, {int(kernel_ps)} ps; [memory] {memory}")
        if window is not None:
            found = in_window(load(path), *window)
            print(f"  in {window[0]}-{window[1]} ms: X {found['X']}, i {found['i']}")


if __name__ == "__main__":
    main()
