"""Running a solver in a worker process and bringing its answer back as plain data.

``worker`` starts and serves the isolated worker, with its memory cap and time limit; ``lifetime``
and ``tree_caps`` make everything the target starts die with the run and stay under the caps;
``answer`` reads what a solver returned into plain data, ``wire`` carries it as JSON, ``outcome``
is what a call ended in; ``running`` runs an entry in this process or isolated, as it asks;
``output_capture`` keeps what solvers print out of knapcheck's own output.

Imports the contract, specs and entries of ``knapcheck.solvers``; nothing there imports it.
"""
