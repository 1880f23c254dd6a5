#!/bin/sh
# precompute.sh: throughput of `profview precompute` (profile bytes per
# second of wall time, each run into an empty cache folder) with 1 shard
# and with 2 shards run at once, on
#   shared  the real profiles of ../shared/testdata/logdirs (when present)
#   1g      one generated 1 GB profile (bench/gen_xspace OUT 1024 4): one
#           unit of work, so a second shard has nothing to do
#   2x512m  the same bytes as two hosts of 512 MB, which two shards split
# and the time a read-only replica then takes to answer a tool of the 1 GB
# profile (nothing decoded). Prints `name value unit` lines.
#   bench/precompute.sh [BUILD_DIR]   (default: build)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
bin=$build/profview
gen=$build/bench/gen_xspace
[ -x "$gen" ] || make -C "$build" bench/gen_xspace >/dev/null
work=$(mktemp -d /tmp/pv-bench-precompute.XXXXXX)
trap 'rm -rf "$work"' EXIT

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# run NAME LOGDIR SHARDS: precompute LOGDIR into a fresh folder with SHARDS
# shards at once; prints NAME's wall time, the CPU time the shards took
# together (on a loaded machine the fairer figure) and the throughput.
run() {
    name=$1 logdir=$2 shards=$3
    cache=$work/cache-$name-$shards
    bytes=$(find "$logdir" -name '*.xplane.pb' -printf '%s\n' | awk '{ s += $1 } END { print s }')
    t0=$(now_ms)
    # the shards' user and system time, from the `times` of the shell that
    # waited for them (in a pipeline it would be another shell's)
    (
        i=0
        while [ "$i" -lt "$shards" ]; do
            "$bin" precompute "$logdir" --cache-dir "$cache" --shard "$i/$shards" \
                >"$work/out-$name-$shards-$i" &
            i=$((i + 1))
        done
        wait
        times >"$work/times"
    )
    cpu=$(tail -n 1 "$work/times" | awk '{ s = 0; for (k = 1; k <= 2; k++) { m = index($k, "m")
        s += substr($k, 1, m - 1) * 60 + substr($k, m + 1) }; printf "%.1f\n", s }')
    t1=$(now_ms)
    ms=$((t1 - t0))
    grep -q ' 0 failed' "$work"/out-"$name-$shards"-* || { cat "$work"/out-"$name-$shards"-*; exit 1; }
    echo "precompute_${name}_${shards}shard_wall $ms ms"
    echo "precompute_${name}_${shards}shard_cpu $cpu s"
    echo "precompute_${name}_${shards}shard_throughput $(awk -v b="$bytes" -v ms="$ms" \
        'BEGIN { printf "%.1f", b / 1e6 / (ms / 1e3) }') MB/s"
}

# A file written seconds ago is not offered until it stops changing.
age() { find "$1" -type f -exec touch -d '1 hour ago' {} +; }

if [ -d "$top/../shared/testdata/logdirs" ]; then
    run shared "$top/../shared/testdata/logdirs" 1
    run shared "$top/../shared/testdata/logdirs" 2
fi

mkdir -p "$work/1g/plugins/profile/run" "$work/2x512m/plugins/profile/run"
"$gen" "$work/1g/plugins/profile/run/host0.xplane.pb" 1024 4 >/dev/null
"$gen" "$work/2x512m/plugins/profile/run/host0.xplane.pb" 512 4 >/dev/null
"$gen" "$work/2x512m/plugins/profile/run/host1.xplane.pb" 512 4 >/dev/null
age "$work/1g"
age "$work/2x512m"
run 1g "$work/1g" 1
run 1g "$work/1g" 2
run 2x512m "$work/2x512m" 1
run 2x512m "$work/2x512m" 2

# A replica on the 1 GB profile's cache: start to a kept overview answer.
port=$(( 20000 + $$ % 20000 ))
t0=$(now_ms)
"$bin" --logdir "$work/1g" --port "$port" --cache-dir "$work/cache-1g-1" --cache-read-only \
    >/dev/null 2>&1 &
pid=$!
until curl -s -f -o /dev/null \
    "http://127.0.0.1:$port/data/plugin/profile/data?run=run&tag=overview_page&host=host0"; do
    sleep 0.01
done
t1=$(now_ms)
decoded=$(curl -s "http://127.0.0.1:$port/api/index" | sed 's/.*"decoded":\([0-9]*\).*/\1/')
kill "$pid"
wait "$pid" || true
echo "replica_1g_start_to_overview $((t1 - t0)) ms"
echo "replica_1g_decoded $decoded profiles"
