#!/usr/bin/env python3
"""Extract the trace viewer's expected numbers from an .xplane.pb with
`protoc --decode` (independent of profview's decoder), for
tests/unit/test_trace_real.c.

usage: trace_expected.py XPLANE LINE_NAME SEARCH_TEXT > tests/data/trace_viewer/<name>.txt

Writes `key value` lines:
  n_events N                       every event with an offset_ps
  line <name> N                    events per line (one line per XLine)
  known_line / known_name / known_start_ps / known_dur_ps
                                   the first event (by offset) of LINE_NAME;
                                   start is absolute: timestamp_ns*1000 + offset_ps
  search <text> N                  events whose name (display name when set)
                                   contains SEARCH_TEXT, case-insensitively
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.join(HERE, "..", "..", "proto")


def parse(text):
    """Protobuf text format -> nested dicts of lists (enough for XSpace)."""
    root = {}
    stack = [root]
    for raw in text.splitlines():
        s = raw.strip()
        if not s:
            continue
        if s.endswith("{"):
            node = {}
            stack[-1].setdefault(s[:-1].strip(), []).append(node)
            stack.append(node)
        elif s == "}":
            stack.pop()
        else:
            key, _, val = s.partition(":")
            val = val.strip()
            if val.startswith('"'):
                val = bytes(val[1:-1], "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8", "replace")
            stack[-1].setdefault(key.strip(), []).append(val)
    return root


def main():
    path, want_line, needle = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(path, "rb") as f:
        out = subprocess.run(["protoc", "--proto_path=" + PROTO_DIR,
                              "--decode=tensorflow.profiler.XSpace", "xplane.proto"],
                             stdin=f, capture_output=True, check=True).stdout.decode()
    space = parse(out)
    total = 0
    per_line = []
    known = None
    hits = 0
    for plane in space.get("planes", []):
        names = {}
        for entry in plane.get("event_metadata", []):
            md = entry["value"][0]
            nm = md.get("display_name", [""])[0] or md.get("name", [""])[0]
            names[entry["key"][0]] = nm
        for line in plane.get("lines", []):
            ts_ns = int(line.get("timestamp_ns", ["0"])[0])
            lname = line.get("display_name", [""])[0] or line.get("name", [""])[0]
            n = 0
            for ev in line.get("events", []):
                if "offset_ps" not in ev:
                    continue
                n += 1
                name = names.get(ev.get("metadata_id", ["0"])[0], "")
                if needle.lower() in name.lower():
                    hits += 1
                start = ts_ns * 1000 + int(ev["offset_ps"][0])
                dur = int(ev.get("duration_ps", ["0"])[0])
                if lname == want_line and (known is None or start < known[1]):
                    known = (name, start, dur)
            per_line.append((lname, n))
            total += n
    print("n_events", total)
    for lname, n in per_line:
        print("line", lname.replace(" ", "_"), n)
    print("known_line", want_line)
    print("known_name", known[0])
    print("known_start_ps", known[1])
    print("known_dur_ps", known[2])
    print("search", needle, hits)


if __name__ == "__main__":
    main()
