"""Planted targets that take the interpreter down in every way isolation must survive."""

import ctypes
import os
import sys
import time


def segfault(memory, runtimes, max_memory):
    ctypes.string_at(0)


def exits(memory, runtimes, max_memory):
    sys.exit(3)


def hard_exit(memory, runtimes, max_memory):
    os._exit(0)


def hangs(memory, runtimes, max_memory):
    time.sleep(3600)


def allocates_without_bound(memory, runtimes, max_memory):
    chunks = []
    while True:
        chunks.append(bytearray(64 * 2**20))


def recomputes_everything(memory, runtimes, max_memory):
    return 0.0, [], list(range(len(memory)))
