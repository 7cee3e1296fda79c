"""Text from gold sets, repositories and agents shown safely: control characters as visible escapes.

A query, a file name or an agent's error can hold escape sequences (``\\x1b[2J`` clears a terminal) or
lone surrogates (which no terminal encoding can write). Everything the plugin prints to the terminal
or writes to ``summary.md`` from such input goes through :func:`visible` (issue 18 item 12).
"""

from __future__ import annotations

import re

_HIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
"""Control characters but newline and tab, DEL, the C1 controls and lone surrogates."""


def visible(text: str) -> str:
    """Return ``text`` with each control character (newline and tab excepted) and lone surrogate shown as
    its Python escape (``\\x1b``, ``\\udcff``); other text is unchanged."""
    if _HIDDEN.search(text) is None:
        return text
    return _HIDDEN.sub(lambda found: repr(found.group())[1:-1], text)
