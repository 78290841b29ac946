"""The Hydra configs of ``collabsim run`` (``config.yaml`` and one folder per config group).

The repository's top-level ``configs/`` folder is installed as the package ``collabsim.configs``
(package data of the wheel), so ``collabsim run`` finds its configs from any folder after a
plain ``pip install``. This module holds no code.
"""
