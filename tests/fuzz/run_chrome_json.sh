#!/bin/sh
# Builds server/ingest/chrome_json/fuzz_chrome_json.c with clang's
# libFuzzer, ASan and UBSan and runs it. Not part of make check.
#   [PV_BUILD=DIR] tests/fuzz/run_chrome_json.sh [SECONDS] [CORPUS_DIR]
# The decoder, the model and the format table are built with the
# sanitizers; what the table's other formats call (the legacy per-tool
# converters, tools) comes uninstrumented from a build folder's libraries
# (PV_BUILD, default build/, made by make first).
# The corpus defaults to /tmp/pv-fuzz-chrome-json, seeded with the trace
# JSON files of ../shared/testdata cut to their first 8 KiB (plain and
# gzip'd; copied to /tmp, never into the repository) and the unit tests'
# fixture shapes. Crashes are written to /tmp/pv-fuzz-chrome-json-crashes/.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${PV_BUILD:-$top/build}
secs=${1:-600}
corpus=${2:-/tmp/pv-fuzz-chrome-json}
out=/tmp/pv-fuzz-chrome-json-bin
crashes=/tmp/pv-fuzz-chrome-json-crashes
mkdir -p "$corpus" "$crashes"
if [ -d "$top/../shared/testdata/traces" ] && [ -z "$(ls -A "$corpus")" ]; then
    n=0
    for f in $(find "$top/../shared/testdata/traces" -type f | sort); do
        n=$((n + 1))
        case "$f" in
        *.gz) zcat "$f" | head -c 8192 > "$corpus/seed-$n.json" ;;
        *) head -c 8192 "$f" > "$corpus/seed-$n.json" ;;
        esac
        head -c 4096 "$corpus/seed-$n.json" | gzip -c > "$corpus/seed-$n.json.gz"
    done
    printf '[{"ph":"B","ts":1,"tid":1},{"ph":"E","ts":2,"tid":1},{"ph":"C","name":"c","ts":3,"args":{"a":1}}]' \
        > "$corpus/seed-be"
    printf '[{"ph":"X","ts":0,"dur":9,"tid":1},{"ph":"s","id":1,"ts":1,"tid":1},{"ph":"f","id":1,"ts":5,"tid":2},{"ph":"X","ts":6,"dur":1,"tid":2}]' \
        > "$corpus/seed-flow"
fi
clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$top/server" -o "$out" "$top/server/ingest/chrome_json/fuzz_chrome_json.c" \
    "$top"/server/ingest/*.c "$top"/server/ingest/xspace/*.c "$top"/server/ingest/chrome_json/cj_*.c \
    "$top/server/ingest/chrome_json/chrome_json.c" "$top/server/ingest/tf_legacy/tf_legacy.c" \
    "$top"/server/model/*.c \
    "$top/server/util/arena.c" "$top/server/util/error.c" "$top/server/util/hash.c" \
    "$top/server/util/mem.c" "$top/server/util/log.c" "$top/server/util/mapguard.c" \
    "$build/libpvingest.a" "$build/libpvtools.a" "$build/libpvproto.a" "$build/libpvmodel.a" \
    "$build/libpvutil.a" -ljansson -lprotobuf-c -lz -lm
exec "$out" -max_total_time="$secs" -max_len="${PV_FUZZ_MAX_LEN:-16384}" -rss_limit_mb=4096 -timeout=20 \
    -artifact_prefix="$crashes/" "$corpus"
