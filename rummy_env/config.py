"""Configuration text: rules files, training recipes and command-line ``key=value``
overrides, read as YAML within bounds.

Every config text goes through ``read_config_text`` (at most ``MAX_CONFIG_BYTES``,
UTF-8: a device such as ``/dev/zero`` or a huge file is refused, not read whole) and
``load_yaml`` (plain data only: no aliases, which can make a few lines stand for
gigabytes, at most ``MAX_DEPTH`` levels of nesting, and no key given twice in one
mapping, which YAML would settle silently by keeping the last). A text that breaks a
bound is a one-line ``ValueError``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from rummy_env.core import Rules

MAX_CONFIG_BYTES = 1 << 20
"""Largest config file read, in bytes (the recipes are a few hundred)."""
MAX_DEPTH = 16
"""Deepest nesting of mappings and lists in a config text."""


def read_config_text(path: str | Path, what: str = "config") -> str:
    """The text of a config file, bounded and decoded; a one-line ValueError otherwise
    (an OSError, as for any file, when it cannot be opened)."""
    with open(path, "rb") as f:
        data = f.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(
            f"{what}: {path} is larger than {MAX_CONFIG_BYTES // 1024} KiB, too "
            f"large for a {what} file"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{what}: {path} is not UTF-8 text (byte {e.start})") from None


class _RepeatedKey(Exception):
    """A mapping that names one key twice: (key, line)."""


class _UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a mapping naming one key twice."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, str | int | float | bool) or key is None:
                if key in seen:
                    raise _RepeatedKey(key, key_node.start_mark.line + 1)
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load_yaml(text: str, where: str = "config") -> Any:
    """The plain data of a YAML text; a ValueError for an alias, nesting past ``MAX_DEPTH``
    or a key given twice (yaml.YAMLError, as from ``yaml.safe_load``, for text that is not
    YAML)."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            raise ValueError(f"{where}: YAML aliases (*name) are not allowed in a config")
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise ValueError(f"{where}: nests deeper than {MAX_DEPTH} levels")
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader
    except _RepeatedKey as e:
        key, line = e.args
        raise ValueError(
            f"{where}: the key {key!r} is given twice (again on line {line}); give each key once"
        ) from None


def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """``["wrap=true", "target=250"]`` -> ``{"wrap": True, "target": 250}``."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"override {pair!r} must look like key=value")
        out[key.strip()] = load_yaml(value, f"override {key.strip()}") if value.strip() else None
    return out


def rules_from_yaml(path: str | Path) -> Rules:
    """Rules from a YAML file of the same keys as ``Rules.from_dict``."""
    data = load_yaml(read_config_text(path, "rules"), f"rules: {path}") or {}
    if not isinstance(data, dict):
        raise ValueError(f"rules: {path} must hold a mapping of rule flags")
    return Rules.from_dict(data)
