"""GNU Backgammon Match IDs: the manual's worked examples, a pinned table checked by hand
against the documented bit layout, round trips, strict decoding, and the mapping from match
states."""

import base64
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import match_id, position_id
from engine.cube import Cube
from engine.game import Game, Phase
from engine.match import Match, MatchOptions
from engine.match_id import GameState, MatchIdError, MatchKey, decode, encode, key_bytes
from engine.position import Position
from engine.results import ResultKind
from harness.random_play import Policy, game_step

# The gnubg manual ("A technical description of the Match ID"): score 2-4 in a 9-point match,
# player 0 holds a 2-cube, player 1 has just rolled 5-2.
MANUAL_KEY = MatchKey(cube=2, cube_owner=0, dice_owner=1, turn=1, dice=(5, 2), length=9,
                      score=(2, 4))


def test_manual_worked_example():
    assert key_bytes(MANUAL_KEY) == bytes([0x41, 0x89, 0x2A, 0x01, 0x20, 0x00, 0x20, 0x00, 0x00])
    # the manual writes the 66-bit key lowest bit first, grouped by field
    bits = int.from_bytes(key_bytes(MANUAL_KEY), "little")
    written = "".join(str((bits >> i) & 1) for i in range(66))
    assert written == (
        "1000" "00" "1" "0" "100" "1" "0" "00" "101" "010"
        "100100000000000" "010000000000000" "001000000000000"
    )
    assert encode(MANUAL_KEY) == "QYkqASAAIAAA"
    assert decode("QYkqASAAIAAA") == MANUAL_KEY


def test_manual_board_examples():
    # Intro of the manual: "gnubg rolls 3, anthon rolls 1" in a money session, gnubg (player 0)
    # to play 3-1 from the start.
    assert decode("MIEFAAAAAAAA") == MatchKey(dice_owner=0, turn=0, dice=(3, 1))
    # The hypergammon database example: money, player 1 on roll, dice not rolled yet.
    assert decode("cAkAAAAAAAAA") == MatchKey(dice_owner=1, turn=1)


# Each row: the ID, then the fields; bytes worked out by hand from the manual's layout.
PINNED = [
    # Crawford game of a 7-point match at 6-3, player 1 rolled 6-6: f0 09 fb 00 60 00 18 00 00
    ("8An7AGAAGAAA", MatchKey(dice_owner=1, crawford=True, turn=1, dice=(6, 6), length=7,
                              score=(6, 3))),
    # money, player 0 has doubled a centred cube, player 1 to decide: 30 19 00 ...
    ("MBkAAAAAAAAA", MatchKey(dice_owner=0, turn=1, doubled=True)),
    # 3-point match 1-2, player 0 owns a 2-cube, player 1 offers a gammon: 41 41 60 00 10 00 10
    ("QUFgABAAEAAA", MatchKey(cube=2, cube_owner=0, dice_owner=1, turn=0, resigned=2,
                              length=3, score=(1, 2))),
    # money game ended by a dropped 4-cube, score 3-7: 12 0c 00 00 30 00 38 00 00
    ("EgwAADAAOAAA", MatchKey(cube=4, cube_owner=1, dice_owner=0, state=GameState.DROPPED,
                              turn=1, score=(3, 7))),
    # 25-point match at 24-24, player 1 owns a 64-cube and rolled 1-2: 56 89 28 03 80 01 c0
    ("VokoA4ABwAAA", MatchKey(cube=64, cube_owner=1, dice_owner=1, turn=1, dice=(1, 2),
                              length=25, score=(24, 24))),
    # 5-point match before its first roll-off (gnubg: nobody on roll = -1 -> 1): 70 08 a0 ...
    ("cAigAAAAAAAA", MatchKey(dice_owner=1, state=GameState.NONE, turn=1, length=5)),
    # the manual's example and its two board examples
    ("QYkqASAAIAAA", MANUAL_KEY),
    ("MIEFAAAAAAAA", MatchKey(dice_owner=0, turn=0, dice=(3, 1))),
    ("cAkAAAAAAAAA", MatchKey(dice_owner=1, turn=1)),
]


