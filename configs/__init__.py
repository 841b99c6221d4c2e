"""The recipes and rules files that ship with the package (``rummy500.configs``).

``train/NAME.yaml`` are training recipes (``rummy500 train --config NAME``) and
``rules/NAME.yaml`` rules files; ``rummy500.train.config`` finds them by name.
"""

from pathlib import Path

TRAIN_RECIPES = Path(__file__).parent / "train"
"""Folder of the training recipes."""
