"""The instance families: records of named Hypothesis strategies and enumerated spaces.

``families`` is the one list tests, checks, campaigns and reports select from; ``strategies``,
``pisinger`` and ``enumerated`` make the instances; ``seeded_draws`` makes a seed draw the same
instances in every process; ``sizes`` names the families' sizes without importing Hypothesis.

Imports ``knapcheck.fuzz.corpus`` (the harvested family draws from it), nothing else of ``fuzz``.
"""
