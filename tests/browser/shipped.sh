#!/bin/sh
# shipped.sh: every file of tests/browser, tests/proxy and tests/mutants but
# node_modules is in EXTRA_DIST of its local.am, so that `make dist` ships the
# whole web UI suite and every mutant: a file that is in the tree but not named
# there fails this test.
top=$(cd "$(dirname "$0")/../.." && pwd) || exit 99
missing=
for dir in tests/browser tests/proxy tests/mutants; do
    for f in "$top/$dir"/*; do
        name=$dir/${f##*/}
        case $name in */node_modules | */local.am) continue ;; esac
        [ -f "$f" ] || continue
        grep -Eq "(^|[[:space:]])$name([[:space:]]|\\\\|\$)" "$top/$dir/local.am" ||
            missing="$missing $name"
    done
done
if [ -n "$missing" ]; then
    echo "FAIL tests/browser/shipped.sh: not in EXTRA_DIST of their local.am:$missing"
    exit 1
fi
echo "every file of tests/browser, tests/proxy and tests/mutants is in EXTRA_DIST"
