"""Solvers that answer with how many intra-op threads they were given, as their value."""

import os

import torch


def torch_threads(memory, runtimes, max_memory):
    return float(torch.get_num_threads()), [], list(range(len(memory)))


def omp_num_threads(memory, runtimes, max_memory):
    return float(os.environ["OMP_NUM_THREADS"]), [], list(range(len(memory)))
