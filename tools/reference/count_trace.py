#!/usr/bin/env python3
"""Counts what a Chrome / PyTorch trace JSON holds, independently of
profview's decoder (Python's own json module, numbers read as decimals so
durations stay exact): events by phase, kernel events (cat kernel or
Kernel) and their summed duration in picoseconds, and [memory] instant
events, and per device (Device Type, Device Id) the highest "Total
Allocated" of those. The numbers test_chrome_json.c expects come from this.

    python3 tools/reference/count_trace.py FILE.json[.gz] ...

With --kernels N it also prints the N kernel rows of most total time,
grouped as kernel_stats groups them (name, grid, block, registers, shared
memory, and the op: the host event whose External id the kernel carries),
with their count and total microseconds, and how many kernels last at
least 1 ns (the ones kernel_stats counts).

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
            found["[memory]"] += e.get("name") == "[memory]"
    return found


def kernel_rows(events, n):
    host = {}
    for e in events:
        ext = (e.get("args") or {}).get("External id")
        if e.get("ph") == "X" and ext and str(e.get("cat", "")).lower() in (
                "cpu_op", "operator", "user_annotation", "python_function", "python"):
            host.setdefault(ext, e["name"])
    rows = collections.defaultdict(lambda: [0, Decimal(0)])
    counted = 0
    for e in events:
        if e.get("ph") != "X" or str(e.get("cat", "")).lower() != "kernel":
            continue
        dur = Decimal(str(e.get("dur", 0)))
        if dur * 1000 < 1:
            continue
        counted += 1
        a = e.get("args") or {}
        ext = a.get("External id", a.get("external id"))
        key = (e["name"], str(a.get("grid")), str(a.get("block")), a.get("registers per thread"),
               a.get("shared memory"), host.get(ext, ""))
        rows[key][0] += 1
        rows[key][1] += dur
    top = sorted(rows.items(), key=lambda kv: -kv[1][1])[:n]
    return counted, len(rows), top


def count(path):
    events = load(path)
    phases = collections.Counter(e.get("ph") for e in events)
    kernels = [e for e in events
               if e.get("ph") == "X" and str(e.get("cat", "")).lower() == "kernel"]
    kernel_ps = sum(Decimal(str(e.get("dur", 0))) for e in kernels) * 1000000
    memory = [e for e in events if e.get("ph") in ("i", "I") and e.get("name") == "[memory]"]
    peaks = collections.defaultdict(int)
    for e in memory:
        a = e.get("args") or {}
        if "Total Allocated" in a:
            key = (a.get("Device Type"), a.get("Device Id"))
            peaks[key] = max(peaks[key], a["Total Allocated"])
    return phases, len(kernels), kernel_ps, len(memory), dict(peaks)


def main():
    args = sys.argv[1:]
    window = None
    kernels = 0
    if len(args) >= 2 and args[0] == "--kernels":
        kernels = int(args[1])
        args = args[2:]
    if len(args) >= 3 and args[0] == "--window":
        window = (args[1], args[2])
        args = args[3:]
    for path in args:
        phases, n_kernels, kernel_ps, memory, peaks = count(path)
        shown = ", ".join(f"{k}:{v}" for k, v in sorted(phases.items(), key=str))
        print(f"{path}: {shown}; kernels {n_kernels}, {int(kernel_ps)} ps; [memory] {memory}")
        for (dev_type, dev_id), peak in sorted(peaks.items()):
            print(f"  peak Total Allocated of device type {dev_type} id {dev_id}: {peak} bytes")
        if kernels:
            counted, n_rows, top = kernel_rows(load(path), kernels)
            print(f"  kernels of 1 ns or more: {counted} in {n_rows} rows")
            for key, (calls, total) in top:
                print(f"  {calls} x, {total} us: {key}")
        if window is not None:
            found = in_window(load(path), *window)
            print(f"  in {window[0]}-{window[1]} ms: X {found['X']}, i {found['i']} "
                  f"([memory] {found['[memory]']})")


if __name__ == "__main__":
    main()
