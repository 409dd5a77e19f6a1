"""The engine's game and match over every variant (engine/rules.py, engine/game.py,
engine/match.py): whole random matches, the Tavli match against engine/variants/tavli.py, the
Greek opening, plakoto's mother win and draw, no cube where a variant has none, and the stored
form of each (server/machine/serial.py) round trip."""

import random

import pytest

from engine.errors import CubeError, ErrorCode, GameError, MatchError
from engine.events import GameScored, GameStarted, MatchOver, RolledOff
from engine.game import Action, Game, Phase
from engine.match import Match, MatchOptions
from engine.results import EndReason
from engine.variants import NAMES, TavliMatch, rules, variant
from engine.variants.plakoto.position import PlakotoPosition
from server.machine import serial


def play(match: Match, rng: random.Random, *, double: float = 0.05):
    """Play ``match`` to its end with random legal decisions; returns it, its events and the
    variant of every game."""
    events: list = []
    games: list[str] = []
    for _ in range(100_000):
        if match.is_over:
            return match, events, games
        if not match.in_game:
            match, step = match.start_game()
            games.append(step[0].variant)
            events += step
            continue
        game = match.game
        expected = game.expected()
        seat = expected.seat
        if not match.options.variant.cube:
            assert Action.DOUBLE not in expected.actions
        if game.phase is Phase.ROLLOFF:
            match, step = match.roll_off(rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase is Phase.DECIDE:
            if Action.DOUBLE in expected.actions and rng.random() < double:
                match, step = match.double(seat)
            else:
                match, step = match.roll(seat, rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase is Phase.MOVE:
            plays = game.legal_plays()
            assert plays
            match, step = match.move(seat, rng.choice(plays).moves)
        elif game.phase is Phase.TAKE:
            match, step = (match.take if rng.random() < 0.7 else match.drop)(seat)
        else:  # pragma: no cover - nobody resigns here
            raise AssertionError(game.phase)
        events += step
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("name", NAMES)
def test_a_whole_random_match_of_every_variant(name):
    rng = random.Random(f"match-{name}")
    options = MatchOptions.match(3, rules(name))
    match, events, games = play(Match.new(options), rng)
    assert match.is_over and match.winner in (0, 1)
    assert match.score[match.winner] >= 3
    assert games == [rules(name).game(n).name for n in range(1, len(games) + 1)]
    scored = [e for e in events if isinstance(e, GameScored)]
    assert sum(e.points for e in scored if e.winner == 0) == match.score[0]
    if not rules(name).cube:
        assert all(e.points in (0, 1, 2) for e in scored)
        assert not any(isinstance(e, GameStarted) and e.crawford for e in events)
    # The stored form round trips mid-way and at the end.
    assert serial.load(Match, serial.dump(match)) == match


@pytest.mark.parametrize("name", [n for n in NAMES if n != "tavli"])
def test_a_single_game_of_every_variant_starts_at_its_start_and_ends(name):
    rng = random.Random(f"single-{name}")
    options = MatchOptions.single_game(rules(name))
    match, _ = Match.new(options).start_game()
    assert match.game.variant is variant(name)
    start = variant(name).start()
    assert match.game.boards == (start.mover, start.opponent)
    match, _, _ = play(match, rng)
    assert match.end.value == "completed"
    assert match.game.result is not None


def test_the_tavli_match_scores_rotates_and_opens_as_engine_variants_tavli_says():
    for seed in range(6):
        rng = random.Random(seed)
        match, events, games = play(Match.new(MatchOptions.match(5, rules("tavli"))), rng)
        reference = TavliMatch.new(5)
        started = [e for e in events if isinstance(e, GameStarted)]
        scored = [e for e in events if isinstance(e, GameScored)]
        assert len(started) == len(scored) == len(games)
        for start, score in zip(started, scored, strict=True):
            assert start.variant == reference.next_variant.name
            assert start.opener == reference.opener
            assert not start.cube and not start.crawford
            reference = reference.record(score.winner, score.points)
            assert score.score == reference.score
        assert reference.is_over and reference.winner == match.winner
        assert match.score == reference.score


def test_the_greek_opening_the_roll_off_winner_rolls_again_and_a_winner_opens_the_next():
    match, _ = Match.new(MatchOptions.match(3, rules("tavli"))).start_game()
    match, events = match.roll_off(2, 5)
    assert events == (RolledOff((2, 5), 1),)
    game = match.game
    assert (game.phase, game.on_roll, game.dice) == (Phase.DECIDE, 1, None)
    assert game.expected().actions == frozenset({Action.ROLL, Action.RESIGN})
    match, _ = match.roll(1, 6, 6)  # the first play may be a double
    assert match.game.phase is Phase.MOVE and match.game.dice == (6, 6)
    match, _ = match.resign(1, 1)
    match, _ = match.accept_resignation(0)
    assert match.score == (1, 0)
    match, (started,) = match.start_game()
    assert (started.variant, started.opener) == ("plakoto", 0)
    assert match.game.phase is Phase.DECIDE and match.game.on_roll == 0
    with pytest.raises(GameError) as caught:
        match.roll_off(3, 1)
    assert caught.value.code is ErrorCode.WRONG_PHASE


def test_backgammon_family_openings_play_the_roll_off_dice():
    for name in ("backgammon", "nackgammon", "hypergammon"):
        match, _ = Match.new(MatchOptions.match(3, rules(name))).start_game()
        match, _ = match.roll_off(3, 1)
        assert match.game.phase is Phase.MOVE and match.game.dice == (3, 1)


@pytest.mark.parametrize("name", ["portes", "plakoto", "fevga", "tavli"])
def test_no_double_and_no_money_without_the_cube(name):
    with pytest.raises(MatchError) as caught:
        MatchOptions.money(variant=rules(name))
    assert caught.value.code is ErrorCode.BAD_OPTIONS
    match, _ = Match.new(MatchOptions.match(5, rules(name))).start_game()
    match, _ = match.roll_off(6, 1)
    assert not match.game.can_double(0)
    with pytest.raises(CubeError) as caught:
        match.double(0)
    assert caught.value.code is ErrorCode.CUBE_UNAVAILABLE
    assert match.game.cube.value == 1


# A plakoto position a play away from an ending: the mover (seat on roll) may pin the
# opponent's mother (alone on the opponent's 24, the mover's 1) from its 3-point.
def plakoto_game(mover: dict, mover_pinned=()) -> Game:
    position = PlakotoPosition.from_points(
        mover, {24: 1, 1: 1, 7: 13}, mover_pinned=mover_pinned, opponent_pinned=()
    )
    return Game.from_position(position, on_roll=0, variant=variant("plakoto"))


def ending_play(game: Game, reason: EndReason):
    """A roll of ``game`` and a play of it that ends the game by ``reason``: the rolled game,
    the moves, the game after them and the events."""
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            rolled, _ = game.roll(0, d1, d2)
            if rolled.phase is not Phase.MOVE:
                continue
            for candidate in rolled.legal_plays():
                after, events = rolled.move(0, candidate.moves)
                if after.result is not None and after.result.reason is reason:
                    return rolled, candidate.moves, after, events
    raise AssertionError(f"no play ends the game by {reason}")


def test_plakoto_the_mother_wins_double_and_both_mothers_draw():
    # The mover has left its starting point: pinning the opponent's mother wins double.
    _, _, won, _ = ending_play(plakoto_game({3: 1, 13: 14}), EndReason.MOTHER)
    assert (won.result.winner, won.result.points, won.result.kind.word) == (0, 2, "gammon")
    # The mover's own mother is pinned (under the opponent's checker on its 1, the mover's
    # 24): pinning the opponent's too draws the game.
    game = plakoto_game({24: 1, 3: 1, 13: 13}, mover_pinned=[24])
    assert game.pinned == (1 << 24, 0)
    _, _, drawn, _ = ending_play(game, EndReason.MOTHERS)
    assert drawn.result.winner is None and drawn.result.points == 0
    assert drawn.pinned == (1 << 24, 1 << 24)
    assert serial.load(Game, serial.dump(drawn)) == drawn


def test_a_drawn_game_scores_nothing_the_match_goes_on_with_a_roll_off():
    game = plakoto_game({24: 1, 3: 1, 13: 13}, mover_pinned=[24])
    rolled, moves, _, _ = ending_play(game, EndReason.MOTHERS)
    match = Match(MatchOptions.match(3, rules("tavli")), score=(1, 0), game=rolled, game_number=2)
    match, events = match.move(0, moves)
    assert events[-1] == GameScored(2, None, 0, (1, 0))
    assert not match.is_over and match.next_opener() is None
    match, (started,) = match.start_game()
    assert (started.variant, started.opener) == ("fevga", None)
    assert match.game.phase is Phase.ROLLOFF
    # A single game drawn ends the match without a winner.
    single = Match(MatchOptions.single_game(rules("plakoto")), game=rolled, game_number=1)
    single, events = single.move(0, moves)
    assert single.is_over and single.winner is None
    assert events[-1] == MatchOver(None, (0, 0), events[-1].reason, None)
    assert events[-1].reason.value == "completed"


def test_a_backgammon_match_stored_before_the_variants_loads_and_a_strange_name_is_refused():
    match, _ = Match.new(MatchOptions.match(5)).start_game()
    match, _ = match.roll_off(4, 2)
    stored = serial.dump(match)
    assert stored["options"]["variant"] == "backgammon"
    assert (stored["game"]["variant"], stored["game"]["pinned"]) == ("backgammon", [0, 0])
    # What the server stored before the variants: no such keys. It loads as backgammon.
    del stored["options"]["variant"], stored["game"]["variant"], stored["game"]["pinned"]
    loaded = serial.load(Match, stored)
    assert loaded == match and loaded.game.variant is variant("backgammon")
    # A name that is no variant (stored by a newer version?) is refused, not half read.
    stored["game"]["variant"] = "chouette"
    with pytest.raises(ValueError, match="no variant 'chouette'"):
        serial.load(Match, stored)
    stored["game"]["variant"] = "tavli"  # a match's name, not a game's
    with pytest.raises(ValueError, match="tavli"):
        serial.load(Match, stored)
