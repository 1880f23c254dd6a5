#!/usr/bin/env python3
"""Writes the multi-host reference profile: two workers, one run folder.

Usage: multi_host.py LOGDIR

Starts two worker processes on this machine. Each starts a profiler server
(tf.profiler.experimental.server.start) on its own loopback port and runs a
small training loop. This process then captures both at once with
tf.profiler.experimental.client.trace("grpc://localhost:P1,grpc://localhost:P2"),
the remote-capture path multi-worker jobs use, so the run folder holds
localhost_P1.xplane.pb and localhost_P2.xplane.pb: two hosts in one run.

Real multi-worker training steps in lockstep (the gradient all-reduce is a
barrier). The workers emulate that by starting step N at the same wall-clock
tick, T0 + N * STEP_PERIOD_S (each worker says "ready" on stdout once its
server is up, and T0 is handed to both on stdin), and marking it
tf.profiler.experimental.Trace("train", step_num=N, _r=1), so both hosts
carry the same step numbers over the same time span.
"""
import os
import socket
import subprocess
import sys
import time

from refcommon import print_tree, tf

STEP_PERIOD_S = 0.25     # one step every 250 ms on both workers
WORKER_RUN_S = 4.0       # each worker trains this long after T0
CAPTURE_MS = 2000        # capture window, inside the workers' run
LEAD_S = 0.5             # from "both ready" to T0, and from T0 to capture


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(port, index):
    tf.profiler.experimental.server.start(port)
    tf.random.set_seed(100 + index)
    w = tf.Variable(tf.random.normal((384, 384), stddev=0.05))
    ds = tf.data.Dataset.from_tensor_slices(
        tf.random.normal((64 * 8, 384))).map(tf.math.tanh).batch(64).repeat()
    it = iter(ds)

    @tf.function
    def train_step(batch):
        with tf.GradientTape() as tape:
            y = tf.matmul(tf.matmul(batch, w), w)
            loss = tf.reduce_mean(tf.square(y))
        w.assign_sub(0.01 * tape.gradient(loss, w))
        return loss

    train_step(next(it))
    # Tell the parent the server is up and the step is traced, then wait
    # for the shared start tick T0.
    print("ready", flush=True)
    t0 = float(sys.stdin.readline())
    step = 0
    while True:
        tick = t0 + step * STEP_PERIOD_S
        if tick > t0 + WORKER_RUN_S:
            break
        now = time.time()
        if tick < now:          # missed a tick (slow start): skip ahead
            step += 1
            continue
        time.sleep(tick - now)
        with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
            for _ in range(4):
                train_step(next(it))
        step += 1


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "worker":
        worker(int(sys.argv[2]), int(sys.argv[3]))
        return
    if len(sys.argv) != 2:
        sys.exit("usage: multi_host.py LOGDIR")
    logdir = sys.argv[1]
    ports = [free_port(), free_port()]
    procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__),
                               "worker", str(p), str(i)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
             for i, p in enumerate(ports)]
    for p in procs:
        if p.stdout.readline().strip() != "ready":
            sys.exit("a worker failed to start")
    t0 = time.time() + LEAD_S
    for p in procs:
        p.stdin.write(f"{t0!r}\n")
        p.stdin.flush()
    time.sleep(2 * LEAD_S)
    addrs = ",".join(f"grpc://localhost:{p}" for p in ports)
    tf.profiler.experimental.client.trace(addrs, logdir, CAPTURE_MS)
    for p in procs:
        p.wait()
    print_tree(logdir)


if __name__ == "__main__":
    main()
