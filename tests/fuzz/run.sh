#!/bin/sh
# Builds one libFuzzer target of server/ with clang, ASan and UBSan, and
# runs it. Not part of make check.
#   tests/fuzz/run.sh TARGET [SECONDS] [CORPUS_DIR]
# TARGET is the name after fuzz_ of a server/*/fuzz_TARGET.c or server/*/*/fuzz_TARGET.c:
#   xspace                 the XSpace decoder (seeds: the real .xplane.pb files)
#   legacy_stats           kernel_stats.pb / tensorflow_stats.pb (seeds: the real
#                          ones, behind the converter-picking first byte)
#   input_pipeline_legacy  input_pipeline.pb / overview_page.pb (likewise)
#   hlo                    the HLO decoder (seeds: the HLO protos of the real
#                          .xplane.pb files, written out by tests/fuzz/hlo_seeds.c)
#   chrome_json            the Chrome / PyTorch trace JSON decoder (seeds: the
#                          trace JSON files cut to their first 8 KiB, plain and
#                          gzip'd, and two hand-written shapes)
#   params                 the query parameters of every tool and route
#                          (seeds: the queries the page and the tests send)
#   trace_index            the reader of the trace index the disk cache keeps:
#                          inputs edit the index of one real profile
#                          (PV_FUZZ_PROFILE, default the TF GPU one of
#                          ../shared/testdata, else the demo's; no seeds)
# The corpus defaults to /tmp/pv-fuzz-TARGET, seeded from ../shared/testdata
# and tests/data when empty (copies in /tmp, never in the repository);
# crashes go to /tmp/pv-fuzz-TARGET-crashes/. Installs nothing: clang,
# protoc-c, libprotobuf-c-dev, libjansson-dev and zlib1g-dev must be there
# (apt-get install clang). PV_FUZZ_MAX_LEN caps an input (default 4 MB).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
target=${1:?usage: tests/fuzz/run.sh TARGET [SECONDS] [CORPUS_DIR]}
secs=${2:-600}
corpus=${3:-/tmp/pv-fuzz-$target}
work=/tmp/pv-fuzz-$target-build
crashes=/tmp/pv-fuzz-$target-crashes
src=$(ls "$top"/server/*/fuzz_"$target".c "$top"/server/*/*/fuzz_"$target".c 2>/dev/null || true)
[ -n "$src" ] || { echo "no server/*/fuzz_$target.c or server/*/*/fuzz_$target.c" >&2; exit 2; }
mkdir -p "$corpus" "$crashes" "$work/proto"

# the product's sources (no HTTP server, index or cache: of http/ only the
# request checks), the generated protobuf code
protoc-c --proto_path="$top/proto" --c_out="$work/proto" "$top"/proto/*.proto
sources=$(ls "$top"/server/ingest/*.c "$top"/server/ingest/*/*.c "$top"/server/model/*.c \
    "$top"/server/tools/*.c "$top"/server/tools/*/*.c "$top"/server/util/*.c \
    "$top"/server/http/request.c "$top"/server/answer/param_read.c "$work"/proto/*.pb-c.c |
    grep -v '/fuzz_')
cc="clang -std=c11 -D_GNU_SOURCE -g -O1 -I$top/server -I$work/proto $(pkg-config --cflags jansson)"
libs="-lprotobuf-c -ljansson -lz -lm -lpthread"

testdata="$top/../shared/testdata $top/tests/data"
seed() {   # seed PATTERN PREFIX-BYTE NAME: copies matching files behind PREFIX-BYTE
    find $testdata -name "$1" -size -4M 2>/dev/null | while read -r f; do
        n=$(printf '%s' "$f" | cksum | cut -d' ' -f1)
        if [ -n "$2" ]; then
            { printf "$2"; cat "$f"; } > "$corpus/seed-$3-$n"
        else
            cp "$f" "$corpus/seed-$3-$n"
        fi
    done
}
if [ -z "$(ls -A "$corpus")" ]; then
    case $target in
    xspace) seed '*.xplane.pb' '' xspace ;;
    legacy_stats) seed '*kernel_stats.pb' '\000' kernel; seed '*tensorflow_stats.pb' '\001' tf ;;
    input_pipeline_legacy) seed '*input_pipeline.pb' '\000' ip; seed '*overview_page.pb' '\001' ov ;;
    chrome_json)
        find $testdata -name '*.json.gz' -path '*traces*' 2>/dev/null | while read -r f; do
            n=$(printf '%s' "$f" | cksum | cut -d' ' -f1)
            zcat "$f" | head -c 8192 > "$corpus/seed-json-$n"
            head -c 4096 "$corpus/seed-json-$n" | gzip -c > "$corpus/seed-json-gz-$n"
        done
        printf '[{"ph":"B","ts":1,"tid":1},{"ph":"E","ts":2,"tid":1},{"ph":"C","ts":3,"args":{"a":1}}]' \
            > "$corpus/seed-be"
        printf '[{"ph":"X","ts":0,"dur":9,"tid":1},{"ph":"s","id":1,"ts":1,"tid":1},%s' \
            '{"ph":"f","id":1,"ts":5,"tid":2},{"ph":"X","ts":6,"dur":1,"tid":2}]' > "$corpus/seed-flow" ;;
    params)
        for q in 'run=r&host=h&tag=kernel_stats&max_rows=0&pv_format=columns&pv_extras=1' \
            'tag=trace_viewer%40&resolution=8000&start_time_ms=303.5&end_time_ms=304' \
            'host_steps=1&max_ops=0&include_idle=1' 'format=bin&level=3&index=7&q=Conv&limit=100'; do
            printf '%s' "$q" > "$corpus/seed-$(printf '%s' "$q" | cksum | cut -d' ' -f1)"
        done ;;
    trace_index) printf '' > "$corpus/seed-whole" ;;
    hlo)
        # shellcheck disable=SC2086
        $cc -o "$work/hlo_seeds" "$here/hlo_seeds.c" $sources $libs
        find $testdata -name '*.xplane.pb' 2>/dev/null | xargs "$work/hlo_seeds" "$corpus" ;;
    esac
fi

if [ "$target" = trace_index ] && [ -z "${PV_FUZZ_PROFILE:-}" ]; then
    gpu="$top/../shared/testdata/logdirs/tf_keras_gpu_gcp/train/plugins/profile"
    PV_FUZZ_PROFILE=$(ls "$gpu"/*/*.xplane.pb 2>/dev/null | head -n 1)
    [ -n "$PV_FUZZ_PROFILE" ] || PV_FUZZ_PROFILE=$(ls "$top"/demo/plugins/profile/*/*.xplane.pb | head -n 1)
    export PV_FUZZ_PROFILE
fi

# shellcheck disable=SC2086
$cc -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -o "$work/fuzz_$target" "$src" $sources $libs
exec "$work/fuzz_$target" -max_total_time="$secs" -max_len="${PV_FUZZ_MAX_LEN:-4000000}" \
    -rss_limit_mb=4096 -timeout=20 -artifact_prefix="$crashes/" "$corpus"
