"""Replaying a transcript's moves through the rules engine: proof that every play was legal.

Both boards start in the variant's starting position (backgammon's unless the transcript names
another). In the backgammon family the roll-off winner plays the deciding roll-off roll; then
each turn roll is played by its roller (the verifier says which rolls are played, by whom), with
the ``move`` action recorded for that roll (``{"type": "move", "k": k, "moves": [[from, to],
...]}``, points counted from the mover's side, 25 = bar, 0 = off). A roll with no recorded
move is accepted only as a forced pass (no legal play) or as the game's last roll when the game
then ended another way (timeout, ...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.position import BAR, OFF, Board
from engine.rules import Side
from engine.validate import IllegalPlay
from engine.variants import variant as variant_named
from protocol.fairdice.errors import Problem, TranscriptError
from protocol.fairdice.transcript import Action, RollRecord


@dataclass(frozen=True, slots=True)
class ReplayOutcome:
    """What the replay found: plays checked, final boards (seat order, each from its owner's
    side), and the end on the board if the game ended that way: its winner (None for a drawn
    plakoto game), multiplier (0 for a draw), the roll, and ``finish`` (``bear_off``, or
    plakoto's ``mother`` and ``mothers``)."""

    plays: int
    boards: tuple[Board, Board]
    bear_off_winner: int | None = None
    bear_off_multiplier: int | None = None
    ended_at_roll: int | None = None
    finish: str | None = None


def format_moves(moves: Sequence[tuple[int, int]]) -> str:
    """Moves in the usual notation.

    >>> format_moves([(25, 22), (6, 0)]), format_moves([])
    ('bar/22 6/off', '(no move)')
    """
    if not moves:
        return "(no move)"
    names = {BAR: "bar", OFF: "off"}
    return " ".join(f"{names.get(a, a)}/{names.get(b, b)}" for a, b in moves)


def replay_plays(
    played: Sequence[tuple[RollRecord, int]],
    moves_by_k: Mapping[int, Action],
    variant: str = "backgammon",
) -> ReplayOutcome:
    """Replay ``played`` — each roll that is played, with the seat that plays it — using the
    ``move`` actions in ``moves_by_k``, by the rules of ``variant``; raise
    :class:`TranscriptError` on the first illegal or missing play or on a roll after the game
    was over."""
    rules = variant_named(variant)
    start = rules.start()
    boards = [start.mover, start.opponent]
    pinned = [0, 0]
    legal_plays, validate_play = rules.legal_plays, rules.validate
    plays = 0
    for index, (roll, seat) in enumerate(played):
        k = roll.k
        position = rules.seen(boards[seat], boards[1 - seat], pinned[seat], pinned[1 - seat])
        action = moves_by_k.get(k)
        if action is None:
            last = index == len(played) - 1
            if legal_plays(position, roll.d1, roll.d2) and not last:
                raise TranscriptError(
                    Problem.ACTION,
                    f"no move recorded for seat {seat} ({roll.d1}-{roll.d2}),"
                    " which had legal plays",
                    k=k,
                    seat=seat,
                )
            if last and legal_plays(position, roll.d1, roll.d2):
                break  # the game ended before the play (timeout, forfeit, ...)
            moves: tuple[tuple[int, int], ...] = ()
        else:
            moves = tuple((a, b) for a, b in action.payload["moves"])
        try:
            play = validate_play(position, roll.d1, roll.d2, moves)
        except IllegalPlay as exc:
            raise TranscriptError(
                Problem.PLAY,
                f"seat {seat} play {format_moves(moves)} with {roll.d1}-{roll.d2} is not legal"
                f" ({exc})",
                k=k,
                seat=seat,
            ) from None
        plays += 1
        after = play.position
        boards[seat], boards[1 - seat] = after.mover, after.opponent
        pinned[seat], pinned[1 - seat] = rules.pins(after)
        ending = rules.ending(after)
        if ending is not None:
            if index != len(played) - 1:
                later = played[index + 1][0].k
                how = (
                    f"seat {seat} bore off all"
                    if ending.finish == "bear_off"
                    else f"it ended by '{ending.finish.value}'"
                )
                raise TranscriptError(
                    Problem.RESULT, f"a roll after the game was over ({how} at roll {k})", k=later
                )
            winner = None if ending.winner is None else (
                seat if ending.winner is Side.MOVER else 1 - seat
            )
            return ReplayOutcome(
                plays, (boards[0], boards[1]), winner, ending.points, k, ending.finish.value
            )
    return ReplayOutcome(plays, (boards[0], boards[1]))
