"""Judging solvers: each answer judged against the oracle, beside the baseline's on the same instance.

Three stages that import one way (``tests/test_layering.py``):

- ``verdicts``: one solver's check on one instance (``differential``), what names a failure
  (``signature``), which failures count (``gate``, ``comparison``), the real-memory tally
  (``overshoot``), a failure made minimal (``shrink``) and an instance's metamorphic images;
- ``known``: the baselines' known defects, the traits of an instance they hinge on, their repairs
  in a candidate's source and whether those fit, and a failure explained by them (``by_cause``);
- the judge (``judge``): the decision on one instance that every driver calls, and a decided
  check as plain data (``plain_check``).
"""
