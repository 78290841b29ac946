"""Lazy, offline-safe access to litellm.

Importing litellm takes seconds and, unless told otherwise, fetches a model price map from
the network. Every module of :mod:`collabsim.llm` therefore reaches litellm through
:func:`get_litellm`, which

* sets ``LITELLM_LOCAL_MODEL_COST_MAP=True`` before the import (the bundled price map is used),
* silences litellm's debug banners and its own logging (its loggers at WARNING, so a run
  does not print litellm's INFO lines for every call),
* installs the local providers registered with :mod:`collabsim.llm.custom_provider`
  (e.g. the offline ``collabsim/...`` models),

exactly once per process.
"""

from __future__ import annotations

import logging
import os
import threading
from types import ModuleType
from typing import Any

_LOCK = threading.Lock()
_MODULE: ModuleType | None = None

# litellm's loggers; it gives them a stderr handler of their own, so INFO records of every
# call reach the terminal whenever the root logger is at INFO (as under Hydra).
LITELLM_LOGGERS: tuple[str, ...] = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")


def get_litellm() -> ModuleType:
    """Import and configure litellm once; return the module.

    Returns:
        The ``litellm`` module, with the registered local providers installed.
    """
    global _MODULE
    if _MODULE is not None:
        return _MODULE
    with _LOCK:
        if _MODULE is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            os.environ.setdefault("LITELLM_TELEMETRY", "False")
            import litellm

            litellm.suppress_debug_info = True
            litellm.telemetry = False
            litellm.set_verbose = False
            for name in LITELLM_LOGGERS:
                logging.getLogger(name).setLevel(logging.WARNING)
            from collabsim.llm.custom_provider import install_custom_providers

            install_custom_providers(litellm)
            _MODULE = litellm
    return _MODULE


def litellm_exception(name: str) -> type[BaseException]:
    """Return a litellm exception class by name (``"RateLimitError"``, ``"Timeout"``, ...).

    Args:
        name: Attribute name of the exception class in the ``litellm`` module.

    Returns:
        The class.
    """
    cls: Any = getattr(get_litellm(), name)
    return cls
