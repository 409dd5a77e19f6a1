"""Our :class:`~engine.position.Position` to and from bgsage's 26-int board.

bgsage sees one board from the player on roll (or, after a move, the player who just moved):
``s[p]`` for points ``p = 1..24`` counts that player's checkers (positive) or the opponent's
(negative) on the player's point ``p``; ``s[25]`` is the player's bar, ``s[0]`` the opponent's
bar (stored positive). Borne-off checkers are implied (15 minus the rest).

Our position keeps two boards, each from its owner's side; the mover's point ``p`` is the
opponent's point ``25 - p``. So ``s[p] = mover[p] - opponent[25 - p]``, ``s[25] = mover[25]``
and ``s[0] = opponent[25]`` — the issue's formula written with gnubg's half-boards
(``me[p-1] - opp[24-p]``).

>>> from engine.position import Position
>>> to_board(Position.start())
[0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0]
>>> from_board(to_board(Position.start())) == Position.start()
True
"""

from __future__ import annotations

from engine.position import BAR, CHECKERS, POINTS, SLOTS, Position

SageBoard = list[int]
"""bgsage's board: 26 ints, seen by one player (see the module docstring)."""


def to_board(position: Position) -> SageBoard:
    """bgsage's board of ``position``, seen by its mover."""
    mover, opponent = position.mover, position.opponent
    board = [0] * SLOTS
    board[0] = opponent[BAR]
    for p in range(1, POINTS + 1):
        board[p] = mover[p] - opponent[25 - p]
    board[BAR] = mover[BAR]
    return board


def from_board(board: SageBoard) -> Position:
    """The inverse of :func:`to_board`: the position seen by the board's player.

    Raises :class:`~engine.position.PositionError` (a ``ValueError``) for an impossible board.
    """
    if len(board) != SLOTS:
        raise ValueError(f"a bgsage board has {SLOTS} ints, got {len(board)}")
    mover = [0] * SLOTS
    opponent = [0] * SLOTS
    for p in range(1, POINTS + 1):
        n = board[p]
        if n > 0:
            mover[p] = n
        elif n < 0:
            opponent[25 - p] = -n
    mover[BAR] = board[BAR]
    opponent[BAR] = board[0]
    mover[0] = CHECKERS - sum(mover)
    opponent[0] = CHECKERS - sum(opponent)
    return Position(tuple(mover), tuple(opponent))
