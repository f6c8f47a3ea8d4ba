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
