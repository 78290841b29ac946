"""Participants: the one protocol shared by scripted and LLM policies, and the policies."""
