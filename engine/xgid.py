"""eXtreme Gammon's XGID: a position with its match state in one string, read and written beside
gnubg's Position ID and Match ID (:mod:`engine.position_id`, :mod:`engine.match_id`).

``XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10`` is the opening position, the bottom
player on roll, money, the cube at 1. The fields, separated by ``:``:

====  ==========================================================================================
1     26 characters, one per square seen by XG's *bottom* player: first the top player's bar,
      then the bottom player's points 1 to 24, then the bottom player's bar. ``-`` is empty;
      ``A`` .. ``O`` are 1 .. 15 checkers of the bottom player, ``a`` .. ``o`` of the top player
      (on the bottom player's point *p*, which is the top player's 25 - *p*).
2     the cube value's log2 (``0`` is the 1-cube)
3     the cube owner: ``1`` bottom, ``-1`` top, ``0`` centred
4     the player on roll: ``1`` bottom, ``-1`` top
5     the dice: ``00`` not rolled yet, ``52`` rolled 5 and 2, ``D`` the player on roll has
      doubled and the other decides
6, 7  the bottom player's score, the top player's score
8     in a match, ``1`` for the Crawford game; in money play the Jacoby rule (``1``) plus the
      beaver rule (``2``)
9     the match length (``0``: money)
10    the log2 of the highest cube allowed (money; ``10`` is 1024)
====  ==========================================================================================

The reference for these meanings is GNU Backgammon's own XGID reader (its ``set xgid``
command), which this module is tested against (``tests/unit/test_xgid.py``). XG's bottom player
is gnubg's player 1 and the top player its player 0, so an XGID is the pair
``(Position ID, Match ID)`` of a :class:`Xgid` exactly: its ``position`` is seen by the player on
roll (the key's dice owner), its ``key`` uses gnubg's seats (bottom = seat 1).

>>> opening = decode("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
>>> from engine.position import Position
>>> opening.position == Position.start(), opening.key.dice_owner, opening.key.length
(True, 1, 0)
>>> encode(opening)
'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10'
>>> decode("XGID=-b----E-C---eE---c-e----B-:0:0:1:72:0:0:0:0:10")
Traceback (most recent call last):
...
engine.xgid.XgidError: field 5 (dice): '72' is not a roll
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.match_id import GameState, MatchKey
from engine.position import BAR, CHECKERS, POINTS, SLOTS, Board, Position, PositionError

PREFIX = "XGID="
_FIELDS = 10
_INT = re.compile(r"^-?\d{1,5}$")
_MAX_LENGTH = 64  # as a Match ID can say
_BOTTOM, _TOP = 1, 0  # gnubg's seats of XG's bottom and top players


class XgidError(ValueError):
    """A string that is not a valid XGID (the message names the field)."""


@dataclass(frozen=True, slots=True)
class Xgid:
    """An XGID's content: the position seen by the player on roll, the match state as a gnubg
    :class:`~engine.match_id.MatchKey` (seat 1 is XG's bottom player), the money rules (Jacoby,
    beavers) and the log2 of the highest cube."""

    position: Position
    key: MatchKey
    jacoby: bool = False
    beavers: bool = False
    max_cube: int = 10


def decode(text: str) -> Xgid:
    """The content of an XGID (the ``XGID=`` prefix is optional); :class:`XgidError` otherwise."""
    if not isinstance(text, str):
        raise XgidError("an XGID is a string")
    body = text.strip().removeprefix(PREFIX)
    fields = body.split(":")
    if len(fields) != _FIELDS:
        raise XgidError(f"an XGID has {_FIELDS} fields separated by ':', got {len(fields)}")
    squares, *numbers = fields
    cube_log, owner, turn = (_int(numbers[i], i + 2, name) for i, name in
                             enumerate(("cube", "cube owner", "turn")))
    dice_text = numbers[3]
    bottom_score, top_score, rules, length, max_cube = (
        _int(numbers[i], i + 2, name) for i, name in
        ((4, "bottom score"), (5, "top score"), (6, "Crawford/rules"), (7, "match length"),
         (8, "max cube")))
    if not 0 <= cube_log <= 15:
        raise XgidError(f"field 2 (cube): 2^{cube_log} is no cube value")
    if owner not in (-1, 0, 1):
        raise XgidError(f"field 3 (cube owner): {owner} is not 1, 0 or -1")
    if turn not in (-1, 1):
        raise XgidError(f"field 4 (turn): {turn} is not 1 or -1")
    on_roll = _BOTTOM if turn == 1 else _TOP
    doubled = dice_text == "D"
    if doubled:
        dice = (0, 0)
    elif re.fullmatch(r"[0-6]{2}", dice_text) and (dice_text == "00" or "0" not in dice_text):
        dice = (int(dice_text[0]), int(dice_text[1]))
    elif dice_text in ("B", "R"):
        raise XgidError(f"field 5 (dice): {'a beaver' if dice_text == 'B' else 'a raccoon'} "
                        "pending is not supported")
    else:
        raise XgidError(f"field 5 (dice): {dice_text!r} is not a roll")
    if min(bottom_score, top_score) < 0:
        raise XgidError("fields 6, 7 (scores): a score is not negative")
    if not 0 <= length <= _MAX_LENGTH:
        raise XgidError(f"field 9 (match length): {length} is not 0 .. {_MAX_LENGTH}")
    if length:
        if rules not in (0, 1):
            raise XgidError(f"field 8 (Crawford): {rules} is not 0 or 1 in a match")
        crawford, jacoby, beavers = bool(rules), False, False
    else:
        if not 0 <= rules <= 3:
            raise XgidError(f"field 8 (rules): {rules} is not 0 .. 3 in money play")
        crawford, jacoby, beavers = False, bool(rules & 1), bool(rules & 2)
    if not 0 <= max_cube <= 15:
        raise XgidError(f"field 10 (max cube): 2^{max_cube} is no cube value")
    bottom, top = _boards(squares)
    position = Position.unchecked(bottom, top) if on_roll == _BOTTOM else Position.unchecked(
        top, bottom)
    try:
        Position(position.mover, position.opponent)
    except PositionError as exc:
        raise XgidError(f"field 1 (position): {exc}") from None
    key = MatchKey(
        cube=1 << cube_log,
        cube_owner=None if owner == 0 else _BOTTOM if owner == 1 else _TOP,
        dice_owner=on_roll,
        crawford=crawford,
        turn=1 - on_roll if doubled else on_roll,
        doubled=doubled,
        dice=dice,
        length=length,
        score=(top_score, bottom_score),
    )
    return Xgid(position, key, jacoby, beavers, max_cube)


def encode(xgid: Xgid) -> str:
    """The XGID of ``xgid``; :class:`XgidError` for a state an XGID cannot say (a finished game,
    a resignation offered, a turn that is not the dice owner's or its opponent's after a
    double)."""
    key = xgid.key
    if key.state is not GameState.PLAYING or key.resigned:
        raise XgidError("an XGID is a game being played: no result, no resignation pending")
    if key.dice_owner not in (0, 1):
        raise XgidError(f"no seat {key.dice_owner}")
    if key.doubled != (key.turn != key.dice_owner):
        raise XgidError("the player to decide is the one on roll, or the other after a double")
    if key.doubled and key.dice != (0, 0):
        raise XgidError("a double comes before the roll")
    if key.cube < 1 or key.cube & (key.cube - 1) or key.cube > 1 << 15:
        raise XgidError(f"cube value {key.cube} is not a power of two up to 32768")
    mover, opponent = xgid.position.mover, xgid.position.opponent
    bottom, top = (mover, opponent) if key.dice_owner == _BOTTOM else (opponent, mover)
    squares = [_letter(top[BAR], lower=True)]
    for p in range(1, POINTS + 1):
        if bottom[p] and top[25 - p]:
            raise XgidError(f"both players on point {p}")
        squares.append(_letter(bottom[p], lower=False) if bottom[p] else
                       _letter(top[25 - p], lower=True))
    squares.append(_letter(bottom[BAR], lower=False))
    owner = 0 if key.cube_owner is None else 1 if key.cube_owner == _BOTTOM else -1
    turn = 1 if key.dice_owner == _BOTTOM else -1
    dice = "D" if key.doubled else f"{key.dice[0]}{key.dice[1]}"
    rules = int(key.crawford) if key.length else int(xgid.jacoby) + 2 * int(xgid.beavers)
    fields = ["".join(squares), str(key.cube.bit_length() - 1), str(owner), str(turn), dice,
              str(key.score[_BOTTOM]), str(key.score[_TOP]), str(rules), str(key.length),
              str(xgid.max_cube)]
    return PREFIX + ":".join(fields)


def _boards(squares: str) -> tuple[Board, Board]:
    if len(squares) != SLOTS:
        raise XgidError(f"field 1 (position): {SLOTS} squares, got {len(squares)}")
    bottom = [0] * SLOTS
    top = [0] * SLOTS
    for i, c in enumerate(squares):
        if c == "-":
            continue
        if "A" <= c <= "O":
            if i == 0:
                raise XgidError("field 1 (position): the bottom player's checkers on the top "
                                "player's bar (square 1)")
            bottom[i] = ord(c) - ord("A") + 1
        elif "a" <= c <= "o":
            if i == SLOTS - 1:
                raise XgidError("field 1 (position): the top player's checkers on the bottom "
                                "player's bar (square 26)")
            top[BAR if i == 0 else 25 - i] = ord(c) - ord("a") + 1
        else:
            raise XgidError(f"field 1 (position): {c!r} at square {i + 1} is not '-', A-O or a-o")
    for board, who in ((bottom, "bottom"), (top, "top")):
        on = sum(board)
        if on > CHECKERS:
            raise XgidError(f"field 1 (position): the {who} player has {on} checkers")
        board[0] = CHECKERS - on
    return tuple(bottom), tuple(top)


def _letter(count: int, *, lower: bool) -> str:
    if not count:
        return "-"
    return chr((ord("a") if lower else ord("A")) + count - 1)


def _int(text: str, field: int, name: str) -> int:
    if not _INT.match(text):
        raise XgidError(f"field {field} ({name}): {text!r} is not a whole number")
    return int(text)
