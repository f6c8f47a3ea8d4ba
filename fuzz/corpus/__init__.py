"""The files knapcheck reads and the corpora it ships: nothing read is trusted.

``reader`` is the one way a file knapcheck did not just write is read (regular files only, size
and depth caps, a schema each, from ``schema``); ``regression`` is the known-failure corpus
(``known_failures.json``), ``harvest_records`` the instances recorded from torch.compile (``harvested/``,
``harvested_large/``), ``instance_files`` what ``solve`` and ``--instances`` read, ``file_lock``
the lock around rewriting the corpus.

The lowest stage of ``knapcheck.fuzz``: it imports only ``knapcheck.solvers`` and ``knapcheck.oracles``.
"""
