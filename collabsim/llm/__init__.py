"""The LLM entry point: one client over litellm for every model call in collabsim.

Importing this package does not import litellm (slow, and it must be configured for offline
use first); :func:`collabsim.llm.backend.get_litellm` does that on the first call.

Public API::

    from collabsim.llm import LLMClient, LLMSettings, LLMReply, ToolCall, Budget, BudgetExceeded
"""

from collabsim.llm.budget import Budget, BudgetExceeded
from collabsim.llm.calllog import call_log_path_for
from collabsim.llm.client import LLMCallError, LLMClient, LLMReply, LLMSettings, ToolCall
from collabsim.llm.limits import gather_bounded

__all__ = [
    "Budget",
    "BudgetExceeded",
    "LLMCallError",
    "LLMClient",
    "LLMReply",
    "LLMSettings",
    "ToolCall",
    "call_log_path_for",
    "gather_bounded",
]
