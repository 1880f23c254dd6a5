#!/usr/bin/env python3
"""Extracts the expected rows of kernel_stats and framework_op_stats from the
per-tool files TensorFlow itself wrote next to the xplanes in
../shared/testdata (kernel_stats.pb, tensorflow_stats.pb) into small TSV
files under tests/data/kernel_stats/ and tests/data/op_stats/.

Dev tooling only: needs `protoc` (it decodes with the minimal schemas in
tools/reference/protos/, written from FORMATS.md section 1.3) and Python 3,
no TensorFlow. The tests read the committed TSV files.

Usage (from the repository root):
  python3 tools/reference/oracles/extract_tf_oracles.py
"""
import os
import re
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TESTDATA = os.path.join(ROOT, "..", "shared", "testdata", "logdirs")
PROTOS = os.path.join(ROOT, "tools", "reference", "protos")
PROFILES = {
    "tf_keras_gpu_gcp": "tf_keras_gpu_gcp/train/plugins/profile/2022_11_04_21_26_12/instance-ecbm",
    "tf_keras_cpu_macos": "tf_keras_cpu_macos/train/plugins/profile/2022_10_31_19_09_08/"
                          "gaoyihaodeMacBook-Pro.local",
}


def decode(path, proto, message):
    with open(path, "rb") as f:
        raw = f.read()
    if not raw:
        return ""
    return subprocess.run(["protoc", "-I", PROTOS, "--decode", message, proto], input=raw,
                          capture_output=True, check=True, cwd=PROTOS).stdout.decode()


def unquote(v):
    # protoc text format: C-style escapes, UTF-8 as octal escapes.
    if not v.startswith('"'):
        return v
    b = v[1:-1].encode("latin-1").decode("unicode_escape").encode("latin-1")
    return b.decode("utf-8")


def messages(text, name, indent):
    pat = re.compile(r"^%s%s \{\n(.*?)^%s\}" % (indent, name, indent), re.S | re.M)
    for body in pat.findall(text):
        fields = {}
        for k, v in re.findall(r"^%s  (\w+): (.*)$" % indent, body, re.M):
            fields[k] = unquote(v)
        yield fields


def kernel_stats(key, prefix):
    text = decode(prefix + ".kernel_stats.pb", "kernel_stats_min.proto",
                  "tensorflow.profiler.KernelStatsDb")
    out = os.path.join(ROOT, "tests", "data", "kernel_stats", key + ".tf_kernel_stats.tsv")
    with open(out, "w") as f:
        f.write("# kernel_name\top_name\toccurrences\ttotal_ns\tmin_ns\tmax_ns\n")
        for r in messages(text, "reports", ""):
            f.write("\t".join([r["name"], r.get("op_name", ""), r.get("occurrences", "0"),
                               r.get("total_duration_ns", "0"), r.get("min_duration_ns", "0"),
                               r.get("max_duration_ns", "0")]) + "\n")
    print(out)


def tf_stats(key, prefix):
    text = decode(prefix + ".tensorflow_stats.pb", "tf_stats_min.proto",
                  "tensorflow.profiler.TfStatsDatabase")
    with_idle = text.split("without_idle {")[0]
    out = os.path.join(ROOT, "tests", "data", "op_stats", key + ".tf_stats.tsv")
    with open(out, "w") as f:
        f.write("# host_or_device\top_type\top_name\toccurrences\ttotal_time_us\t"
                "total_self_time_us\n")
        for r in messages(with_idle, "tf_stats_record", "  "):
            f.write("\t".join([r["host_or_device"], r.get("op_type", ""), r.get("op_name", ""),
                               r.get("occurrences", "0"), r.get("total_time_in_us", "0"),
                               r.get("total_self_time_in_us", "0")]) + "\n")
    print(out)


def main():
    for key, rel in PROFILES.items():
        prefix = os.path.join(TESTDATA, rel)
        kernel_stats(key, prefix)
        tf_stats(key, prefix)


if __name__ == "__main__":
    main()
