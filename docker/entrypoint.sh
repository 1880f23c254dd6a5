#!/bin/sh
# Inside a container the port must be reachable from outside it, so bind
# every address unless told otherwise; the logdir defaults to /logs.
set -eu
exec /usr/bin/profview --logdir "${PROFVIEW_LOGDIR:-/logs}" --bind "${PROFVIEW_BIND:-0.0.0.0}" \
    --port "${PROFVIEW_PORT:-6006}" ${PROFVIEW_PATH_PREFIX:+--path-prefix "$PROFVIEW_PATH_PREFIX"} "$@"
