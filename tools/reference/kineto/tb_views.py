#!/usr/bin/env python3
"""Writes torch-tb-profiler 0.4.3's views of PyTorch traces as gzipped JSON,
the reference tests/api/compare_kineto compares profview with.

    /tmp/venv-tbp/bin/python tools/reference/kineto/tb_views.py \
        ../shared/testdata/traces tests/data/reference/kineto

For every trace JSON under TRACES it runs torch-tb-profiler's own parser
and generator (RunProfileData.parse, RunGenerator.generate_run_profile: what
its TensorBoard routes serve, without TensorBoard) and writes, under
OUT/<trace path without .json[.gz]>/:

    overview.json.gz     /overview (steps breakdown, performance, recommendations)
    operator.json.gz     /operation/table?group_by=Operation
    kernel.json.gz       /kernel/table?group_by=Kernel and /kernel/table (by op)
    memory.json.gz       /memory_curve and /memory (peaks per device)
    distributed.json.gz  the worker's row of /distributed/overlap: per step
                         [computation - overlap, overlap, communication -
                         overlap, other] in microseconds (overall_parser.py)
    gpu.json.gz          the overview's GPU summary per GPU with kernels:
                         utilization, est. SM efficiency and est. achieved
                         occupancy, unrounded (gpu_metrics_parser.py; null
                         where the trace has no blocks per SM or occupancy)

A trace torch-tb-profiler cannot read gets an error.txt with its message.
Files are gzipped with no name or time in the header, so a rerun gives
the same bytes.

One change to 0.4.3, made here before it reads anything: its category map
(trace.py's EventTypeMap) learns the runtime categories Kineto has written
since 2022 and torch-tb-profiler's later releases know: cuda_runtime,
mtia_runtime, glow_runtime, xpu_runtime, privateuse1_runtime. Without it
0.4.3 reads no runtime call in a trace newer than itself, so it ties no
kernel to an operator and counts no Runtime in a step; with it, those
traces compare like the 2021 ones. Traces of 2021 ("Runtime") read the
same either way.
"""
import gzip
import io
import json
import os
import sys
import traceback

from torch_tb_profiler.profiler import trace
from torch_tb_profiler.profiler.data import RunProfileData
from torch_tb_profiler.profiler.run_generator import RunGenerator

for category in ("cuda_runtime", "mtia_runtime", "glow_runtime", "xpu_runtime",
                 "privateuse1_runtime"):
    trace.EventTypeMap[category] = trace.EventTypes.RUNTIME


def plain(obj):
    """obj with what strict JSON readers refuse made readable: integers past
    64 bits (torch-tb-profiler's empty step spans sys.maxsize) as floats,
    NaN and infinities as null."""
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    if isinstance(obj, bool):
        return obj
    if isinstance(obj, int) and not -2**63 <= obj < 2**63:
        return float(obj)
    if isinstance(obj, float) and (obj != obj or obj in (float("inf"), float("-inf"))):
        return None
    return obj


def write_gz(path, obj):
    raw = json.dumps(plain(obj), sort_keys=True, indent=None, separators=(",", ":"),
                     allow_nan=False).encode()
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as f:
        f.write(raw)
    with open(path, "wb") as f:
        f.write(buf.getvalue())


def views(path, cache):
    data = RunProfileData.parse("worker", None, path, cache)
    profile = RunGenerator("worker", None, data).generate_run_profile()
    out = {"overview": profile.overview,
           "operator": profile.operation_table_by_name,
           "kernel": {"by_kernel": profile.kernel_table, "by_op": profile.kernel_op_table}}
    out["distributed"] = {
        "steps": list(data.steps_names),
        "costs": [[c.computation - c.overlap, c.overlap, c.communication - c.overlap, c.other]
                  for c in data.comm_overlap_costs]}
    gpu = data.gpu_metrics_parser
    out["gpu"] = {str(g): {"utilization": gpu.gpu_utilization[g],
                           "sm_efficiency": gpu.avg_approximated_sm_efficiency_per_device[g],
                           "occupancy": gpu.avg_occupancy_per_device[g]}
                  for g in sorted(gpu.gpu_ids)}
    if profile.memory_snapshot is not None:
        out["memory"] = {"curve": profile.get_memory_curve("us", "B"),
                         "stats": profile.get_memory_stats(memory_metric="B")}
    return out


def main():
    traces, out_dir = sys.argv[1], sys.argv[2]
    cache = "/tmp/tb-views-cache"
    os.makedirs(cache, exist_ok=True)
    for root, _, files in sorted(os.walk(traces)):
        for name in sorted(files):
            if not (name.endswith(".json") or name.endswith(".json.gz")):
                continue
            rel = os.path.relpath(os.path.join(root, name), traces)
            stem = rel[:-8] if rel.endswith(".json.gz") else rel[:-5]
            dest = os.path.join(out_dir, stem)
            os.makedirs(dest, exist_ok=True)
            try:
                got = views(os.path.join(root, name), cache)
            except Exception:
                with open(os.path.join(dest, "error.txt"), "w") as f:
                    f.write(traceback.format_exc().strip().splitlines()[-1] + "\n")
                print(f"{rel}: error")
                continue
            for view, obj in got.items():
                write_gz(os.path.join(dest, view + ".json.gz"), obj)
            print(f"{rel}: {', '.join(got)}")


if __name__ == "__main__":
    main()
