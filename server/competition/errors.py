"""The one error of the competition machines: a command or a value refused with a stable code.

>>> try:
...     raise Rejected("full", "the tournament has 16 players already")
... except Rejected as exc:
...     exc.code, exc.message
('full', 'the tournament has 16 players already')
"""

from __future__ import annotations


class Rejected(Exception):
    """Refused with a stable ``code`` (a word an API can answer with) and a sentence naming what
    is wrong; whatever was refused changed nothing."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
