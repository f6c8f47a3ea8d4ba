"""Hypothesis profiles: CI's built-in `ci` profile under CI=true, a deadline-free `dev` one otherwise.

Solver timings vary with load (and `pytest -n auto` shares two cores), so no profile has a deadline.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
