"""Helpers shared by the reference programs (dev tooling, not the product).

Keras 3 no longer marks training steps for the profiler, so a profile of
model.fit() has no step events and XProf's overview and input pipeline pages
say "No step time measured". Keras 2 used to wrap every train step in
tf.profiler.experimental.Trace("train", step_num=N, _r=1); StepTraceCallback
restores exactly that, so our Keras profiles look like those users produce
with TF 2.x Keras (and like the ones in ../shared/testdata).
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402


class StepTraceCallback(tf.keras.callbacks.Callback):
    """Opens a step-marker TraceMe around each training batch."""

    def __init__(self):
        super().__init__()
        self._step_num = 0
        self._trace = None

    def on_train_batch_begin(self, batch, logs=None):
        # _r=1 marks the event as a root (step) event for XProf's grouping.
        self._trace = tf.profiler.experimental.Trace(
            "train", step_num=self._step_num, _r=1)
        self._trace.__enter__()

    def on_train_batch_end(self, batch, logs=None):
        if self._trace is not None:
            self._trace.__exit__(None, None, None)
            self._trace = None
        self._step_num += 1


def print_tree(logdir):
    """Prints every file under logdir with its size in bytes."""
    for root, _, files in sorted(os.walk(logdir)):
        for name in sorted(files):
            path = os.path.join(root, name)
            print(f"{os.path.getsize(path):>10} {path}")
