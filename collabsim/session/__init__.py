"""The session engine: a steppable orchestrator (start / next_turn / submit) and its parts.

``orchestrator`` (the loop's steps) · ``engine`` (``run_session``) · ``state`` · ``scheduler``
· ``rules`` · ``gates`` · ``effects`` · ``observations`` · ``sandboxing`` · ``clock`` ·
``structures`` · ``workspace`` · ``trace`` · ``results`` · ``config``.
"""
