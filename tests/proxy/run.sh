#!/bin/sh
# run.sh: profview behind a real nginx in headless Chromium (nginx.test.mjs)
# as its own automake test, so that a machine without nginx reports it
# SKIPPED by name instead of passing it over inside the browser tests.
# Node, Chromium and playwright-core are checked (and skipped on) by
# tests/browser/run.sh, which runs the file.
name=tests/proxy/run.sh
here=$(cd "$(dirname "$0")" && pwd) || exit 99

if [ ! -x /usr/sbin/nginx ]; then
    echo "SKIP $name: /usr/sbin/nginx not found (Debian package nginx)"
    exit 77
fi
PV_TEST_NAME=$name exec "$here/../browser/run.sh" "$here/nginx.test.mjs"
