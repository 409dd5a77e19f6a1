"""GNU Backgammon Match IDs, byte-identical with gnubg.

A Match ID is a 66-bit key written as 12 base64 characters (9 bytes, bits filling each byte
from the least significant end, like the Position ID). Bit fields, lowest first:

====== ====== ===========================================================================
bits   width  field
====== ====== ===========================================================================
0–3    4      log2 of the cube value
4–5    2      cube owner: 0 or 1, 3 = centred
6      1      dice owner: the player on roll (or who rolled)
7      1      Crawford game
8–10   3      game state: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped
11     1      turn: the player who must decide now (e.g. the doubled player)
12     1      a double is offered
13–14  2      resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
15–17  3      first die (0 = not rolled)
18–20  3      second die
21–35  15     match length (0 = money)
36–50  15     score of player 0
51–65  15     score of player 1
====== ====== ===========================================================================

Seat 0 is gnubg's player 0. The gnubg manual's worked example (score 2–4 in a 9-point match,
player 0 owns a 2-cube, player 1 has rolled 5-2):

>>> key = MatchKey(cube=2, cube_owner=0, dice_owner=1, turn=1, dice=(5, 2), length=9,
...                score=(2, 4))
>>> key_bytes(key).hex(' ')
'41 89 2a 01 20 00 20 00 00'
>>> encode(key)
'QYkqASAAIAAA'
>>> decode('QYkqASAAIAAA') == key
True
"""

from __future__ import annotations

import base64
import binascii
import enum
from dataclasses import dataclass, replace

from engine import position_id
from engine.game import Game, Phase
from engine.match import Match, Mode
from engine.position import Position
from engine.results import EndReason

_ID_LENGTH = 12
_KEY_BYTES = 9
_KEY_BITS = 66
_MAX_FIELD = (1 << 15) - 1
_MAX_LENGTH = 64  # gnubg refuses longer matches (MAXSCORE)
_CENTRED = 3


class MatchIdError(ValueError):
    """A string that is not a valid Match ID."""


