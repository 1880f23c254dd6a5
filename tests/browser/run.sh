#!/bin/sh
# run.sh: the web UI tests as one automake TESTS entry: every *.test.mjs
# in this folder, among them
#   unit.test.mjs  the pure modules of web/ under node
#   ui.test.mjs    the page in headless Debian Chromium against the real
#                  server, $PROFVIEW_BIN (set by the Makefile)
#   realdata.test.mjs  the same on a real profile from ../shared/testdata
#                  (SKIP when that folder is absent)
# Exit 77 (automake's SKIP) with a line naming the test when node >= 18,
# /usr/bin/chromium or playwright-core cannot be had, or when a test was
# skipped (its SKIP line names it); never downloads a browser. node_modules
# is installed from package-lock.json by `npm ci` when missing, so a box that
# has it already needs no network.
# Given test files as arguments it runs those instead, and reports skips
# under $PV_TEST_NAME (tests/proxy/run.sh uses both).
name=${PV_TEST_NAME:-tests/browser/run.sh}
case "$0" in
*/*) here=${0%/*} ;;
*) here=. ;;
esac

skip() {
    echo "SKIP $name: $1"
    exit 77
}

[ -z "${PV_SKIP_BROWSER:-}" ] || skip "PV_SKIP_BROWSER is set (tests/run-all runs the browser tests once, in the plain build)"
command -v node >/dev/null 2>&1 || skip "node not found (Debian package nodejs, version 18 or newer)"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 18 ] || skip "node $(node --version) is older than 18, which playwright-core 1.61 needs"
[ -x /usr/bin/chromium ] || skip "/usr/bin/chromium not found (Debian package chromium)"
if [ -z "$PROFVIEW_BIN" ]; then
    echo "ERROR $name: PROFVIEW_BIN is not set; run it through make check" >&2
    exit 99
fi
[ -x "$PROFVIEW_BIN" ] || { echo "ERROR $name: $PROFVIEW_BIN is not an executable" >&2; exit 99; }

cd "$here" || exit 99
if [ ! -d node_modules/playwright-core ]; then
    command -v npm >/dev/null 2>&1 || skip "node_modules missing and npm not found"
    npm ci --no-audit --no-fund --loglevel=error >&2 ||
        skip "node_modules missing and 'npm ci' failed (offline?); run it once with network"
fi
# Every *.test.mjs here, so a new test file needs no edit of this script.
[ $# -gt 0 ] || set -- ./*.test.mjs
# The report goes to the log as TAP, and once more to a file, read back for
# the tests that were skipped: node counts them as passes, automake must
# hear SKIP (77), naming each.
tap=$(mktemp /tmp/pv-browser-tap.XXXXXX) || exit 99
node --test --test-reporter=tap --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$tap" "$@"
rc=$?
skipped=$(awk '/^ *ok [0-9]+ - .* # SKIP/ {
        sub(/^ *ok [0-9]+ - /, ""); at = index($0, " # SKIP")
        why = substr($0, at + 7); sub(/^ +/, "", why); sub(/^SKIP /, "", why)
        print "SKIP " substr($0, 1, at - 1) ": " why }' "$tap")
rm -f "$tap"
[ "$rc" -eq 0 ] || exit "$rc"
[ -n "$skipped" ] || exit 0
echo "$skipped"
echo "$name: $(echo "$skipped" | wc -l) skipped: the test as a whole is a SKIP (exit 77)"
exit 77
