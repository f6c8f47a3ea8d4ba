"""Knapsacks from real torch.compile runs: the built-in models, and the trace logs of a user's run.

``compile_runs`` records what the partitioner solves for the built-in ``models``; ``log_records``
reads a TORCH_TRACE log, ``logged_knapsacks`` rebuilds each knapsack it logged, and
``logged_answers`` judges the answers torch logged.

Imports ``knapcheck.fuzz.corpus``, ``instances`` and ``checking``; never ``campaign``.
"""
