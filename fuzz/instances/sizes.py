"""The largest number of items each family draws, apart from the strategies that draw them.

The family records (``knapcheck.fuzz.instances.families``) name these sizes without importing Hypothesis, so
that listing the families (``knapcheck check --help``) imports no strategy.
"""

MAX_ITEMS = 24
QUANTIZATION_MAX_ITEMS = 12
FLOAT32_LIMITS_MAX_ITEMS = 12
PISINGER_MAX_ITEMS = 30
PISINGER_SIMILAR_WEIGHTS_MAX_ITEMS = 20
"""Similar weights are CP-SAT's hardest class: fewer of them keep every proof short."""
HUGE_CAPACITY_MAX_ITEMS = 3
"""Few items, so that torch's dp_knapsack, whose float32 table is (n + 1) x (C + 1), answers fast at 10**7 units."""
MANY_ITEMS_MAX_ITEMS = 2_000
RUNTIME_SPAN_MAX_ITEMS = 12
"""Brute force proves every optimum: runtimes 27 decades apart leave CP-SAT only a rounded model."""
WEIGHT_LIMITS_MAX_ITEMS = 6
RUNTIME_LIMITS_MAX_ITEMS = 5
COUNT_LIMITS_MAX_ITEMS = 2**8 + 1
