"""No input crashes the importer: every file is imported or refused with a typed error.

Mutants of real files (our export, an eXtreme Gammon-style ``.mat`` and a gnubg-style SGF of
short matches: a span deleted, noise inserted, a digit changed, lines deleted, duplicated,
swapped or cut off; :func:`harness.import_samples.mutant`), and arbitrary text and bytes from
hypothesis. Whatever is accepted must be a real match: its own export imports back to the same
games. ``bench/import_fuzz.py`` runs 10,000 mutants and counts the refusals by code.
"""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from engine.importer import MatchFileError, read_match
from engine.matfile import export
from harness.import_samples import essentials, gnubg_sgf, mutant, other_mat, sample_record

BASES = [
    writer(sample_record(seed))
    for seed in (0, 7, 14)  # 1-point matches: short files, fast to read
    for writer in (export, other_mat, gnubg_sgf)
]


def checked(data: bytes | str) -> str:
    """Import ``data``: refused with a typed error, or a match whose own export imports back."""
    try:
        imported = read_match(data)
    except MatchFileError as err:
        assert err.code.value and err.message
        assert err.line is None or err.line >= 1
        return err.code.value
    again = read_match(export(imported.record))
    assert essentials(again.record) == essentials(imported.record)
    return "imported"


def test_fifteen_hundred_mutants():
    rng = random.Random(2026)
    outcomes: dict[str, int] = {}
    for i in range(1500):
        text = mutant(BASES[i % len(BASES)], rng)
        outcome = checked(text.encode("utf-8", "surrogatepass") if i % 2 else text)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    # The mutants reach the deep checks, not only the parsers.
    assert outcomes.get("imported", 0) > 50
    assert outcomes.get("illegal", 0) > 50
    assert outcomes.get("syntax", 0) > 50
    assert outcomes.get("inconsistent", 0) > 3


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=400))
def test_arbitrary_text(text):
    checked(text)


@given(st.binary(max_size=400))
def test_arbitrary_bytes(data):
    checked(data)


@given(st.lists(st.sampled_from([
    " 3 point match", " 0 point match", " Game 1", " Game 2", " Ann : 0   Bob : 0",
    "  1) 31: 8/5 6/5", "  1)                       31: 8/5 6/5", "  2) 64: 24/18 13/9",
    "  2)  Doubles => 2", "  3)  Takes", "  3)  Drops", "      Wins 1 point",
    "                              Wins 2 points and the match", "; [Jacoby \"On\"]",
    "  4) 66: Cannot Move", "  4) 52: ???", "  5)  Beavers => 4", "",
]), max_size=14))
def test_shuffled_mat_lines(lines):
    checked("\n".join(lines))
