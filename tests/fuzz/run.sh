#!/bin/sh
# Builds tests/fuzz/fuzz_xspace with clang's libFuzzer, ASan and UBSan and
# runs it. Not part of make check.
#   [PV_FUZZ_MAX_LEN=N] tests/fuzz/run.sh [SECONDS] [CORPUS_DIR]
# The corpus defaults to /tmp/pv-fuzz-xspace, seeded with the real
# .xplane.pb files from ../shared/testdata (copied to /tmp, never into the
# repository). Crashes are written to /tmp/pv-fuzz-xspace-crashes/.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${1:-600}
corpus=${2:-/tmp/pv-fuzz-xspace}
out=/tmp/pv-fuzz-xspace-bin
crashes=/tmp/pv-fuzz-xspace-crashes
mkdir -p "$corpus" "$crashes"
if [ -d "$top/../shared/testdata" ] && [ -z "$(ls -A "$corpus")" ]; then
    find "$top/../shared/testdata" -name '*.xplane.pb' | while read -r f; do
        cp "$f" "$corpus/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
    done
fi
clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$top/server" -o "$out" "$here/fuzz_xspace.c" \
    "$top"/server/ingest/*.c "$top"/server/ingest/xspace/*.c "$top"/server/model/*.c \
    "$top/server/util/arena.c" "$top/server/util/error.c" "$top/server/util/hash.c" \
    "$top/server/util/mem.c" "$top/server/util/log.c" "$top/server/util/mapguard.c"
exec "$out" -max_total_time="$secs" -max_len="${PV_FUZZ_MAX_LEN:-4000000}" -rss_limit_mb=4096 -timeout=20 \
    -artifact_prefix="$crashes/" "$corpus"
