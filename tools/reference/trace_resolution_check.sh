#!/bin/sh
# Compares profview's trace_viewer@ decimation with XProf 2.24.2's on a
# generated profile big enough for XProf to decimate (over 500,000 events):
# same event counts, and the same events (pid mapped, tid, ts, name).
# Dev tooling only; needs a built profview (BUILD, default build/) and the
# xprof venv of README.md. About a minute and 1 GB of /tmp.
#
# Usage: tools/reference/trace_resolution_check.sh [BUILD]
# Last run (2026-11-29): 672,300 events; resolution 0: 672,300 = 672,300,
# 100: 1,192 = 1,192, 8000: 84,363 = 84,363, 1000 in 5000.5-9000 ms:
# 11,589 = 11,589, identical event sets.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
py=${XPROF_PYTHON:-/tmp/venv-ref/bin/python}
work=$(mktemp -d /tmp/trace-res-XXXXXX)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/logdir/plugins/profile/gen" "$work/xprof"
"$build/bench/gen_xspace" "$work/logdir/plugins/profile/gen/gen.xplane.pb" 60 1 >/dev/null
ln -s "$work/logdir/plugins/profile/gen/gen.xplane.pb" "$work/xprof/gen.xplane.pb"
port=$((20000 + $$ % 20000))
"$build/profview" --logdir "$work/logdir" --port "$port" --cache-dir "$work/cache" \
    >"$work/server.log" 2>&1 &
server=$!
sleep 2
for q in 'resolution=0' 'resolution=100' 'resolution=8000' \
         'resolution=1000&start_time_ms=5000.5&end_time_ms=9000'; do
    opts=$(echo "$q" | "$py" -c 'import sys, json
print(json.dumps({k: v for k, v in (p.split("=") for p in sys.stdin.read().strip().split("&"))}))')
    "$py" - "$work/xprof/gen.xplane.pb" "$opts" "$work/xprof.json" <<'EOF'
import json, os, sys
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
from xprof.convert import raw_to_tool_data as r
data, _ = r.xspace_to_tool_data([sys.argv[1]], "trace_viewer@",
                                 {"use_saved_result": False, "hosts": ["gen"],
                                  "trace_viewer_options": json.loads(sys.argv[2])})
open(sys.argv[3], "w").write(data if isinstance(data, str) else data.decode())
EOF
    curl -s "http://127.0.0.1:$port/data/plugin/profile/data?run=gen&host=gen&tag=trace_viewer%40&$q" \
        -o "$work/ours.json"
    python3 - "$q" "$work/xprof.json" "$work/ours.json" <<'EOF'
import json, sys
from collections import Counter
def events(path):
    d = json.load(open(path))
    names = {e["pid"]: e["args"]["name"] for e in d["traceEvents"]
             if e.get("ph") == "M" and e.get("name") == "process_name"}
    return d["returnedEventsSize"], Counter(
        (names[e["pid"]], e["tid"], round(e["ts"], 3), e["name"])
        for e in d["traceEvents"] if e.get("ph") in ("X", "i"))
nx, ex = events(sys.argv[2])
no, eo = events(sys.argv[3])
same = "identical events" if ex == eo else f"{sum((ex - eo).values())} only in XProf, {sum((eo - ex).values())} only in profview"
print(f"{sys.argv[1]}: XProf {nx}, profview {no}; {same}")
EOF
done
