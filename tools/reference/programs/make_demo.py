#!/usr/bin/env python3
"""Writes the demo logdir that ships in demo/: two real profiler runs on CPU.

Run 1 is the classic TensorFlow tracing example: a tf.function with a Python
loop of tf.matmul on a 64x64 input, traced with tf.summary.trace_on(graph=True,
profiler=True) and exported with tf.summary.trace_export. Run 2 is a small
Keras fit over a tf.data pipeline under tf.profiler.experimental.start/stop.

Keras 3 marks no steps, so the
fit carries the step markers Keras 2 wrote (refcommon.StepTraceCallback).
Both land in the same logdir, each in its own
<logdir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.xplane.pb folder, so the
viewer lists two runs. Usage: make_demo.py LOGDIR (LOGDIR must not exist).
Dev tooling only; see tools/reference/README.md for versions and commands.
"""
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from refcommon import StepTraceCallback, print_tree  # noqa: E402

MATMUL_LOOP_COUNT = 10   # iterations of the Python loop inside the tf.function
KERAS_SAMPLES = 512      # synthetic samples for the Keras run
KERAS_BATCH = 32         # so one epoch is 16 steps
KERAS_EPOCHS = 2


def run_trace_export(logdir):
    """Classic tf.summary tracing example, written into logdir."""
    writer = tf.summary.create_file_writer(logdir)

    @tf.function
    def matmul_loop(x):
        y = x
        for _ in range(MATMUL_LOOP_COUNT):
            y = tf.matmul(y, x)
        return y

    x = tf.random.uniform((64, 64))
    # TF >= 2.12 ignores profiler_outdir in trace_export and needs it in
    # trace_on; it is passed to both so the classic call shape stays visible.
    tf.summary.trace_on(graph=True, profiler=True, profiler_outdir=logdir)
    matmul_loop(x)
    with writer.as_default():
        tf.summary.trace_export(name="matmul_loop_trace", step=0,
                                profiler_outdir=logdir)
    writer.flush()


def make_dataset():
    rng = np.random.default_rng(7)
    features = rng.standard_normal((KERAS_SAMPLES, 32)).astype("float32")
    labels = rng.integers(0, 10, size=(KERAS_SAMPLES,)).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((features, labels))
    ds = ds.map(lambda f, l: (f * 2.0 - 1.0, l),
                num_parallel_calls=tf.data.AUTOTUNE)
    return ds.shuffle(KERAS_SAMPLES, seed=7).batch(KERAS_BATCH).prefetch(
        tf.data.AUTOTUNE)


def run_keras_fit(logdir):
    """Small Keras fit with a tf.data pipeline under the profiler API."""
    tf.keras.utils.set_random_seed(7)
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(32,)),
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(10),
    ])
    model.compile(optimizer="adam",
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(
                      from_logits=True),
                  metrics=["accuracy"])
    ds = make_dataset()
    # Warm up outside the profile so the run shows steady-state steps,
    # not tracing and graph building.
    model.fit(ds.take(2), epochs=1, verbose=0)
    tf.profiler.experimental.start(logdir)
    model.fit(ds, epochs=KERAS_EPOCHS, verbose=0,
              callbacks=[StepTraceCallback()])
    tf.profiler.experimental.stop()


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_demo.py LOGDIR")
    logdir = sys.argv[1]
    if os.path.exists(logdir) and os.listdir(logdir):
        sys.exit(f"{logdir} exists and is not empty")
    run_trace_export(logdir)
    # Run folders are named by the second; keep the two runs apart.
    time.sleep(2)
    run_keras_fit(logdir)
    print_tree(logdir)


if __name__ == "__main__":
    main()
