"""The header sentences our own ``.mat`` export writes for what the format cannot say
(:func:`engine.matfile.export`), read back so that our files round-trip exactly.

Other programs ignore these comment lines; here each one restores a fact: who forfeited a game
and why, a game whose only roll is a placeholder, the level of a resignation the Jacoby rule
counted as a single, a session stopped or a match forfeited between games, the final score.

>>> facts = OwnFacts.read(["Game 2: Bob forfeited (timeout)", "Final score 3-0, winner: Ann",
...                        "a comment of someone else"])
>>> facts.forfeits, facts.final, facts.understood
({2: 'timeout'}, ((3, 0), 'Ann'), (True, True, False))
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

_FORFEIT = re.compile(r"^Game (\d{1,6}): .+ forfeited \((\w+)\)$")
_PLACEHOLDER = re.compile(r"^Game (\d{1,6}) ended before any dice were rolled: its roll "
                          r"\d\d:? is a placeholder$")
_JACOBY = re.compile(r"^Game (\d{1,6}): .+ resigned a (gammon|backgammon) \(counted as a single: "
                     r"the Jacoby rule\)$")
_STOPPED = re.compile(r"^(.+) stopped the session (?:after game \d{1,6}|before the first game)$")
_BETWEEN = re.compile(r"^(.+) forfeited (?:after game \d{1,6}|before the first game)$")
_EXTRA = re.compile(r"^.+ won the match by forfeit: \d{1,6} more points? than game \d{1,6} was "
                    r"worth$")
_FINAL = re.compile(r"^Final score (\d{1,6})-(\d{1,6}), winner: (.+)$")


@dataclass
class OwnFacts:
    """What the sentences say. ``stopped_by``/``forfeited_by`` hold a player's name (or
    ``"the players"`` for a session both ended); ``final_index`` is the index of the final
    score's line; ``understood`` says, per comment line given, whether it was one of these
    sentences."""

    forfeits: dict[int, str] = field(default_factory=dict)
    placeholders: set[int] = field(default_factory=set)
    jacoby_levels: dict[int, str] = field(default_factory=dict)
    stopped_by: str | None = None
    forfeited_by: str | None = None
    final: tuple[tuple[int, int], str] | None = None
    final_index: int | None = None
    understood: tuple[bool, ...] = ()

    @classmethod
    def read(cls, comments: Sequence[str]) -> OwnFacts:
        facts = cls()
        understood = []
        for index, line in enumerate(comments):
            understood.append(facts._take(line.strip()))
            if facts.final is not None and facts.final_index is None:
                facts.final_index = index
        facts.understood = tuple(understood)
        return facts

    def _take(self, line: str) -> bool:
        found = _FORFEIT.match(line)
        if found:
            self.forfeits[int(found.group(1))] = found.group(2)
            return True
        found = _PLACEHOLDER.match(line)
        if found:
            self.placeholders.add(int(found.group(1)))
            return True
        found = _JACOBY.match(line)
        if found:
            self.jacoby_levels[int(found.group(1))] = found.group(2)
            return True
        found = _STOPPED.match(line)
        if found:
            self.stopped_by = found.group(1)
            return True
        found = _BETWEEN.match(line)
        if found:
            self.forfeited_by = found.group(1)
            return True
        if _EXTRA.match(line):
            return True  # the engine brings the winner's score up by itself
        found = _FINAL.match(line)
        if found:
            self.final = ((int(found.group(1)), int(found.group(2))), found.group(3))
            return True
        return False
