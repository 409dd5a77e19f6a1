"""Shared test configuration: hypothesis profiles."""

import os

from hypothesis import HealthCheck, settings

# "ci" (the default) keeps the whole suite well inside CI's budget; "thorough" is for local hunts:
#   HYPOTHESIS_PROFILE=thorough make test
settings.register_profile(
    "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", max_examples=5000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
