"""knapcheck: a correctness suite for PyTorch's exact 0/1 knapsack solvers.

The repository's root is this package; each folder is the sub-package of its name:
``solvers`` (the solver contract, our solvers, the registry and the process sandbox), ``oracles``
(exact optima and the verdicts), ``fuzz`` (instances, corpora, the check engine, campaigns),
``measure`` (benchmarks), ``reports`` and ``commands`` (the ``knapcheck`` command line).

The public surface, kept stable:

- the ``knapcheck`` command (``knapcheck.commands.cli:main``), and ``python -m knapcheck``;
- ``knapcheck.testing``: assertions for a solver of one's own (``assert_optimal`` and friends);
- ``knapcheck.strategies``: Hypothesis strategies of knapsack instances, by family;
- ``knapcheck.pytest_plugin``: the differential check as pytest tests (``pytest --knapcheck-target``);
- the solver modules that reports and reproductions name (``knapcheck.solvers.*``).

Everything else is internal and may move.
"""

__all__ = ["pytest_plugin", "strategies", "testing"]
