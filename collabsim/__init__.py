"""collabsim: simulate and analyse human-AI collaboration on data-analysis tasks."""

__version__ = "0.1.0"
