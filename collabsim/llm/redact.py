"""Credential redaction for the LLM layer: re-exports :mod:`collabsim.core.redaction`.

The implementation lives in the dependency-free top-level module so that every writer
(traces, the result store, the LLM cache and call logs) can share it without importing the
LLM package.
"""

from collabsim.core.redaction import REDACTED, Redactor, redact, redact_data, secret_env_values

__all__ = ["REDACTED", "Redactor", "redact", "redact_data", "secret_env_values"]
