#!/bin/sh
# Builds tests/fuzz/fuzz_legacy_stats with clang's libFuzzer, ASan and UBSan
# and runs it. Not part of make check.
#   tests/fuzz/run_legacy_stats.sh [SECONDS] [CORPUS_DIR]
# The corpus defaults to /tmp/pv-fuzz-legacy-stats, seeded with the real
# kernel_stats.pb / tensorflow_stats.pb files from ../shared/testdata
# (copied to /tmp with the reader-selecting first byte, never into the
# repository). Crashes are written to /tmp/pv-fuzz-legacy-stats-crashes/.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${1:-600}
corpus=${2:-/tmp/pv-fuzz-legacy-stats}
out=/tmp/pv-fuzz-legacy-stats-bin
crashes=/tmp/pv-fuzz-legacy-stats-crashes
mkdir -p "$corpus" "$crashes"
if [ -d "$top/../shared/testdata" ] && [ -z "$(ls -A "$corpus")" ]; then
    n=0
    find "$top/../shared/testdata" -name '*kernel_stats.pb' -size -2M | while read -r f; do
        n=$((n + 1))
        { printf '\000'; cat "$f"; } > "$corpus/seed-kernel-$n"
    done
    find "$top/../shared/testdata" -name '*tensorflow_stats.pb' -size -2M | while read -r f; do
        n=$((n + 1))
        { printf '\001'; cat "$f"; } > "$corpus/seed-tfstats-$n"
    done
    # A tiny valid HLO proto: HloProto{module{computations{instructions{name "a"}}}}.
    printf '\002\012\007\032\005\022\003\012\001a' > "$corpus/seed-hlo-1"
fi
clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$top/server" -o "$out" "$here/fuzz_legacy_stats.c" \
    "$top/server/ingest/tf_legacy/legacy_stats.c" "$top/server/tools/kernel_stats/kernel_stats.c" \
    "$top/server/tools/kernel_stats/kernel_stats_json.c" "$top/server/tools/op_stats/op_stats.c" \
    "$top/server/tools/op_stats/op_stats_json.c" "$top/server/tools/op_stats/op_metrics.c" \
    "$top/server/tools/common/hlo_names.c" "$top/server/tools/common/tf_op_name.c" \
    "$top/server/tools/common/datatable.c" \
    "$top"/server/model/*.c \
    "$top/server/util/arena.c" "$top/server/util/error.c" "$top/server/util/hash.c" \
    "$top/server/util/mem.c" "$top/server/util/log.c" -ljansson
exec "$out" -max_total_time="$secs" -max_len=4000000 -rss_limit_mb=4096 -timeout=20 \
    -artifact_prefix="$crashes/" "$corpus"
