"""Measurement: time and peak memory of solvers side by side, each call in a fresh process (``reports`` renders the results)."""