@pytest.mark.parametrize(("mid", "key"), PINNED)
def test_pinned_ids(mid, key):
    assert encode(key) == mid
    assert decode(mid) == key


def test_pinned_bytes_were_worked_out_by_hand():
    assert key_bytes(PINNED[0][1]).hex(" ") == "f0 09 fb 00 60 00 18 00 00"
    assert key_bytes(PINNED[4][1]).hex(" ") == "56 89 28 03 80 01 c0 00 00"


keys = st.builds(
    MatchKey,
    cube=st.sampled_from([1 << i for i in range(16)]),
    cube_owner=st.sampled_from([None, 0, 1]),
    dice_owner=st.integers(0, 1),
    crawford=st.booleans(),
    state=st.sampled_from(list(GameState)),
    turn=st.integers(0, 1),
    doubled=st.booleans(),
    resigned=st.integers(0, 3),
    dice=st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6))),
    length=st.integers(1, 64),
    score=st.tuples(st.integers(0, 32767), st.integers(0, 32767)),
)


@given(keys)
def test_round_trip(key):
    mid = encode(key)
    assert len(mid) == 12 and base64.b64decode(mid) == key_bytes(key)
    assert decode(mid) == key


def _id_from_bits(bits: int) -> str:
    return base64.b64encode(bits.to_bytes(9, "little")).decode()


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("QYkqASAAIAA", "12 characters"),
        ("QYkqASAAIAA!", "not base64"),
        (_id_from_bits(1 << 66), "stray bits"),
        (_id_from_bits(2 << 4), "owner"),
        (_id_from_bits((3 << 4) | (5 << 8)), "game state"),
        (_id_from_bits((3 << 4) | (7 << 15) | (1 << 18)), "dice"),
        (_id_from_bits((3 << 4) | (3 << 15)), "dice"),  # one die without the other
        (_id_from_bits((3 << 4) | (65 << 21)), "above 64"),
        (_id_from_bits((3 << 4) | (1 << 7)), "Crawford"),
    ],
)
def test_bad_ids_are_rejected(bad, reason):
    with pytest.raises(MatchIdError, match=reason):
        decode(bad)


def test_bad_keys_are_not_encoded():
    with pytest.raises(ValueError, match="power of two"):
        encode(MatchKey(cube=3))
    with pytest.raises(ValueError, match="out of range"):
        encode(MatchKey(length=1 << 15))
    for dice in [(7, 1), (0, 3)]:
        with pytest.raises(ValueError, match="dice"):
            encode(MatchKey(dice=dice))
    with pytest.raises(ValueError, match="owner"):
        encode(MatchKey(cube_owner=2))
    with pytest.raises(ValueError, match="out of range"):
        encode(MatchKey(turn=2))


# ------------------------------------------------------------- from match states


def money_opening() -> Match:
    match, _ = Match.new(MatchOptions.money()).start_game()
    return match.roll_off(3, 1)[0]


def test_opening_of_the_manual():
    pid, mid = match_id.ids(money_opening())
    assert (pid, mid) == ("4HPwATDgc/ABMA", "MIEFAAAAAAAA")


def test_player_one_to_roll_and_double_offered():
    match = money_opening()
    match, _ = match.move(0, ((8, 5), (6, 5)))
    pid, mid = match_id.ids(match)
    assert mid == "cAkAAAAAAAAA"
    assert pid == position_id.encode(match.game.position(1))
    match, _ = match.roll(1, 6, 4)
    match, _ = match.move(1, match.game.legal_plays()[0].moves)
    match, _ = match.double(0)
    assert match_id.ids(match)[1] == "MBkAAAAAAAAA"


