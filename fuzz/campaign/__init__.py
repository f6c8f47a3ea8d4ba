"""Fuzz campaigns on Dask: units of work, their events, the failure store, promotion to the corpus.

``run`` is the campaign process; ``cluster`` the Dask cluster it starts or joins; ``units`` the
retryable work a worker runs and ``unit_ledger`` their account; ``events`` what units report and
``state`` what the campaign has learnt; ``store`` keeps every failure on disk as it is found;
``example_database`` is Hypothesis's shared database; ``promotion`` turns stored failures into
known-failure cases.

Imports ``knapcheck.fuzz.corpus``, ``instances`` and ``checking``; never ``harvest``.
"""
