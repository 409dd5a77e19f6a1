"""Write the match-rule vectors the hot-seat game (``/local``) is held to, from the Python engine.

``web-client/test/fixtures/match-rules.json`` holds the engine's answers
(``engine/match.py``, ``engine/game.py``, ``engine/cube.py``, ``engine/results.py``):

- ``crawford``: for a match to 1…7, every score and whether a Crawford game was played: is the
  next game the Crawford game (and in a single game or a money session: never);
- ``double``: a real match brought to the first cube decision of a game (any score, before,
  in and after the Crawford game, a match to 1, dead cubes, every cube value and owner): is
  the game the Crawford game, is the cube in play, may the seat on roll double, and is its cube
  dead (a double gains it nothing: ``engine.match.cube_is_dead``). The clients' trackers are
  held to these too (``tests/web/test_web_match_rules.py`` for the Python one);
- ``endings``: games ended through the engine's own transitions (borne off as a single,
  gammon or backgammon; resigned or forfeited at each level; a dropped double) at several
  cube values and owners, scores and kinds of match (single game, match to N, money with and
  without the Jacoby rule): the points the match adds, the new score, the score shown (never
  beyond the match length: ``engine.match.match_score``), whether the match is over;
- ``levels``: positions (seeded random games and built ones): the worst result still possible
  for the player on roll (their forfeit level) and the levels they may resign at after a
  rejected level;
- ``matches``: whole matches played step by step (roll-off, rolls, plays, doubles, takes,
  drops, resignations accepted, rejected or refused, forfeits on time, next game), with what
  the engine says after every step: phase, who acts, the cube, Crawford, resignation levels,
  score, and each game's result. ``test/matchRules.test.ts`` plays the same steps on
  ``src/view/localGame.ts`` and compares its view after each one.

Deterministic (seeded dice; the first legal play in the engine's order). Run from the
repository root::

    .venv/bin/python web-client/tools/make_match_rules.py          # write
    .venv/bin/python web-client/tools/make_match_rules.py --check  # exit 1 when stale

``tests/web/test_web_match_rules.py`` fails when the committed file is not what this writes.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script: make the engine importable
    sys.path.insert(0, str(ROOT))

from engine.cube import Cube  # noqa: E402
from engine.errors import GameError  # noqa: E402
from engine.events import GameScored, MatchOver  # noqa: E402
from engine.game import Game, Phase  # noqa: E402
from engine.match import Match, MatchOptions, Mode, cube_is_dead, match_score  # noqa: E402
from engine.movegen import legal_plays  # noqa: E402
from engine.position import Position  # noqa: E402
from engine.position_id import encode  # noqa: E402
from engine.results import ResultKind, worst_possible  # noqa: E402
from protocol.events import PLAYER_DECISIONS  # noqa: E402

FIXTURE = ROOT / "web-client" / "test" / "fixtures" / "match-rules.json"
FORMAT = "fairgammon-match-rules/1"
KIND = {Mode.SINGLE_GAME: "single", Mode.MATCH: "match", Mode.MONEY: "money"}

Rules = dict[str, Any]
"""A kind of match as the client names it: ``{"kind", "length", "jacoby"}``."""


def rules(options: MatchOptions) -> Rules:
    return {"kind": KIND[options.mode], "length": options.length, "jacoby": options.jacoby}


def match_at(options: MatchOptions, score: tuple[int, int], crawford_played: bool) -> Match:
    """A match between games at ``score``; ``crawford_played``: its Crawford game is behind it."""
    if crawford_played:
        return Match(options, score=score, game_number=1, crawford_game=1)
    return Match(options, score=score)


def with_cube(match: Match, value: int, owner: int | None) -> Match:
    assert match.game is not None
    return replace(match, game=replace(match.game, cube=Cube(value, owner)))


# ---------------------------------------------------------------------------- tables


def crawford_cases() -> list[dict[str, Any]]:
    """Whether the next game is the Crawford game.

    >>> [c for c in crawford_cases() if c["rules"]["length"] == 3 and c["score"] == [2, 0]]
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'rules': {'kind': 'match', 'length': 3, 'jacoby': False}, 'score': [2, 0],
      'crawford_played': False, 'next_is_crawford': True},
     {'rules': {'kind': 'match', 'length': 3, 'jacoby': False}, 'score': [2, 0],
      'crawford_played': True, 'next_is_crawford': False}]
    """
    out = []
    for options in (MatchOptions.single_game(), MatchOptions.money()):
        m = Match.new(options)
        out.append({"rules": rules(options), "score": [0, 0], "crawford_played": False,
                    "next_is_crawford": m.next_game_is_crawford()})
    for length in range(1, 8):
        options = MatchOptions.match(length)
        for s0 in range(length):
            for s1 in range(length):
                for played in (False, True):
                    m = match_at(options, (s0, s1), played)
                    out.append({"rules": rules(options), "score": [s0, s1],
                                "crawford_played": played,
                                "next_is_crawford": m.next_game_is_crawford()})
    return out


CUBES: tuple[tuple[int, int | None], ...] = (
    (1, None), (2, 0), (2, 1), (4, 0), (8, 1), (16, 0), (32, 0), (32, 1), (64, 0), (64, 1),
)
"""Cube states (value, owner); seat 1 is on roll in the ``double`` cases."""


def double_cases() -> list[dict[str, Any]]:
    """May seat 1 double at its first decision of the game (seat 0 opened with 3-1)?

    >>> one = [c for c in double_cases() if c["rules"]["length"] == 1]
    >>> sorted({(c["crawford"], c["cube_in_play"]) for c in one})
    [(False, True)]
    >>> [c["may_double"] for c in one if c["cube"] == [1, None]]
    [True, True]
    """
    settings: list[tuple[MatchOptions, tuple[int, int], bool]] = [
        (MatchOptions.single_game(), (0, 0), False),
        (MatchOptions.money(), (0, 0), False),
        (MatchOptions.money(jacoby=True, beavers=True), (3, 1), False),
    ]
    for length in (1, 2, 3, 5):
        for s0 in range(length):
            for s1 in range(length):
                for played in (False, True):
                    settings.append((MatchOptions.match(length), (s0, s1), played))
    out = []
    for options, score, played in settings:
        m, _ = match_at(options, score, played).start_game()
        m, _ = m.roll_off(3, 1)
        m, _ = m.move(0, ((8, 5), (6, 5)))
        assert m.game is not None and m.game.phase is Phase.DECIDE and m.game.on_roll == 1
        for value, owner in CUBES:
            if not m.game.options.cube and (value, owner) != (1, None):
                continue  # no cube in play: it never leaves the centre
            game = with_cube(m, value, owner).game
            assert game is not None
            out.append({
                "rules": rules(options), "score": list(score), "crawford_played": played,
                "cube": [value, owner], "crawford": m.is_crawford,
                "cube_in_play": game.options.cube, "may_double": game.can_double(1),
                "dead": cube_is_dead(options.mode, options.length, score, value, 1),
            })
    return out


# The seat on roll (S) ends the game from these positions (S's board first).
BEAR_OFF = {  # S bears off its last checker with 2-1; the loser's board makes the result
    1: Position.from_points({1: 1}, {6: 14}),
    2: Position.from_points({1: 1}, {6: 15}),
    3: Position.from_points({1: 1}, {6: 14, 20: 1}),
}
LOSING = {  # S's worst possible result in each (what it resigns or forfeits at most)
    1: Position.from_points({6: 14}, {1: 1, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}),
    2: Position.from_points({5: 15}, {5: 15}),
    3: Position.start(),
}


def _ending(options: MatchOptions, score: tuple[int, int], played: bool, seat: int,
            position: Position, value: int, owner: int | None,
            end: str, level: int) -> dict[str, Any] | None:
    """One game ended by ``end`` from ``position`` (seen by ``seat``, on roll), or None when the
    engine refuses that ending there (a double without the cube, a level above the worst)."""
    m, _ = match_at(options, score, played).start_game()
    assert m.game is not None
    if not m.game.options.cube and (value, owner) != (1, None):
        return None
    game = Game.from_position(position, seat, m.game.options, Cube(value, owner))
    m = replace(m, game=game)
    other = 1 - seat
    try:
        if end == "bear_off":
            m, _ = m.roll(seat, 2, 1)
            play = next(p for p in legal_plays(m.game.position(), 2, 1) if p.position.is_over())  # type: ignore[union-attr]
            m, events = m.move(seat, play.moves)
            winner = seat
        elif end == "resign":
            m, _ = m.resign(seat, level)
            m, events = m.accept_resignation(other)
            winner = other
        elif end == "drop":
            m, _ = m.double(seat)
            m, events = m.drop(other)
            winner = seat
        else:
            m, events = m.forfeit(seat, "timeout")
            winner = other
    except GameError:
        return None
    scored = next(e for e in events if isinstance(e, GameScored))
    result = m.game.result  # type: ignore[union-attr]
    assert result is not None and result.winner == winner
    return {
        "rules": rules(options), "score": list(score), "crawford": m.is_crawford,
        "cube": [value, owner], "end": end, "winner": winner,
        "level": 1 if end == "drop" else int(result.kind),
        "points": scored.points, "new_score": list(scored.score),
        "shown_score": list(match_score(options.mode, options.length, scored.score)),
        "over": any(isinstance(e, MatchOver) for e in events),
    }


def ending_cases() -> list[dict[str, Any]]:
    """Games ended through the engine's transitions, and what the match makes of them.

    >>> cases = ending_cases()
    >>> [c["points"] for c in cases if c["rules"]["jacoby"] and c["end"] == "bear_off"
    ...  and c["cube"] == [1, None]]
    [1, 1, 1, 1, 1, 1]
    >>> [c["points"] for c in cases if c["rules"]["length"] == 5 and c["end"] == "forfeit"
    ...  and c["score"] == [0, 0] and c["cube"] == [4, 0] and c["level"] == 3]  # both seats
    [12, 12]
    """
    settings: list[tuple[MatchOptions, tuple[int, int], bool]] = [
        (MatchOptions.single_game(), (0, 0), False),
        (MatchOptions.money(), (0, 0), False),
        (MatchOptions.money(), (5, 9), False),
        (MatchOptions.money(jacoby=True), (0, 0), False),
        (MatchOptions.match(1), (0, 0), False),
        (MatchOptions.match(3), (0, 0), False),
        (MatchOptions.match(3), (2, 0), False),  # the Crawford game
        (MatchOptions.match(3), (2, 1), True),  # after it
        (MatchOptions.match(5), (0, 0), False),
        (MatchOptions.match(5), (3, 1), False),
        (MatchOptions.match(5), (1, 4), True),
    ]
    out = []
    for options, score, played in settings:
        for seat in (0, 1):
            for value, owner in ((1, None), (2, 0), (2, 1), (4, 0), (4, 1)):
                cases: list[tuple[str, Position, int]] = [
                    *(("bear_off", BEAR_OFF[k], k) for k in (1, 2, 3)),
                    *(("resign", LOSING[3], k) for k in (1, 2, 3)),
                    ("resign", LOSING[1], 2),  # refused: a gammon is no longer possible
                    ("drop", LOSING[3], 1),
                    *(("forfeit", LOSING[k], k) for k in (1, 2, 3)),
                ]
                for end, position, level in cases:
                    case = _ending(options, score, played, seat, position, value, owner,
                                   end, level)
                    if case is not None:
                        out.append(case)
    return out


def level_positions() -> list[Position]:
    """Built positions for each worst result, then positions from seeded random games."""
    built = [
        Position.start(),
        *LOSING.values(),
        Position.from_points({6: 14, 25: 1}, {1: 15}),  # on the bar, no contact otherwise
        Position.from_points({6: 14, 20: 1}, {1: 15}),  # in the winner's home board
        Position.from_points({7: 15}, {19: 1, 1: 14}),  # in contact: a hit is still possible
        Position.from_points({6: 15}, {6: 15}),  # a race, nothing borne off
    ]
    rng = random.Random(20)
    found = []
    for _ in range(40):
        game, _ = Game.new().roll_off(*_distinct(rng))
        while not game.is_over and len(found) < 400:
            if game.phase is Phase.MOVE:
                plays = game.legal_plays()
                found.append(game.position())
                game, _ = game.move(game.on_roll, rng.choice(plays).moves)  # type: ignore[arg-type]
            else:
                game, _ = game.roll(game.on_roll, rng.randint(1, 6), rng.randint(1, 6))  # type: ignore[arg-type]
    return built + found[::7]


def _distinct(rng: random.Random) -> tuple[int, int]:
    while True:
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        if a != b:
            return a, b


def level_cases() -> list[dict[str, Any]]:
    """Forfeit level and resignation levels of the player on roll, after each rejected level.

    >>> level_cases()[0]
    {'id': '4HPwATDgc/ABMA', 'worst': 3, 'levels': [[1, 2, 3], [2, 3], [3], []]}
    """
    out = []
    for position in level_positions():
        game = Game.from_position(position, 0)
        levels = []
        for declined in (None, ResultKind.SINGLE, ResultKind.GAMMON, ResultKind.BACKGAMMON):
            seen = replace(game, declined=declined)
            levels.append([int(k) for k in seen.resignation_levels(0)])
        out.append({
            "id": encode(position),
            "worst": int(worst_possible(position.mover, position.opponent)),
            "levels": levels,
        })
    return out


# -------------------------------------------------------------------- whole matches


class Script:
    """A match played step by step on the engine, each step with what the engine says after.

    Only what the hot-seat game can be asked is played: a resignation while deciding a cube
    action or moving (with no cube decision the roll comes by itself there), a forfeit while a
    clock runs (deciding, moving, answering an offer).
    """

    def __init__(self, name: str, options: MatchOptions, seed: int,
                 position: Position | None = None) -> None:
        self.name = name
        self.options = options
        self.rng = random.Random(seed)
        self.position = position
        m, _ = Match.new(options).start_game()
        if position is not None:  # game 1 from a position, seat 0 on roll
            assert m.game is not None
            m = replace(m, game=Game.from_position(position, 0, m.game.options))
        self.match = m
        self.scored: tuple[int, int] | None = None
        self.steps: list[dict[str, Any]] = [{"do": "start", "then": self.observe()}]

    @property
    def game(self) -> Game:
        assert self.match.game is not None
        return self.match.game

    def observe(self) -> dict[str, Any]:
        m, game = self.match, self.game
        seen: dict[str, Any] = {"score": list(m.score)}
        if game.is_over:
            assert self.scored is not None
            seen.update(phase="over", result=list(self.scored), match_over=m.is_over,
                        crawford=not m.is_over and m.next_game_is_crawford())
            return seen
        phase = game.phase.value
        if game.phase is Phase.DECIDE and not game.can_double(game.on_roll):  # type: ignore[arg-type]
            phase = "rolling"  # nothing to decide: the roll comes by itself
        seen.update(phase=phase, turn=game.to_act, crawford=m.is_crawford,
                    cube=[game.cube.value, game.cube.owner], cube_in_play=game.options.cube)
        if phase in ("decide", "move"):
            seen["resign_levels"] = [int(k) for k in game.resignation_levels(game.to_act)]  # type: ignore[arg-type]
        return seen

    def _do(self, step: dict[str, Any], action: Any, refused: bool = False) -> Script:
        try:
            self.match, events = action()
        except GameError:
            assert refused, f"{self.name}: the engine refused {step}"
            step["refused"] = True
        else:
            assert not refused, f"{self.name}: the engine took {step}"
            for event in events:
                if isinstance(event, GameScored):
                    self.scored = (event.winner, event.points)
        step["then"] = self.observe()
        self.steps.append(step)
        return self

    def _seat(self) -> int:
        seat = self.game.to_act
        assert seat is not None, f"{self.name}: nobody is to act"
        return seat

    def rolloff(self, d0: int, d1: int) -> Script:
        return self._do({"do": "rolloff", "dice": [d0, d1]}, lambda: self.match.roll_off(d0, d1))

    def roll(self, d1: int | None = None, d2: int | None = None) -> Script:
        d1 = d1 or self.rng.randint(1, 6)
        d2 = d2 or self.rng.randint(1, 6)
        seat = self._seat()
        return self._do({"do": "roll", "dice": [d1, d2]}, lambda: self.match.roll(seat, d1, d2))

    def move(self, finish: bool = False) -> Script:
        """The seat on roll plays its first legal play (in the engine's order); ``finish``: the
        first that bears off its last checker."""
        seat, game = self._seat(), self.game
        assert game.dice is not None, f"{self.name}: no dice to play"
        plays = legal_plays(game.position(), *game.dice)
        play = next(p for p in plays if p.position.is_over()) if finish else plays[0]
        moves = [list(mv) for mv in play.moves]
        return self._do({"do": "move", "moves": moves},
                        lambda: self.match.move(seat, play.moves))

    def turn(self) -> Script:
        """Roll and play (only roll when the roll passes)."""
        self.roll()
        return self.move() if self.game.phase is Phase.MOVE else self

    def act(self, name: str, *args: Any, refused: bool = False) -> Script:
        seat = self._seat()
        do = {"double": self.match.double, "take": self.match.take, "drop": self.match.drop,
              "resign": self.match.resign, "accept": self.match.accept_resignation,
              "reject": self.match.reject_resignation}[name]
        step: dict[str, Any] = {"do": name}
        if name == "resign":
            assert self.observe()["phase"] in ("decide", "move"), f"{self.name}: resign now?"
            step["level"] = args[0]
        return self._do(step, lambda: do(seat, *args), refused)

    def forfeit(self) -> Script:
        """The seat that owes the decision lets its clock run out."""
        assert self.observe()["phase"] in PLAYER_DECISIONS, "no clock runs"
        seat = self._seat()
        return self._do({"do": "forfeit"}, lambda: self.match.forfeit(seat, "timeout"))

    def next(self) -> Script:
        return self._do({"do": "next"}, self.match.start_game)

    def done(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "rules": rules(self.options)}
        if self.position is not None:
            out["position"] = encode(self.position)
        out["steps"] = self.steps
        return out


def matches() -> list[dict[str, Any]]:
    out = []
    s = Script("match to 3: the Crawford game, then the cube again; the real points count",
               MatchOptions.match(3), 1)
    s.rolloff(3, 1).move().act("double").act("take").turn()
    s.act("resign", 1).act("accept")  # seat 1 wins 1 × 2: 0-2, the next game is Crawford
    s.next().rolloff(2, 2).rolloff(5, 6).move().turn()  # no cube: the rolls come by themselves
    s.roll().act("resign", 1).act("accept")  # seat 1 resigns: 1-2, the Crawford game is over
    s.next().rolloff(6, 1).move().act("double").act("take").turn()
    s.act("resign", 2).act("accept")  # a gammon at 2: 4 points, 1-6
    out.append(s.done())

    s = Script("match to 1: the cube is in play", MatchOptions.match(1), 2)
    s.rolloff(1, 4).move().act("double").act("drop")
    out.append(s.done())

    s = Script("match to 5: a forfeit is worth its game when that is more than the match",
               MatchOptions.match(5), 3)
    s.rolloff(4, 2).move().act("double").act("take").turn()
    s.act("double").act("take").turn()  # seat 0 redoubles to 4; seat 1 owns it
    s.forfeit()  # seat 1 times out at the worst result, a backgammon: 3 × 4 = 12
    out.append(s.done())

    s = Script("match to 5: a forfeit loses the match", MatchOptions.match(5), 4)
    s.rolloff(2, 5).move().turn()
    s.act("resign", 1).act("accept")  # seat 1 resigns: 1-0
    s.next().rolloff(6, 3).forfeit()  # seat 0 forfeits a game worth 3: seat 1 gets the 5
    out.append(s.done())

    s = Script("money: gammons count, the cube up to 64, and a forfeit ends the session",
               MatchOptions.money(), 5)
    s.rolloff(5, 3).move().act("double").act("take").turn()
    s.act("resign", 2).act("accept")  # seat 0 resigns a gammon at 2: 4 points to seat 1
    s.next().rolloff(3, 6).move()
    for _ in range(6):  # double and take up to 64, each doubler then rolling and playing
        s.act("double").act("take").turn()
    s.turn().roll()  # at 64 nobody may double: the rolls come by themselves
    s.forfeit()
    out.append(s.done())

    s = Script("money with the Jacoby rule: a gammon counts as a single until the cube is turned",
               MatchOptions.money(jacoby=True), 6)
    s.rolloff(6, 5).act("resign", 2).act("accept")
    s.next().rolloff(4, 1).move().act("double").act("take").turn()
    s.act("resign", 2).act("accept")
    out.append(s.done())

    s = Script("resignations: a rejected level, then only higher ones until play moves on",
               MatchOptions.match(7), 7)
    s.rolloff(5, 1).act("resign", 1).act("reject").act("resign", 1, refused=True)
    s.act("resign", 2).act("reject").move()
    s.roll().act("resign", 3).act("reject").act("resign", 2, refused=True).move()
    s.act("resign", 1).act("reject").turn()
    s.act("resign", 2).act("accept")
    out.append(s.done())

    for level, loser in ((1, {6: 14}), (2, {6: 15}), (3, {6: 14, 20: 1})):
        position = Position.from_points({1: 1, 2: 1}, loser)
        s = Script(f"single game from a position: borne off, worth {level}",
                   MatchOptions.single_game(), 8 + level, position)
        s.roll(2, 1).move(finish=True)
        out.append(s.done())

    s = Script("single game: no cube, a forfeit at the worst result still possible",
               MatchOptions.single_game(), 12, Position.from_points({5: 15}, {5: 15}))
    s.roll(6, 5).move().roll().forfeit()
    out.append(s.done())
    return out


def render() -> str:
    fixture = {
        "format": FORMAT,
        "description": "The Python engine's match rules, for web-client/src/engine/matchRules.ts "
        "and src/view/localGame.ts; written by web-client/tools/make_match_rules.py",
        "crawford": crawford_cases(),
        "double": double_cases(),
        "endings": ending_cases(),
        "levels": level_cases(),
        "matches": matches(),
    }
    return json.dumps(fixture, indent=None, separators=(",", ":")) + "\n"


def main() -> int:
    text = render()
    if "--check" in sys.argv:
        current = FIXTURE.read_text(encoding="utf-8") if FIXTURE.exists() else ""
        return 0 if current == text else 1
    FIXTURE.write_text(text, encoding="utf-8")
    print(f"wrote {FIXTURE.relative_to(ROOT)} ({len(text) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
