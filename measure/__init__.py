"""Measurement: time and peak memory of solvers side by side, each call in a fresh process (``bench``),
or a candidate and its baseline interleaved in one process with confidence intervals on their ratios
(``paired``, judged by ``perf_gate``); ``reports`` renders the results."""
