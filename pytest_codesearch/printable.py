"""Text from gold sets, repositories and agents shown safely: control characters as visible escapes.

A query, a file name or an agent's error can hold escape sequences (``\\x1b[2J`` clears a terminal) or
lone surrogates (which no terminal encoding can write). Everything the plugin prints to the terminal
or writes to ``summary.md`` from such input goes through :func:`visible` (issue 18 item 12).
"""

from __future__ import annotations

import re

_HIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""Control characters but newline and tab, DEL, the C1 controls, the bidirectional overrides (which
reorder what a terminal shows) and lone surrogates."""


def visible(text: str) -> str:
    """Return ``text`` with each control character (newline and tab excepted), bidirectional override
    and lone surrogate shown as its Python escape (``\\x1b``, ``\\u202e``, ``\\udcff``); other text is
    unchanged."""
    if _HIDDEN.search(text) is None:
        return text
    return _HIDDEN.sub(lambda found: repr(found.group())[1:-1], text)
