#!/usr/bin/env python3
"""Writes the compute-bound reference profile: a custom training loop.

Usage: tf_compute_bound.py LOGDIR

A tf.function train step runs a chain of large matrix products (the loop of
tf.matmul from TensorFlow's tracing tutorial, at 1024x1024) forward and
backward with GradientTape and applies SGD. The batch is one tensor already
in memory, so there is no input pipeline at all: every step is host compute.
Each step is wrapped in tf.profiler.experimental.Trace("train", step_num=N,
_r=1), the step marker TF's own training loops write.
"""
import sys

from refcommon import print_tree, tf

WIDTH = 1024        # matrix side: each product is 2 * 1024^3 = 2.1 GFLOP
LAYERS = 3          # products per forward pass
WARMUP_STEPS = 2    # tracing and first-touch allocations, not profiled
STEPS = 6           # profiled steps


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: tf_compute_bound.py LOGDIR")
    logdir = sys.argv[1]
    tf.random.set_seed(3)
    x = tf.random.normal((WIDTH, WIDTH))
    weights = [tf.Variable(tf.random.normal((WIDTH, WIDTH), stddev=0.03))
               for _ in range(LAYERS)]

    @tf.function
    def train_step(batch):
        with tf.GradientTape() as tape:
            y = batch
            for w in weights:
                y = tf.nn.relu(tf.matmul(y, w))
            loss = tf.reduce_mean(tf.square(y))
        grads = tape.gradient(loss, weights)
        for w, g in zip(weights, grads):
            w.assign_sub(0.01 * g)
        return loss

    for _ in range(WARMUP_STEPS):
        train_step(x)
    tf.profiler.experimental.start(logdir)
    for step in range(STEPS):
        with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
            train_step(x)
    tf.profiler.experimental.stop()
    print_tree(logdir)


if __name__ == "__main__":
    main()
