"""Prompt templates (Jinja2) of the LLM participants; see collabsim.participants.llm_policy."""
