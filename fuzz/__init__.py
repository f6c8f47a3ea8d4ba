"""Making instances, checking solvers on them, and campaigns, in six stages that import one way.

- ``corpus``: the files knapcheck reads (the one JSON reader and its schemas) and the corpora
  shipped with it: the known-failure corpus, the harvested instances, instance files;
- ``instances``: the instance families, their Hypothesis strategies and enumerated spaces;
- ``judging``: a solver judged on an instance beside its baseline, the gate, shrinking, the known
  defects and their repairs, and the judge every driver calls;
- ``runs``: the check, report and export runs, which feed instances to the judge;
- ``campaign``: fuzz campaigns on Dask, their failure store, promotion into the known-failure corpus;
- ``harvest``: instances recorded from torch.compile runs and from their trace logs.

Each stage imports only the stages listed before it (``campaign`` and ``harvest`` neither of the
other), and ``knapcheck.solvers`` and ``knapcheck.oracles`` below them (``tests/test_layering.py``).
"""
