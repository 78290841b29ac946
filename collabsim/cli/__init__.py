"""Command-line entry points (the only layer that may import Hydra, wandb and argparse)."""
