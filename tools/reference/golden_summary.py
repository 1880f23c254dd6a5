#!/usr/bin/env python3
"""Prints the key numbers of every golden set as a Markdown table.

Reads only the committed golden files (any Python 3, no xprof needed), so
tests/data/reference/README.md can quote what the reference implementation
shows for each profile: steps, step time, input share, bottleneck, op and
kernel counts, memory peak, trace event count.

Usage: tools/reference/golden_summary.py [REF_DIR]
"""
import gzip
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REF_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "tests", "data",
                                        "reference"))
# "Your program is HIGHLY input-bound because 95.0% of the total step time
# sampled is waiting for input", or "... because 9.8% ... is spent on 'All
# Others' time": the verdict word and what the share is of.
VERDICT = re.compile(r"(HIGHLY|MODERATELY|POTENTIALLY|NOT) input-bound")
SHARE = re.compile(r"([0-9.]+)% of the total step time sampled is "
                   r"(waiting for input|spent on 'All Others')")


def load(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return None
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def step_numbers(ov):
    """(steps, avg ms, min ms, max ms, input %, bottleneck) from overview."""
    if not ov:
        return ["-"] * 6
    steps = ov[1]
    p = steps.get("p", {})
    text = p.get("input_conclusion", "")
    verdict = VERDICT.search(text)
    share = SHARE.search(text)
    conclusion = "-"
    if verdict and share:
        what = "input" if share.group(2).startswith("waiting") else "others"
        conclusion = f"{verdict.group(1)}: {what} {share.group(1)}%"
    elif text:
        conclusion = text[:40]
    bottleneck = (ov[3].get("p") or {}).get("bottleneck", "")
    return [len(steps.get("rows", [])), p.get("steptime_ms_average"),
            p.get("steptime_ms_minimum"), p.get("steptime_ms_maximum"),
            conclusion, bottleneck or "-"]


def ipa_numbers(ipa):
    """(steps, infeed ms avg, host compute ms avg) from input pipeline."""
    if not ipa:
        return ["-"] * 3
    p = ipa[1].get("p", {})
    return [len(ipa[1].get("rows", [])), p.get("infeed_time_ms_avg"),
            p.get("host_compute_time_ms_avg")]


def table_rows(data):
    if not data:
        return "-"
    t = data[0] if isinstance(data, list) else data
    return len(t.get("rows", []))


def memory_peak(mp):
    if not mp:
        return "-"
    per = mp.get("memoryProfilePerAllocator", {})
    if not per:
        return "no allocator"
    return "; ".join(
        f"{k}: {int(v['profileSummary'].get('peakBytesUsageLifetime', 0))}"
        for k, v in sorted(per.items()))


def trace_events(tv):
    if not tv:
        return "-"
    return len(tv.get("traceEvents", []))


def summarize(folder, label):
    with open(os.path.join(folder, "MANIFEST.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    rows = []
    hosts = manifest["hosts"]
    targets = hosts + (["ALL_HOSTS"] if len(hosts) > 1 else [])
    for host in targets:
        ov = load(folder, f"{host}.overview_page.json.gz")
        ipa = load(folder, f"{host}.input_pipeline_analyzer.json.gz")
        rows.append([label, host] + step_numbers(ov) + ipa_numbers(ipa) + [
            table_rows(load(folder, f"{host}.framework_op_stats.json.gz")),
            table_rows(load(folder, f"{host}.kernel_stats.json.gz")),
            memory_peak(load(folder, f"{host}.memory_profile.json.gz")),
            trace_events(load(folder, f"{host}.trace_viewer.json.gz")),
        ])
    return rows


def golden_folders(ref_dir):
    for dirpath, dirnames, filenames in os.walk(ref_dir):
        dirnames.sort()
        if "MANIFEST.json" in filenames:
            yield dirpath


def main():
    ref_dir = sys.argv[1] if len(sys.argv) > 1 else REF_DIR
    header = ["profile / run", "host", "ov steps", "avg step ms",
              "min ms", "max ms", "input-bound verdict", "bottleneck", "ipa steps",
              "input ms avg", "host compute ms avg", "op stats rows",
              "kernel rows", "memory peak bytes (allocator)",
              "trace events"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for folder in golden_folders(ref_dir):
        label = os.path.relpath(folder, ref_dir).replace("/golden/", " / ")
        for row in summarize(folder, label):
            print("| " + " | ".join(str(c) for c in row) + " |")


if __name__ == "__main__":
    main()
