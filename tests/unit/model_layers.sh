#!/bin/sh
# model_layers: the files of server/model/ call one another one way only.
# server/model/model_priv.h lists them lowest first; a file may call the
# functions of the files listed above it, never of one below it or of
# itself through another (no circles). Read from the symbols of the built
# libpvmodel.a, so a call through a header's inline function counts where
# it is compiled. A file missing from the list fails too: add it there.
set -eu
lib=libpvmodel.a
list=${srcdir:-.}/server/model/model_priv.h
if [ ! -f "$lib" ] || [ ! -f "$list" ]; then
    echo "model_layers: run from the build folder (need $lib and $list)" >&2
    exit 99
fi
order=$(sed -n '/Files, lowest first/,/model_layers.sh/p' "$list" |
    sed -n 's/^ \*   \([a-z_0-9]*\)\.c .*/\1/p')
nm -A "$lib" | awk -v order="$order" '
BEGIN {
    n = split(order, o, "\n")
    for (i = 1; i <= n; i++)
        rank[o[i]] = i
}
{
    split($1, f, ":")
    file = f[2]
    sub(/\.o$/, "", file)
    objs[file] = 1
    if ($2 == "U")
        uses[file, $3] = 1
    else if ($2 ~ /^[TDBR]$/)
        owner[$3] = file
}
END {
    bad = 0
    for (file in objs) {
        if (!(file in rank)) {
            printf "model_layers: %s.c is not in model_priv.h'\''s list of files\n", file
            bad = 1
        }
    }
    for (key in uses) {
        split(key, k, SUBSEP)
        if (!(k[2] in owner) || owner[k[2]] == k[1])
            continue
        if (rank[owner[k[2]]] >= rank[k[1]]) {
            printf "model_layers: %s.c calls %s of %s.c, which model_priv.h lists after it\n",
                   k[1], k[2], owner[k[2]]
            bad = 1
        }
    }
    exit bad
}'
