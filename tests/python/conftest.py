"""pytest configuration of the Python binding's tests (tests/python/test_gpusort.py).

The seed: GPUSORT_PY_SEED=N replays a run (printed in the header, and in each failing test's
name through its parameters); without it one is drawn. Backends of host arrays: every built one
with a device (cpu; opencl through PoCL on a machine without a GPU; cuda), or only those in
GPUSORT_PY_BACKENDS=cpu,opencl. Device frameworks (torch, cupy) run where a CUDA device is.
"""
import os
import random

import pytest

SEED = int(os.environ.get("GPUSORT_PY_SEED", random.SystemRandom().randrange(1 << 31)))


def pytest_report_header(config):
    return f"gpusort: seed {SEED} (replay with GPUSORT_PY_SEED={SEED})"


def pytest_configure(config):
    config.addinivalue_line("markers", "big: more than 2^31 elements (GPU only, GPUSORT_BIG_TESTS=1)")
    config.addinivalue_line("markers", "device: needs a CUDA device and torch or CuPy")


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"gpusort: seed {SEED} (replay with GPUSORT_PY_SEED={SEED})")
