"""The expanding-core search behind ``knapcheck.solvers.expanding_core``, and everything it alone uses.

``search`` runs it (compiled by numba, or in plain Python on integers of any size); ``items``,
``states`` and ``expansion`` are the core and its states; ``reductions``, ``surrogate`` and
``proportional`` are Combo's reductions and bounds; ``arith`` the operations that differ between
the two ways it runs.

Imports nothing of knapcheck: the solver module validates and quantizes before calling it.
"""