class GameState(enum.IntEnum):
    """gnubg's game state field."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


@dataclass(frozen=True, slots=True)
class MatchKey:
    """The fields of a Match ID, with gnubg's meaning (``cube_owner`` None = centred;
    ``resigned`` 0 = none, else the level offered; ``dice`` (0, 0) = not rolled)."""

    cube: int = 1
    cube_owner: int | None = None
    dice_owner: int = 0
    crawford: bool = False
    state: GameState = GameState.PLAYING
    turn: int = 0
    doubled: bool = False
    resigned: int = 0
    dice: tuple[int, int] = (0, 0)
    length: int = 0
    score: tuple[int, int] = (0, 0)


def key_bytes(key: MatchKey) -> bytes:
    """The 9-byte match key."""
    if key.cube < 1 or key.cube & (key.cube - 1) or key.cube > 1 << 15:
        raise ValueError(f"cube value must be a power of two up to 32768, got {key.cube}")
    die1, die2 = key.dice
    if not (0 <= die1 <= 6 and 0 <= die2 <= 6) or (die1 == 0) != (die2 == 0):
        raise ValueError(f"dice out of range: {key.dice}")
    if key.cube_owner not in (None, 0, 1):
        raise ValueError(f"cube owner must be None, 0 or 1, got {key.cube_owner!r}")
    fields = (
        (key.cube.bit_length() - 1, 4),
        (_CENTRED if key.cube_owner is None else key.cube_owner, 2),
        (key.dice_owner, 1),
        (int(key.crawford), 1),
        (int(key.state), 3),
        (key.turn, 1),
        (int(key.doubled), 1),
        (key.resigned, 2),
        (key.dice[0], 3),
        (key.dice[1], 3),
        (key.length, 15),
        (key.score[0], 15),
        (key.score[1], 15),
    )
    bits = 0
    shift = 0
    for value, width in fields:
        if not 0 <= value < 1 << width:
            raise ValueError(f"match key field out of range: {value} in {width} bits")
        bits |= value << shift
        shift += width
    return bits.to_bytes(_KEY_BYTES, "little")


def encode(key: MatchKey) -> str:
    """The Match ID of ``key``."""
    return base64.b64encode(key_bytes(key)).decode("ascii")


def decode(match_id: str) -> MatchKey:
    """The fields of a Match ID; anything malformed raises :class:`MatchIdError`.

    Beyond gnubg's own checks (dice 0–6, match length at most 64, no Crawford game in money
    play) it refuses what gnubg could not have written: set bits past bit 66, cube owner 2, a
    game state above 4, a single rolled die. Scores above the match length are accepted (a
    finished match records the real points).

    >>> decode('cAkAAAAAAAAA')
    MatchKey(cube=1, cube_owner=None, dice_owner=1, crawford=False, \
state=<GameState.PLAYING: 1>, turn=1, doubled=False, resigned=0, dice=(0, 0), length=0, \
score=(0, 0))
    >>> decode('cAkAAAAAAAA')
    Traceback (most recent call last):
    ...
    engine.match_id.MatchIdError: a Match ID has 12 characters, got 11
    """
    if not isinstance(match_id, str):
        raise MatchIdError("a Match ID is a string")
    if len(match_id) != _ID_LENGTH:
        raise MatchIdError(f"a Match ID has {_ID_LENGTH} characters, got {len(match_id)}")
    try:
        raw = base64.b64decode(match_id, validate=True)
    except (binascii.Error, ValueError):
        raise MatchIdError(f"not base64: {match_id!r}") from None
    bits = int.from_bytes(raw, "little")
    if bits >> _KEY_BITS:
        raise MatchIdError(f"stray bits after bit {_KEY_BITS}: {match_id!r}")
    values = []
    shift = 0
    for width in (4, 2, 1, 1, 3, 1, 1, 2, 3, 3, 15, 15, 15):
        values.append((bits >> shift) & ((1 << width) - 1))
        shift += width
    log_cube, owner, dice_owner, crawford, state, turn, doubled, resigned = values[:8]
    die1, die2, length, score0, score1 = values[8:]
    if owner == 2:
        raise MatchIdError("cube owner field 2 is not used")
    if state > GameState.DROPPED:
        raise MatchIdError(f"no game state {state}")
    if die1 > 6 or die2 > 6 or (die1 == 0) != (die2 == 0):
        raise MatchIdError(f"impossible dice {die1}-{die2}")
    if length > _MAX_LENGTH:
        raise MatchIdError(f"match length {length} is above {_MAX_LENGTH}")
    if length == 0 and crawford:
        raise MatchIdError("no Crawford game in money play")
    return MatchKey(
        cube=1 << log_cube,
        cube_owner=None if owner == _CENTRED else owner,
        dice_owner=dice_owner,
        crawford=bool(crawford),
        state=GameState(state),
        turn=turn,
        doubled=bool(doubled),
        resigned=resigned,
        dice=(die1, die2),
        length=length,
        score=(score0, score1),
    )


def match_key(match: Match) -> MatchKey:
    """The Match ID fields gnubg shows for ``match`` (see :func:`ids`).

    Mapping decisions: a game waiting for its roll-off (or no game yet) is gnubg's "no game"
    state, where gnubg has no player on roll (-1, which lands in the one-bit fields as 1). A
    finished game shows what gnubg shows when it replays the game to its end: after a bear-off
    the loser is on roll; after a drop the doubler is on roll and the dropper decides; a
    resignation shows its level; a forfeit shows as a resignation by the forfeiter at the
    forfeit level. A single game and a money session have match length 0.

    >>> from engine.match import MatchOptions
    >>> m, _ = Match.new(MatchOptions.money()).start_game()
    >>> m, _ = m.roll_off(3, 1)
    >>> encode(match_key(m))   # the gnubg manual's opening: gnubg rolls 3, anthon rolls 1
    'MIEFAAAAAAAA'
    """
    length = match.options.length if match.options.mode is Mode.MATCH else 0
    base = MatchKey(
        length=length,
        score=(match.score[0] & _MAX_FIELD, match.score[1] & _MAX_FIELD),
        crawford=match.is_crawford,
    )
    game = match.game
    if game is None or game.phase is Phase.ROLLOFF:
        return replace(base, state=GameState.NONE, dice_owner=1, turn=1)
    return _game_key(base, game)


def ids(match: Match) -> tuple[str, str]:
    """``(Position ID, Match ID)`` as gnubg shows them; the position is seen by the player on
    roll (the Match ID's dice owner).

    >>> from engine.match import MatchOptions
    >>> m, _ = Match.new(MatchOptions.match(5)).start_game()
    >>> ids(m)   # before the roll-off: no player on roll yet
    ('4HPwATDgc/ABMA', 'cAigAAAAAAAA')
    """
    key = match_key(match)
    game = match.game
    if game is None or game.phase is Phase.ROLLOFF:
        position = Position.start()
    else:
        position = game.position(key.dice_owner)
    return position_id.encode(position), encode(key)


def _game_key(base: MatchKey, game: Game) -> MatchKey:
    key = replace(base, cube=game.cube.value, cube_owner=game.cube.owner)
    dice = game.dice or (0, 0)
    on_roll = game.on_roll if game.on_roll is not None else 0
    result = game.result
    if result is None:
        turn = game.to_act if game.to_act is not None else on_roll
        resignation = game.resignation
        return replace(
            key,
            state=GameState.PLAYING,
            dice_owner=on_roll,
            turn=turn,
            dice=dice,
            doubled=game.phase is Phase.TAKE,
            resigned=int(resignation.level) if resignation is not None else 0,
        )
    if result.reason is EndReason.BEAR_OFF:
        return replace(key, state=GameState.OVER, dice_owner=result.loser, turn=result.loser)
    if result.reason is EndReason.DROP:
        return replace(key, state=GameState.DROPPED, dice_owner=on_roll, turn=result.loser)
    # resigned, or forfeited (shown as the forfeiter resigning)
    return replace(
        key,
        state=GameState.RESIGNED,
        dice_owner=result.loser,
        turn=result.loser,
        resigned=int(result.kind),
        dice=dice if on_roll == result.loser else (0, 0),
    )
