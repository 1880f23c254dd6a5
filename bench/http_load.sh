#!/bin/sh
# bench/http_load.sh: the server under wrk (Debian package wrk), 50
# connections for 30 s each, on three answers a page asks for again and again:
#   runs    /data/plugin/profile/runs
#   answer  a kept tool answer of about 1 MB (kernel_stats of a multi-worker
#           GPU profile, 0.97 MB of JSON), asked with Accept-Encoding: gzip
#           as browsers ask, and once more without (inflated while sent)
#   tile    one binary trace tile (format=bin) of the same profile, gzip
# One warm-up request makes each answer before wrk starts, so the figures are
# of kept answers. Prints wrk's requests/s, p99 latency and errors per answer,
# and the server's RSS (VmRSS) before the first wrk run and after the last.
#
#   bench/http_load.sh PROFVIEW_BIN [LOGDIR RUN HOST] [SECONDS] [CONNECTIONS]
#       (defaults: ../shared/testdata/logdirs, tf2_gpu_multi_worker's first
#        worker, 30 s, 50 connections)
#
# Asserts nothing.
set -eu
bin=${1:?usage: bench/http_load.sh PROFVIEW_BIN [LOGDIR RUN HOST] [SECONDS] [CONNECTIONS]}
here=$(cd "$(dirname "$0")/.." && pwd)
logdir=${2:-$here/../shared/testdata/logdirs}
run=${3:-tf2_gpu_multi_worker/GPU-multi-worker}
host=${4:-34.83.195.179_6003}
secs=${5:-30}
conns=${6:-50}
command -v wrk >/dev/null || { echo "bench/http_load.sh: wrk not found (apt-get install wrk)" >&2; exit 2; }
[ -d "$logdir" ] || { echo "bench/http_load.sh: no logdir $logdir" >&2; exit 2; }

cache=$(mktemp -d)
port=$((20000 + $$ % 20000))
"$bin" --logdir "$logdir" --port "$port" --bind 127.0.0.1 --cache-dir "$cache" >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$cache"' EXIT
base=http://127.0.0.1:$port
i=0
until curl -sf "$base/healthz" >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 300 ] || { echo "bench/http_load.sh: profview did not start" >&2; exit 1; }
    sleep 0.1
done

rss() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' /proc/$pid/status; }
q="run=$(printf %s "$run" | sed 's|/|%2F|g')&host=$host"
answer="$base/data/plugin/profile/data?$q&tag=kernel_stats"
tile="$base/api/trace/tile?$q&level=0&index=0&format=bin"
# The first answer loads the profile; the tile needs the trace index.
curl -sf -H 'Accept-Encoding: gzip' -o /dev/null "$answer"
curl -sf -o /dev/null "$base/api/trace/meta?$q"
curl -sf -H 'Accept-Encoding: gzip' -o /dev/null "$tile"
printf 'http_load_answer_bytes %s bytes\n' "$(curl -sf "$answer" | wc -c)"
printf 'http_load_rss_before %s MB\n' "$(rss)"

# wrk's latency table: "99%  12.34ms"; its summary: "Requests/sec: 1234.5"
# and, only when there were some, "Non-2xx or 3xx responses: N" and
# "Socket errors: connect A, read B, write C, timeout D".
one() {
    name=$1
    shift
    out=$(wrk -t2 -c"$conns" -d"${secs}s" --latency "$@")
    echo "$out" | awk -v n="$name" '
        /Requests\/sec/ { printf "http_load_%s_rps %s req/s\n", n, $2 }
        $1 == "99%" { printf "http_load_%s_p99 %s\n", n, $2 }
        /Non-2xx/ { bad += $NF }
        /Socket errors/ { for (i = 4; i <= NF; i += 2) { gsub(",", "", $i); bad += $i } }
        END { printf "http_load_%s_errors %d\n", n, bad }'
}
one runs "$base/data/plugin/profile/runs"
one answer_gzip -H 'Accept-Encoding: gzip' "$answer"
one answer_plain "$answer"
one tile_gzip -H 'Accept-Encoding: gzip' "$tile"
printf 'http_load_rss_after %s MB\n' "$(rss)"
