"""Checking solvers: each answer judged against the oracle, beside the baseline's on the same instance.

``differential`` runs one check; ``comparison`` and ``gate`` decide which failures are regressions;
``known`` matches failures with the regression corpus's causes; ``shrink`` makes a failure minimal;
``check`` and ``candidate_run`` are the runs of ``knapcheck check`` and ``knapcheck report``;
``export_plan`` decides what ``knapcheck export-tests`` writes; ``signature``, ``plain_check`` and
``overshoot`` are what a finding is named by, how it travels and the real-memory tally.

Imports ``knapcheck.fuzz.corpus`` and ``knapcheck.fuzz.instances``.
"""
