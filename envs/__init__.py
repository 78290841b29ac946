"""Deprecated alias of :mod:`collabsim_envs` (importing it registers the same ids).

Use ``import collabsim_envs``: a top-level package named ``envs`` is shadowed by any
``envs/`` folder in the user's working directory.
"""

from collabsim_envs import ENV_IDS  # noqa: F401  (registers the ids)

__all__ = ["ENV_IDS"]
