#!/bin/sh
# Writes every reference profile into OUT (default tests/data/reference),
# one logdir per program. Dev tooling: needs the two virtualenvs described
# in tools/reference/README.md. Refuses to overwrite an existing logdir, so
# a re-run never mixes old and new runs: delete the ones to redo first.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../tests/data/reference}
tf=${VENV_TF:-/tmp/venv-ref}/bin/python
jax=${VENV_JAX:-/tmp/venv-jax}/bin/python
progs=$here/programs

run() {   # run NAME PYTHON PROGRAM [ARGS...]: one logdir per NAME
    name=$1; py=$2; shift 2
    if [ -e "$out/$name" ]; then
        echo "skip $name: $out/$name exists"
        return 0
    fi
    echo "== $name"
    "$py" "$@" "$out/$name"
}

mkdir -p "$out"
run keras_input_bound "$tf" "$progs/keras_input.py" bound
run keras_input_fixed "$tf" "$progs/keras_input.py" fixed
run tf_compute_bound "$tf" "$progs/tf_compute_bound.py"
run tf_memory "$tf" "$progs/tf_memory.py"
run jax_train "$jax" "$progs/jax_train.py"
run multi_host "$tf" "$progs/multi_host.py"
du -sh "$out"
