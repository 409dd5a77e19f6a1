"""The variants: backgammon's relatives as pure rules, one interface for all.

Dispatch by name — ``"backgammon" | "nackgammon" | "hypergammon" | "portes" | "plakoto" |
"fevga" | "tavli"`` (:data:`NAMES`):

* :func:`rules` gives what a match under that name plays: :class:`~engine.rules.Rules`, the
  variants its games rotate through (one, or Tavli's portes → plakoto → fevga) and whether
  the cube is in play;
* :func:`variant` gives one game's :class:`~engine.variants.variant.Variant` (every name but
  ``"tavli"``, which is a match of three games: :mod:`engine.variants.tavli` scores it).

A :class:`~engine.variants.variant.Variant` holds the starting position, the legal plays of a
roll, the validation of a submitted play (a typed :class:`~engine.validate.IllegalPlay`
otherwise), how a play ends the game and what it scores, the cube flag and the opening rule.
Backgammon, nackgammon, hypergammon and portes reuse the engine's generator and validator as
they are; plakoto and fevga have their own (``engine/variants/plakoto/``,
``engine/variants/fevga/``), each with a slow reference generator written from the rules text.
The rules, their conventions and sources: docs/rules.md, "Variants".

This package sits above the rest of ``engine`` (tests/unit/test_tiers.py): it imports the
engine, the engine never imports it. The interface itself (:class:`~engine.rules.Variant`,
:class:`~engine.rules.Rules`) and backgammon's rules are in :mod:`engine.rules`, so the
engine's game and match take a variant by value; this package gives them by name.

>>> [rules(name).rotation[0].name for name in ("nackgammon", "tavli")]
['nackgammon', 'portes']
>>> rules("tavli").game(3).name, rules("tavli").game(4).name, rules("tavli").cube
('fevga', 'portes', False)
>>> variant("hypergammon").checkers
3
>>> variant("chouette")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
engine.variants.UnknownVariant: no variant 'chouette' (known: backgammon, nackgammon, ..., tavli)
"""

from __future__ import annotations

from engine.rules import Rules
from engine.variants.backgammon import BACKGAMMON
from engine.variants.fevga import FEVGA
from engine.variants.hypergammon import HYPERGAMMON
from engine.variants.nackgammon import NACKGAMMON
from engine.variants.plakoto import PLAKOTO
from engine.variants.portes import PORTES
from engine.variants.tavli import ROTATION, TavliMatch
from engine.variants.variant import Ending, Finish, Opening, Side, Variant

VARIANTS: dict[str, Variant] = {
    v.name: v for v in (BACKGAMMON, NACKGAMMON, HYPERGAMMON, PORTES, PLAKOTO, FEVGA)
}
"""Every single-game variant by name."""

NAMES: tuple[str, ...] = (*VARIANTS, "tavli")
"""Every name a match can be played under (the wire's ``variant``)."""

TAVLI = Rules("tavli", ROTATION)
"""A Tavli match: portes, plakoto and fevga in turn (scored by :mod:`engine.variants.tavli`)."""


class UnknownVariant(ValueError):
    """A name that is no variant."""


def rules(name: str) -> Rules:
    """The :class:`Rules` of a match played under ``name``, or :class:`UnknownVariant`."""
    if name == "tavli":
        return TAVLI
    return Rules(name, (variant(name),))


def variant(name: str) -> Variant:
    """The rules of one game of ``name``, or :class:`UnknownVariant` (also for ``"tavli"``,
    which is a match of three variants: see :func:`rules`)."""
    found = VARIANTS.get(name) if isinstance(name, str) else None
    if found is None:
        if name == "tavli":
            raise UnknownVariant("tavli is a match of portes, plakoto and fevga: use rules()")
        raise UnknownVariant(f"no variant {name!r} (known: {', '.join(NAMES)})")
    return found


__all__ = [
    "NAMES",
    "VARIANTS",
    "Ending",
    "Finish",
    "Opening",
    "Rules",
    "Side",
    "TavliMatch",
    "UnknownVariant",
    "Variant",
    "rules",
    "variant",
]
