#!/usr/bin/env python3
"""Writes HolisticTraceAnalysis' analyses of PyTorch traces as small gzipped
JSON, one file per trace: OUT_DIR/<rel>/hta.json.gz, <rel> being the trace's
path under the traces folder without .json[.gz] (the folder where
torch-tb-profiler's views of the same trace are, tools/reference/kineto/).
A trace HTA fails on gets OUT_DIR/<rel>/hta_error.txt with its exception.
TensorFlow's trace JSON (tf_trace_viewer_json/) is no PyTorch trace and is
skipped.

HTA is asked to keep the last ProfilerStep (include_last_profiler_step):
by default it drops the GPU work the last step launched, and profview's
view is of the whole trace. With two steps or more HTA still keeps only the
GPU activities whose correlation id a host event up to the last step's end
carries (the work that step range launched).

HTA reads a folder of one run's rank traces. Traces that sit in one folder
and whose names say "rank" (sampled_multi_rank/) are read together as one
run; every other trace is read alone. Each trace's file holds its rank's:

  temporal      get_temporal_breakdown: idle, compute, non-compute and the
                span from the first GPU activity's start to the last's end (us)
  overlap       get_comm_comp_overlap: the share (%) of communication kernel
                time that computation kernels overlap
  kernel_types  the exclusive time of each kernel type and type overlap (us),
                get_gpu_kernel_breakdown's first table for this rank alone
  kernels       get_gpu_kernel_breakdown's 10 kernels of each type with the
                most time (memory kernels included): name, type, sum, max,
                min, mean (us)

Fractional-microsecond times are kept as they are (HTA_DISABLE_NS_ROUNDING):
by default HTA rounds each event inward to whole microseconds.

Usage: hta_views.py TRACES_DIR OUT_DIR   (needs the HTA venv of
tools/reference/README.md)
"""
import gzip
import json
import logging
import os
import shutil
import sys
import tempfile
import traceback
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
# HTA rounds fractional-microsecond times inward (start up, end down) by
# default, which moves sums by up to 1 us per event; profview keeps them.
os.environ["HTA_DISABLE_NS_ROUNDING"] = "1"

from hta.analyzers.breakdown_analysis import BreakdownAnalysis  # noqa: E402
from hta.trace_analysis import TraceAnalysis  # noqa: E402
from hta.utils.utils import KernelType, get_kernel_type  # noqa: E402

TOP = 10


def num(v):
    """A pandas/numpy scalar as a plain JSON number."""
    v = float(v)
    return int(v) if v == int(v) else v


def runs(traces_dir):
    """Lists of trace paths, each list one HTA run."""
    out = []
    for folder, _, files in sorted(os.walk(traces_dir)):
        if os.path.basename(folder) == "tf_trace_viewer_json":
            continue
        files = sorted(f for f in files if f.endswith((".json", ".json.gz")))
        ranked = [f for f in files if "rank" in f and folder.endswith("multi_rank")]
        if ranked:
            out.append([os.path.join(folder, f) for f in ranked])
            files = [f for f in files if f not in ranked]
        out.extend([os.path.join(folder, f)] for f in files)
    return out


def kernel_types(sym, df):
    """Exclusive time per kernel type and type overlap of one rank (us)."""
    gpu = df[df["stream"].ne(-1)].copy()
    gpu["kernel_type"] = gpu["name"].apply(lambda x: get_kernel_type(sym[x]))
    types = [KernelType.COMPUTATION.name, KernelType.COMMUNICATION.name,
             KernelType.MEMORY.name]
    t = BreakdownAnalysis._get_gpu_kernel_type_time(gpu, types)
    return {r["kernel_type"]: num(r["sum"]) for _, r in t.iterrows()}


def analyse(paths):
    tmp = tempfile.mkdtemp(prefix="hta_views_")
    try:
        for p in paths:
            link = os.path.join(tmp, os.path.basename(p))
            os.symlink(os.path.abspath(p), link)
        a = TraceAnalysis(trace_dir=tmp, include_last_profiler_step=True)
        names = {rank: os.path.basename(f) for rank, f in a.t.trace_files.items()}
        temporal = a.get_temporal_breakdown(visualize=False)
        overlap = a.get_comm_comp_overlap(visualize=False)
        # every kernel by name: past num_kernels HTA folds the rest into
        # "others" and then gives each kept name its sum as max, min and mean
        _, kernels = a.get_gpu_kernel_breakdown(
            visualize=False, duration_ratio=1.0, num_kernels=1 << 30,
            include_memory_kernels=True)
        sym = a.t.symbol_table.get_sym_table()
        out = {}
        for rank, trace_df in a.t.traces.items():
            tr = temporal[temporal["rank"] == rank].iloc[0]
            ov = overlap[overlap["rank"] == rank].iloc[0]
            ks = kernels[kernels["rank"] == int(rank)]
            ks = ks.sort_values(by=["sum (us)", "name"], ascending=[False, True])
            ks = ks.groupby("kernel_type", sort=False).head(TOP)
            out[names[rank]] = {
                "hta_version": hta_version(),
                "rank": int(rank),
                "temporal": {
                    "idle_us": num(tr["idle_time(us)"]),
                    "compute_us": num(tr["compute_time(us)"]),
                    "non_compute_us": num(tr["non_compute_time(us)"]),
                    "span_us": num(tr["kernel_time(us)"]),
                    "idle_pct": num(tr["idle_time_pctg"]),
                },
                "overlap": {"comp_comm_overlap_pct": num(ov["comp_comm_overlap_pctg"])
                            if ov["comp_comm_overlap_pctg"] == ov["comp_comm_overlap_pctg"]
                            else None},
                "kernel_types": kernel_types(sym, trace_df),
                "kernels": [
                    {"name": r["name"], "type": r["kernel_type"], "sum_us": num(r["sum (us)"]),
                     "max_us": num(r["max (us)"]), "min_us": num(r["min (us)"]),
                     "mean_us": num(r["mean (us)"])}
                    for _, r in ks.iterrows()
                ],
            }
        return out
    finally:
        shutil.rmtree(tmp)


def hta_version():
    from importlib.metadata import version
    return version("HolisticTraceAnalysis")


def main():
    traces_dir, out_dir = sys.argv[1], sys.argv[2]
    for paths in runs(traces_dir):
        rels = [os.path.relpath(p, traces_dir) for p in paths]
        try:
            per_file = analyse(paths)
        except Exception as e:  # HTA's own refusal is the finding
            for rel in rels:
                base = rel[:-8] if rel.endswith(".json.gz") else rel[:-5]
                err = os.path.join(out_dir, base, "hta_error.txt")
                os.makedirs(os.path.dirname(err), exist_ok=True)
                with open(err, "w") as f:
                    f.write("%s: %s\n" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
            print("error   %s: %s" % (" ".join(rels), type(e).__name__))
            traceback.print_exc(limit=1)
            continue
        for p, rel in zip(paths, rels):
            base = rel[:-8] if rel.endswith(".json.gz") else rel[:-5]
            dst = os.path.join(out_dir, base, "hta.json.gz")
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            body = json.dumps(per_file[os.path.basename(p)], indent=1, sort_keys=True)
            with gzip.GzipFile(dst, "wb", mtime=0) as f:
                f.write(body.encode())
            print("written %s" % rel)


if __name__ == "__main__":
    main()
