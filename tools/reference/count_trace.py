#!/usr/bin/env python3
"""Counts what a Chrome / PyTorch trace JSON holds, independently of
profview's decoder (Python's own json module, numbers read as decimals so
durations stay exact): events by phase, kernel events (cat kernel or
Kernel) and their summed duration in picoseconds, and [memory] instant
events. The numbers test_chrome_json.c expects come from this.

    python3 tools/reference/count_trace.py FILE.json[.gz] ...
"""
import collections
import gzip
import json
import sys
from decimal import Decimal


def count(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f, parse_float=Decimal)
    events = data["traceEvents"] if isinstance(data, dict) else data
    phases = collections.Counter(e.get("ph") for e in events)
    kernels = [e for e in events
               if e.get("ph") == "X" and str(e.get("cat", "")).lower() == "kernel"]
    kernel_ps = sum(Decimal(str(e.get("dur", 0))) for e in kernels) * 1000000
    memory = sum(1 for e in events if e.get("ph") in ("i", "I") and e.get("name") == "[memory]")
    return phases, len(kernels), kernel_ps, memory


def main():
    for path in sys.argv[1:]:
        phases, n_kernels, kernel_ps, memory = count(path)
        shown = ", ".join(f"{k}:{v}" for k, v in sorted(phases.items(), key=str))
        print(f"{path}: {shown}; kernels {n_kernels}, {int(kernel_ps)} ps; [memory] {memory}")


if __name__ == "__main__":
    main()
