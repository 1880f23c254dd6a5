#!/usr/bin/env python3
"""Extract the numbers profview's overview/input-pipeline tests compare with
from TensorFlow's own overview_page.pb / input_pipeline.pb.

Dev tooling only (never needed to build, run or test profview). Needs only
protoc: the outer message is decoded with tools/reference/protos/
pv_tool_results.proto, and every google.protobuf.Any payload is decoded
again by protoc with the type named in its type_url.

Usage: extract_overview.py FILE.overview_page.pb|FILE.input_pipeline.pb
Prints "key value" lines (sorted, one per number or string) on stdout.
"""
import codecs
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.join(HERE, "protos", "pv_tool_results.proto")


def decode(data, msg):
    out = subprocess.run(
        ["protoc", "-I" + os.path.dirname(PROTO), "-I/usr/include",
         "--decode=tensorflow.profiler." + msg, os.path.basename(PROTO)],
        input=data, capture_output=True, check=True, cwd=os.path.dirname(PROTO))
    return out.stdout.decode()


def unquote(s):
    return codecs.escape_decode(s[1:-1].encode("latin-1"))[0]


def walk(text, prefix, out):
    """Flattens protoc text format into out[(path)] lists, expanding Any."""
    stack = [prefix]
    counters = [{}]
    any_type = None
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.endswith("{"):
            name = line[:-1].strip()
            idx = counters[-1].get(name, 0)
            counters[-1][name] = idx + 1
            stack.append(f"{stack[-1]}.{name}[{idx}]" if stack[-1] else f"{name}[{idx}]")
            counters.append({})
            continue
        if line == "}":
            stack.pop()
            counters.pop()
            continue
        key, _, val = line.partition(": ")
        if key == "type_url":
            any_type = unquote(val).decode().rsplit(".", 1)[-1]
            continue
        if key == "value" and any_type:
            inner = decode(unquote(val), any_type)
            walk(inner, stack[-1], out)
            any_type = None
            continue
        path = f"{stack[-1]}.{key}" if stack[-1] else key
        if val.startswith('"'):
            val = unquote(val).decode()
        out.setdefault(path, []).append(val)


def main():
    path = sys.argv[1]
    msg = "OverviewPage" if path.endswith("overview_page.pb") else "InputPipelineAnalysisResult"
    with open(path, "rb") as f:
        text = decode(f.read(), msg)
    out = {}
    walk(text, "", out)
    for k in sorted(out):
        for v in out[k]:
            print(k, v.replace("\n", "\\n"))


if __name__ == "__main__":
    main()