def test_manual_state_built_from_a_match():
    match, _ = Match.new(MatchOptions.match(9)).start_game()
    game = replace(
        Game.from_position(Position.start(), on_roll=1, cube=Cube(2, owner=0)),
        phase=Phase.MOVE, dice=(5, 2),
    )
    match = replace(match, score=(2, 4), game=game)
    assert match_id.ids(match)[1] == "QYkqASAAIAAA"


def test_resignation_offer_and_crawford_flag():
    match = Match(MatchOptions.match(3), score=(1, 2))
    match, _ = match.start_game()  # seat 1 is at N-1: Crawford game
    match, _ = match.roll_off(1, 2)
    match, _ = match.resign(1, ResultKind.GAMMON)
    key = match_id.match_key(match)
    assert key == MatchKey(dice_owner=1, crawford=True, turn=0, resigned=2, dice=(1, 2),
                           length=3, score=(1, 2))


def test_beaver_pending_is_kept_as_gnubg_keeps_it():
    match, _ = Match.new(MatchOptions.money(beavers=True)).start_game()
    match, _ = match.roll_off(4, 2)
    match, _ = match.move(0, match.game.legal_plays()[0].moves)
    match, _ = match.double(1)
    match, _ = match.beaver(0)
    key = match_id.match_key(match)
    assert (key.cube, key.cube_owner, key.doubled, key.dice_owner, key.turn) == (2, 0, True, 1, 1)


def test_finished_games():
    # bear-off: the loser is on roll, scores include the game
    position = Position.from_points({1: 1}, {7: 15})
    match, _ = Match.new(MatchOptions.match(5)).start_game()
    match = replace(match, game=Game.from_position(position, on_roll=0))
    match, _ = match.roll(0, 2, 1)
    match, _ = match.move(0, match.game.legal_plays()[0].moves)
    assert match_id.match_key(match) == MatchKey(
        dice_owner=1, state=GameState.OVER, turn=1, length=5, score=(2, 0)
    )
    assert match_id.ids(match)[0] == position_id.encode(match.game.position(1))
    # drop: the doubler is on roll, the dropper decided
    match, _ = Match.new(MatchOptions.money()).start_game()
    match = replace(match, game=Game.from_position(Position.start(), 1, cube=Cube(4, owner=1)))
    match, _ = match.double(1)
    match, _ = match.drop(0)
    assert match_id.match_key(match) == MatchKey(
        cube=4, cube_owner=1, dice_owner=1, state=GameState.DROPPED, turn=0, score=(0, 4)
    )
    # resignation after rolling: the dice stay
    match, _ = Match.new(MatchOptions.money()).start_game()
    match, _ = match.roll_off(2, 5)
    match, _ = match.resign(1, 3)
    match, _ = match.accept_resignation(0)
    assert match_id.match_key(match) == MatchKey(
        dice_owner=1, state=GameState.RESIGNED, turn=1, resigned=3, dice=(2, 5), score=(3, 0)
    )
    # forfeit: shown as the forfeiter resigning at the forfeit level
    match, _ = Match.new(MatchOptions.single_game()).forfeit(0, "timeout")
    assert match_id.match_key(match) == MatchKey(
        dice_owner=0, state=GameState.RESIGNED, turn=0, resigned=3, score=(0, 3)
    )


@settings(max_examples=8)
@given(st.integers(0, 2**32))
def test_every_state_of_a_random_match_round_trips(seed):
    rng = random.Random(seed)
    match, _ = Match.new(MatchOptions.match(3)).start_game()
    policy = Policy(double=0.1, resign=0.02)
    while match.in_game:
        key = match_id.match_key(match)
        assert decode(encode(key)) == key
        assert key.score == match.score and key.cube == match.game.cube.value
        expected = match.game.expected()
        if expected.seat is not None:
            assert key.turn == expected.seat
        game, _ = game_step(match.game, rng, policy)
        match = replace(match, game=game)
