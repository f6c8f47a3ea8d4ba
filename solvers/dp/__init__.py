"""The dynamic programme's row updates behind ``sliding_hirschberg`` and ``cuda_solver``.

``rows`` holds the backend protocol and its torch implementation, on any device; ``triton_rows``
the same steps as Triton kernels.

Imports nothing of knapcheck.
"""
