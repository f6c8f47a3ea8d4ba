"""What knapcheck keeps in the user's cache directory between runs.

``user_directory`` finds knapcheck's own directories there (``~/.cache/knapcheck/NAME``);
``compiled_in_background`` tells whether numba's cache holds a solver's compiled functions and
has a background process compile them while it does not.

Imports nothing of knapcheck: a solver module says what to compile and how.
"""
