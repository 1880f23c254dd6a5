#!/usr/bin/env python3
"""Writes the JAX reference profile: a jitted training step on CPU.

Usage: jax_train.py LOGDIR   (run with the JAX venv, not the TF one)

A two-layer MLP regression trained with plain SGD; the whole step (forward,
jax.grad, update) is one jax.jit. Two unprofiled steps compile and warm up,
then STEPS steps run under jax.profiler.trace, each inside
jax.profiler.StepTraceAnnotation("train", step_num=N), JAX's step marker.
"""
import os
import sys

import jax
import jax.numpy as jnp

BATCH = 256
IN_DIM = 512
HIDDEN = 1024
WARMUP_STEPS = 2
STEPS = 5


def init_params(key):
    k1, k2 = jax.random.split(key)
    return {
        "w1": jax.random.normal(k1, (IN_DIM, HIDDEN)) * 0.02,
        "b1": jnp.zeros((HIDDEN,)),
        "w2": jax.random.normal(k2, (HIDDEN, 1)) * 0.02,
        "b2": jnp.zeros((1,)),
    }


def loss_fn(params, x, y):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    pred = h @ params["w2"] + params["b2"]
    return jnp.mean((pred - y) ** 2)


@jax.jit
def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    params = jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)
    return params, loss


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: jax_train.py LOGDIR")
    logdir = sys.argv[1]
    key = jax.random.PRNGKey(5)
    kp, kx, ky = jax.random.split(key, 3)
    params = init_params(kp)
    x = jax.random.normal(kx, (BATCH, IN_DIM))
    y = jax.random.normal(ky, (BATCH, 1))
    for _ in range(WARMUP_STEPS):
        params, loss = train_step(params, x, y)
    loss.block_until_ready()
    with jax.profiler.trace(logdir):
        for step in range(STEPS):
            with jax.profiler.StepTraceAnnotation("train", step_num=step):
                params, loss = train_step(params, x, y)
                loss.block_until_ready()
    for root, _, files in sorted(os.walk(logdir)):
        for name in sorted(files):
            path = os.path.join(root, name)
            print(f"{os.path.getsize(path):>10} {path}")


if __name__ == "__main__":
    main()
