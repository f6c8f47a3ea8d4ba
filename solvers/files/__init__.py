"""Reading a file a user named: ``reader`` is the one way knapcheck reads one.

Imports nothing of knapcheck, so that every layer above, the specs that load a target included,
reads through it.
"""
