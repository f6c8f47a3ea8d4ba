"""What knapcheck keeps in the user's cache directory between runs, for speed only.

``user_directory`` owns knapcheck's directories there (``~/.cache/knapcheck/NAME``) and their
failure modes: whether one may be used, writing a file there whole or not at all, and the one line
said when it cannot; ``compiled_in_background`` tells whether numba's cache holds a solver's
compiled functions and has a background process compile them while it does not;
``content_names`` names a kept file by its content and checks it still holds it.

Imports nothing of knapcheck: a solver module says what to compile and how.
"""
