#!/usr/bin/env python3
"""Writes the memory reference profile: many tensors of varied sizes.

Usage: tf_memory.py LOGDIR

Each step allocates a ladder of tensors (64 KiB .. 16 MiB), keeps some of
them alive until the end of the step so the live set climbs to a peak, then
drops them all. The profiler runs with host_tracer_level=3 so the allocator
records MemoryAllocation / MemoryDeallocation events on the host plane, and
TF_CPU_ALLOCATOR_USE_BFC=true makes the CPU allocator the BFC allocator, the
one that writes those events with its bytes_in_use / peak stats.
"""
import os
import sys

os.environ.setdefault("TF_CPU_ALLOCATOR_USE_BFC", "true")

from refcommon import print_tree, tf  # noqa: E402

STEPS = 4
# float32 element counts: 16 Ki .. 4 Mi elements = 64 KiB .. 16 MiB
SIZES = [1 << k for k in range(14, 23)]


@tf.function
def step_body(seed):
    kept = []
    total = tf.constant(0.0)
    for i, n in enumerate(SIZES):
        t = tf.random.stateless_uniform((n,), seed=[seed, i])
        scratch = tf.sqrt(t + 1.0) * 3.0   # temporary, freed right after use
        total += tf.reduce_sum(scratch)
        if i % 2 == 0:
            kept.append(t * 2.0)          # stays live until the step ends
    for t in kept:
        total += tf.reduce_mean(t)
    return total


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: tf_memory.py LOGDIR")
    logdir = sys.argv[1]
    step_body(tf.constant(0))
    options = tf.profiler.experimental.ProfilerOptions(
        host_tracer_level=3, python_tracer_level=0, device_tracer_level=1)
    tf.profiler.experimental.start(logdir, options=options)
    for step in range(STEPS):
        with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
            step_body(tf.constant(step + 1))
    tf.profiler.experimental.stop()
    print_tree(logdir)


if __name__ == "__main__":
    main()
