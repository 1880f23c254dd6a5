#!/usr/bin/env python3
"""Writes the input-bound / input-fixed Keras reference profiles.

Usage: keras_input.py {bound|fixed} LOGDIR

bound: tf.data with a deliberately slow Python map (tf.py_function that
       sleeps), batch, no prefetch, no parallelism: the step waits on input.
fixed: the same data and model with map(num_parallel_calls=AUTOTUNE),
       cache() and prefetch(AUTOTUNE): after the first epoch filled the
       cache, input costs almost nothing.

Both variants fit one unprofiled warm-up epoch (tracing, and for `fixed` the
cache fill), then one profiled epoch of STEPS steps, each step marked with
the Keras 2 step marker (refcommon.StepTraceCallback).
"""
import sys
import time

import numpy as np

from refcommon import StepTraceCallback, print_tree, tf

SAMPLES = 320
BATCH = 32                 # so one epoch is SAMPLES / BATCH = 10 steps
SLOW_MAP_SLEEP_S = 0.003   # per element: ~100 ms of input per step


def slow_transform(features, label):
    # Stands for real Python preprocessing (decoding, augmentation).
    time.sleep(SLOW_MAP_SLEEP_S)
    return features * 2.0 - 1.0, label


def tf_slow_transform(features, label):
    out_f, out_l = tf.py_function(slow_transform, [features, label],
                                  [tf.float32, tf.int32])
    out_f.set_shape(features.shape)
    out_l.set_shape(label.shape)
    return out_f, out_l


def make_dataset(variant):
    rng = np.random.default_rng(11)
    features = rng.standard_normal((SAMPLES, 64)).astype("float32")
    labels = rng.integers(0, 10, size=(SAMPLES,)).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((features, labels))
    if variant == "bound":
        return ds.map(tf_slow_transform).batch(BATCH)
    ds = ds.map(tf_slow_transform, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.cache().batch(BATCH).prefetch(tf.data.AUTOTUNE)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("bound", "fixed"):
        sys.exit("usage: keras_input.py {bound|fixed} LOGDIR")
    variant, logdir = sys.argv[1], sys.argv[2]
    tf.keras.utils.set_random_seed(11)
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(64,)),
        tf.keras.layers.Dense(256, activation="relu"),
        tf.keras.layers.Dense(256, activation="relu"),
        tf.keras.layers.Dense(10),
    ])
    model.compile(optimizer="adam",
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(
                      from_logits=True))
    ds = make_dataset(variant)
    model.fit(ds, epochs=1, verbose=0)
    tf.profiler.experimental.start(logdir)
    model.fit(ds, epochs=1, verbose=0, callbacks=[StepTraceCallback()])
    tf.profiler.experimental.stop()
    print_tree(logdir)


if __name__ == "__main__":
    main()
