#!/bin/sh
# source_files: two house rules that a review would otherwise have to count
# by hand (issue #31). No two files under server/ share a name: a name says
# what a file holds, and a compiler message, a profile or a grep often shows
# the name without its folder (each folder's local.am and README.md are the
# exception, by design). No source file of server/ or web/ is over MAX_LINES
# lines: a file that long holds more than one job; split it by job.
set -eu
top=${srcdir:-.}
MAX_LINES=800

if [ ! -d "$top/server" ] || [ ! -d "$top/web" ]; then
    echo "source_files: no server/ and web/ under '$top' (set srcdir)" >&2
    exit 99
fi
cd "$top"
bad=0

dups=$(find server -type f ! -name local.am ! -name README.md |
    sed 's#.*/##' | sort | uniq -d)
for name in $dups; do
    echo "source_files: two or more files under server/ are called $name:" \
        $(find server -type f -name "$name" | sort)
    bad=1
done

long=$(find server web -type f \( -name '*.c' -o -name '*.h' -o -name '*.js' -o -name '*.mjs' \
    -o -name '*.css' -o -name '*.html' \) -exec wc -l {} + |
    awk -v max="$MAX_LINES" '$2 != "total" && $1 > max { print $2 ":" $1 }' | sort)
for entry in $long; do
    file=${entry%:*}
    echo "source_files: $file has ${entry##*:} lines, over $MAX_LINES: split it by job"
    bad=1
done
exit $bad
