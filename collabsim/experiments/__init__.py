"""Runnable studies that ship with the package (``collabsim train``; the top-level
``experiments/`` folder of a checkout holds thin wrappers and the studies' figures)."""
