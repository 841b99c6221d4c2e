"""Command-line ``key=value`` overrides, read with YAML's scalar rules."""

from __future__ import annotations

from typing import Any

import yaml


def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """``["wrap=true", "target=250"]`` -> ``{"wrap": True, "target": 250}``."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"override {pair!r} must look like key=value")
        out[key.strip()] = yaml.safe_load(value) if value.strip() else None
    return out
