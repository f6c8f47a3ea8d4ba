"""The runs that feed instances to the judge: ``check`` (``knapcheck check``), ``candidate_run``
(``knapcheck report``), ``export_plan`` (``knapcheck export-tests``), and how a run's calls are
begun and gathered in chunks (``chunk_calls``)."""
