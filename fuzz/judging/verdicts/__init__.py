"""A solver's verdict on one instance, beside its baseline's: the check, what names a failure,
which failures count, the real-memory tally, the smallest reproduction, metamorphic images."""
