"""Configuration text: rules files and command-line ``key=value`` overrides, read as YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from rummy_env.core import Rules


def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """``["wrap=true", "target=250"]`` -> ``{"wrap": True, "target": 250}``."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"override {pair!r} must look like key=value")
        out[key.strip()] = yaml.safe_load(value) if value.strip() else None
    return out


def rules_from_yaml(path: str | Path) -> Rules:
    """Rules from a YAML file of the same keys as ``Rules.from_dict``."""
    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict):
        raise ValueError(f"rules: {path} must hold a mapping of rule flags")
    return Rules.from_dict(data)
