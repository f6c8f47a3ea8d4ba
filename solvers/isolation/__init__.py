"""Running a solver in a worker process and bringing its answer back as plain data.

``child`` starts, hears and stops every child process that runs a solver (the correctness
worker, the paired benchmark's processes, ``bench``'s measurements), and ``child_side`` is their
half of it; ``worker`` starts and serves the isolated worker, with its memory cap and time limit,
and ``WorkerPool`` holds a run's workers; ``zygote_pool`` and ``zygote_server`` fork workers from an
interpreter that has imported torch once; ``lifetime`` and ``tree_caps`` make everything the target
starts die with the run and stay under the caps;
``answer`` reads what a solver returned into plain data, ``wire`` carries it as JSON, ``outcome``
is what a call ended in; ``running`` runs an entry in this process or isolated, as it asks;
``output_capture`` keeps what solvers print out of knapcheck's own output.

Imports the contract, specs and entries of ``knapcheck.solvers``; nothing there imports it.
"""
