"""The knockout bracket (pure): its size, the seeds' places, who meets whom.

Players are seeded by rating (highest first; equal ratings by entry order). The bracket has
``size`` = the smallest power of two ≥ the number of players, so ``size - players`` seeds
have no first-round opponent: the byes, which go to the best seeds. Round 1's board ``b``
holds the seeds at places ``2b-1`` and ``2b`` of :func:`seed_places` (a seed above the number
of players is a bye); the winner of round ``r``, board ``b`` meets the winner of board ``b+1``
(``b`` odd) in round ``r+1``, board ``(b+1)//2``, as soon as both are known — no waiting
for the rest of the round. Seeds 1 and 2 can only meet in the final, 1–4 only from the
semi-finals on, and so on.

>>> size(5), rounds(5)
(8, 3)
>>> seed_places(8)
(1, 8, 4, 5, 2, 7, 3, 6)
>>> first_round(5)
((1, None), (4, 5), (2, None), (3, None))
>>> feeders(2, 2)
((1, 3), (1, 4))
"""

from __future__ import annotations


def size(players: int) -> int:
    """The bracket's size: the smallest power of two ≥ ``players`` (at least 2)."""
    n = 2
    while n < players:
        n *= 2
    return n


def rounds(players: int) -> int:
    return size(players).bit_length() - 1


def seed_places(n: int) -> tuple[int, ...]:
    """The seeds in bracket order for a bracket of ``n`` (a power of two): each round's
    pairs, if the better seed always won, are 1 v n, 2 v n-1, … of the seeds left
    (built by replacing each seed ``s`` of the bracket of ``n/2`` with ``s, n+1-s``)."""
    places = [1]
    while len(places) < n:
        m = 2 * len(places)
        places = [x for s in places for x in (s, m + 1 - s)]
    return tuple(places)


def first_round(players: int) -> tuple[tuple[int, int | None], ...]:
    """Round 1 as seed pairs, board 1 first; ``None`` where the seed has a bye."""
    places = seed_places(size(players))
    boards = []
    for b in range(0, len(places), 2):
        x, y = places[b], places[b + 1]
        boards.append((x, y if y <= players else None))
    return tuple(boards)


def feeders(round: int, board: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The two (round, board) whose winners meet at ``round``/``board`` (round ≥ 2)."""
    return (round - 1, 2 * board - 1), (round - 1, 2 * board)
