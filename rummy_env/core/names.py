"""Names from outside (an agent's own name, the names in a record file), made safe to print.

A name reaches terminals, Markdown tables and CSV files. ``printable_name`` writes every
control character (escape sequences, newlines, tabs, bidirectional overrides) as its
Python escape, so nothing a name holds acts on a terminal or breaks a line, and bounds
its length; ``table_cell`` also escapes the ``|`` that would split a Markdown cell.

>>> printable_name("\\x1b[31mred\\nline")
'\\\\x1b[31mred\\\\nline'
>>> table_cell("a|b")
'a\\\\|b'
"""

from __future__ import annotations

import unicodedata

MAX_NAME = 60
"""Most characters of a name from outside."""


def printable_name(name: str, limit: int = MAX_NAME) -> str:
    """``name`` with its control and format characters escaped, cut to ``limit`` characters."""
    text = "".join(
        ch if unicodedata.category(ch)[0] != "C" else ascii(ch)[1:-1] for ch in str(name).strip()
    )
    return text if len(text) <= limit else text[: limit - 3] + "..."


def table_cell(name: str) -> str:
    """``name`` for a Markdown table cell: printable, with ``|`` escaped."""
    return printable_name(name, limit=10**6).replace("|", "\\|")
