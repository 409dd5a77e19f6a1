"""The .mat export: hand-written games against expected text, and complete random matches read
back with the column rules of gnubg's importer and replayed move by move."""

import datetime
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.events import (
    Beavered,
    Doubled,
    Dropped,
    EndOfMatch,
    Forfeited,
    GameOver,
    GameScored,
    GameStarted,
    MatchOver,
    Moved,
    Passed,
    ResignAccepted,
    ResignOffered,
    ResignRejected,
    Rolled,
    RolledOff,
    Taken,
)
from engine.match import Match, MatchOptions, Mode
from engine.matfile import export
from engine.movegen import legal_plays
from engine.position import Position
from engine.record import MatchRecord, RecordError
from engine.reference import apply_move
from engine.results import EndReason, ForfeitReason, Result, ResultKind
from harness.random_play import Policy, play_match

S, G, B = ResultKind.SINGLE, ResultKind.GAMMON, ResultKind.BACKGAMMON

# A 5-point match: a hit, a dance, a double, a rejected resignation offered again after play
# moved on; a redouble and a drop; a Crawford game forfeited (a match forfeit) before its
# opening roll is played.
MATCH_SCRIPT = (
    GameStarted(1, (0, 0), False, True),
    RolledOff((3, 1), 0),
    Moved(0, (3, 1), ((8, 5), (6, 5))),
    Rolled(1, (6, 4)),
    Moved(1, (6, 4), ((24, 18), (18, 14))),
    Rolled(0, (2, 5)),
    Moved(0, (2, 5), ((13, 11), (11, 6))),
    Rolled(1, (6, 5)),
    Passed(1, (6, 5)),
    Doubled(0, 2),
    Taken(1, 2),
    Rolled(0, (4, 1)),
    Moved(0, (4, 1), ((13, 9), (9, 8))),
    Rolled(1, (3, 1)),
    Moved(1, (3, 1), ((25, 22), (22, 21))),
    ResignOffered(0, S),
    ResignRejected(1, S),
    Rolled(0, (2, 1)),
    Moved(0, (2, 1), ((6, 4), (5, 4))),
    Rolled(1, (6, 6)),
    Passed(1, (6, 6)),
    ResignOffered(0, S),
    ResignAccepted(1, S),
    GameOver(Result(1, S, 2, EndReason.RESIGN)),
    GameScored(1, 1, 2, (0, 2)),
    GameStarted(2, (0, 2), False, True),
    RolledOff((2, 2), None),
    RolledOff((1, 6), 1),
    Moved(1, (1, 6), ((13, 7), (8, 7))),
    Rolled(0, (5, 5)),
    Moved(0, (5, 5), ((13, 8), (13, 8), (8, 3), (8, 3))),
    Doubled(1, 2),
    Taken(0, 2),
    Rolled(1, (2, 1)),
    Moved(1, (2, 1), ((13, 11), (6, 5))),
    Doubled(0, 4),
    Dropped(1, 2),
    GameOver(Result(0, S, 2, EndReason.DROP)),
    GameScored(2, 0, 2, (2, 2)),
    GameStarted(3, (2, 2), False, True),
    RolledOff((5, 3), 0),
    Forfeited(0, ForfeitReason.TIMEOUT),
    GameOver(Result(1, B, 1, EndReason.FORFEIT, ForfeitReason.TIMEOUT)),
    GameScored(3, 1, 3, (2, 5)),
    MatchOver(1, (2, 5), EndOfMatch.FORFEIT, 0),
)

MATCH_TEXT = """\
; [Site "fairgammon"]
; [Player 1 "Ann"]
; [Player 2 "Bob"]
; [EventDate "2025.03.14"]
; [Variation "Backgammon"]
; [Crawford "On"]
; [CubeLimit "64"]
; played on a test board
; Game 3: Ann forfeited (timeout)
; Final score 2-5, winner: Bob

 5 point match

 Game 1
 Ann : 0                        Bob : 0
  1) 31: 8/5 6/5                 64: 24/18 18/14
  2) 52: 13/11* 11/6             65:
  3)  Doubles => 2                Takes
  4) 41: 13/9 9/8                31: 25/22 22/21
  5) 21: 6/4* 5/4                66:
                                  Wins 2 points

 Game 2
 Ann : 0                        Bob : 2
  1)                             61: 13/7 8/7
  2) 55: 13/8 13/8 8/3 8/3        Doubles => 2
  3)  Takes                      21: 13/11 6/5
  4)  Doubles => 4                Drops
      Wins 2 points

 Game 3
 Ann : 2                        Bob : 2
  1) 53:                          Wins 3 points and the match

"""

MONEY_SCRIPT = (
    GameStarted(1, (0, 0), False, True),
    RolledOff((4, 6), 1),
    Moved(1, (4, 6), ((24, 18), (13, 9))),
    Doubled(0, 2),
    Beavered(1, 4),
    Taken(0, 4),
    Rolled(0, (6, 6)),
    Moved(0, (6, 6), ((24, 18), (24, 18), (13, 7), (13, 7))),
    Rolled(1, (1, 2)),
    ResignOffered(1, S),
    ResignAccepted(0, S),
    GameOver(Result(0, S, 4, EndReason.RESIGN)),
    GameScored(1, 0, 4, (4, 0)),
    MatchOver(0, (4, 0), EndOfMatch.STOPPED, 1),
)

MONEY_TEXT = """\
; [Site "fairgammon"]
; [Player 1 "Ann"]
; [Player 2 "Bob"]
; [Variation "Backgammon"]
; [Jacoby "On"]
; [Beaver "On"]
; [CubeLimit "64"]
; Bob stopped the session after game 1
; Final score 4-0, winner: Ann

 0 point match

 Game 1
 Ann : 0                        Bob : 0
  1)                             64: 24/18 13/9
  2)  Doubles => 2                Beavers => 4
  3) 66: 24/18 24/18 13/7* 13/7  21:
      Wins 4 points

"""


def replay(options: MatchOptions, script: tuple) -> tuple[Match, list]:
    """Drive a real Match through the actions of a hand-written event script (each play chosen
    by the position it reaches, so no particular move order is assumed) and return what the
    match emitted."""
    match = Match.new(options)
    emitted: list = []
    for event in script:
        if event.kind in ("game_over", "game_scored", "passed"):
            continue  # consequences, not actions
        if isinstance(event, MatchOver):
            if event.reason is EndOfMatch.STOPPED:
                match, new = match.stop(event.by)
                emitted.extend(new)
            continue
        if isinstance(event, Moved):
            position = match.game.position(event.seat)
            for move in event.moves:
                position = apply_move(position, move)
            plays = [p for p in match.game.legal_plays() if p.position == position]
            assert len(plays) == 1, f"not a legal play: {event}"
            match, new = match.move(event.seat, plays[0].moves)
            new = tuple(e if not isinstance(e, Moved) else event for e in new)
        else:
            match, new = _act(match, event)
        emitted.extend(new)
    return match, emitted


def _act(match: Match, event) -> tuple[Match, tuple]:
    """The match action that produced ``event``."""
    actions = {
        "game_started": lambda e: match.start_game(),
        "rolled_off": lambda e: match.roll_off(*e.dice),
        "rolled": lambda e: match.roll(e.seat, *e.dice),
        "doubled": lambda e: match.double(e.seat),
        "beavered": lambda e: match.beaver(e.seat),
        "taken": lambda e: match.take(e.seat),
        "dropped": lambda e: match.drop(e.seat),
        "resign_offered": lambda e: match.resign(e.seat, e.level),
        "resign_accepted": lambda e: match.accept_resignation(e.seat),
        "resign_rejected": lambda e: match.reject_resignation(e.seat),
        "forfeited": lambda e: match.forfeit(e.seat, e.reason),
    }
    return actions[event.kind](event)


def test_the_hand_written_scripts_are_what_the_engine_does():
    match, emitted = replay(MatchOptions.match(5), MATCH_SCRIPT)
    assert tuple(emitted) == MATCH_SCRIPT
    assert match.score == (2, 5) and match.winner == 1
    match, emitted = replay(MatchOptions.money(jacoby=True, beavers=True), MONEY_SCRIPT)
    assert tuple(emitted) == MONEY_SCRIPT


def test_match_export_matches_the_expected_text():
    record = MatchRecord.from_events(MatchOptions.match(5), ("Ann", "Bob"), MATCH_SCRIPT)
    text = export(record, date=datetime.date(2025, 3, 14), comments=["played on a test board"])
    assert text == MATCH_TEXT


def test_money_export_matches_the_expected_text():
    record = MatchRecord.from_events(
        MatchOptions.money(jacoby=True, beavers=True), ("Ann", "Bob"), MONEY_SCRIPT
    )
    assert export(record) == MONEY_TEXT


def test_columns_are_where_gnubg_puts_them():
    # gnubg's export: "%3d) " then the left cell padded to 27 and a space, so a right move cell
    # starts in column 33 and a right cube or result cell (written with a leading space) in 34;
    # a result alone on its line starts in column 6 (left) or 34 (right).
    rights = 0
    for line in MATCH_TEXT.splitlines() + MONEY_TEXT.splitlines():
        if re.match(r"^ *\d+\) ", line):
            assert line[3] == ")"
            if len(line) > 33:
                rights += 1
                assert line[32] == " "
                assert re.match(r"[1-6][1-6]:", line[33:]) or re.match(r" [A-Z]", line[33:])
        elif line.lstrip().startswith("Wins"):
            assert line.index("W") in (6, 34)
    assert rights == 13


def test_single_game_and_names():
    options = MatchOptions.single_game()
    _, events = Match.new(options).forfeit(1, "abandoned")
    record = MatchRecord.from_events(options, ("Al: the, best\n", ""), events)
    text = export(record, site='my "site"')
    assert '; [Site "my \'site\'"]' in text
    assert '; [Player 1 "Al the best"]' in text and '; [Player 2 "Player 2"]' in text
    assert '; [CubeLimit "1"]' in text and " 0 point match" in text
    assert " Al the best : 0                Player 2 : 0" in text
    assert "; Game 1: Player 2 forfeited (abandoned)" in text
    assert "      Wins 3 points\n" in text  # no "and the match" outside match play


def test_match_forfeited_between_games_is_explained():
    options = MatchOptions.match(3)
    _, events = Match.new(options).forfeit(0, "no_reveal")
    text = export(MatchRecord.from_events(options, ("Ann", "Bob"), events))
    assert "; Ann forfeited before the first game\n; Final score 0-3, winner: Bob\n" in text
    assert "Game" not in text.split(" 3 point match")[1]


def test_record_rejects_events_out_of_order():
    record = MatchRecord.new(MatchOptions.match(3), ("A", "B"))
    with pytest.raises(RecordError):
        record.add(Rolled(0, (1, 2)))
    started = record.add(GameStarted(1, (0, 0), False, True))
    with pytest.raises(RecordError):
        started.add(GameStarted(2, (0, 0), False, True))
    with pytest.raises(RecordError):
        started.add(GameScored(1, 0, 1, (1, 0)))
    over = started.add(GameOver(Result(0, S, 1, EndReason.RESIGN)))
    with pytest.raises(RecordError):
        over.add(Rolled(0, (1, 2)))
    ended = over.add(MatchOver(0, (1, 0), EndOfMatch.FORFEIT, 1))
    with pytest.raises(RecordError):
        ended.add(GameStarted(2, (1, 0), False, True))


# ------------------------------------------------------- reading back like gnubg


def split_columns(line: str) -> tuple[str, str | None]:
    """gnubg's ImportGame: a second ':' starts the right column two characters before it;
    otherwise, on a line longer than 15 characters, a double space after position 15 does;
    the left column starts after the ')' of the row number."""
    right: str | None = None
    first = line.find(":")
    second = line.find(":", first + 1) if first >= 0 else -1
    if first >= 0 and second > 3:
        left, right = line[: second - 3], line[second - 2 :]
    elif len(line) > 15 and (gap := line.find("  ", 15)) >= 0:
        left, right = line[:gap], line[gap + 1 :]
    else:
        left = line
    paren = left.find(")")
    if paren >= 0:
        left = left[paren + 1 :]
    return left.strip(), None if right is None else right.strip()


def parse_steps(text: str) -> list[tuple[int, int, bool]]:
    steps = []
    for token in text.split():
        m = re.fullmatch(r"(\d+|bar)/(\d+|off)(\*?)", token)
        assert m, f"bad move token {token!r}"
        frm = 25 if m[1] == "bar" else int(m[1])
        to = 0 if m[2] == "off" else int(m[2])
        steps.append((frm, to, bool(m[3])))
    return steps


def read_back(text: str, record: MatchRecord) -> None:
    """Read ``text`` as gnubg's importer splits it and replay every game against the record."""
    lines = text.splitlines()
    header = next(ln for ln in lines if ln.strip() and not ln.startswith(";"))
    m = re.fullmatch(r" (\d+) point match", header)
    assert m
    length = record.options.length if record.options.mode is Mode.MATCH else 0
    assert int(m[1]) == length
    games = text.split("\n Game ")[1:]
    assert len(games) == len(record.games)
    for chunk, game in zip(games, record.games, strict=True):
        rows = chunk.splitlines()
        assert int(rows[0]) == game.number
        m = re.fullmatch(r" (.+?) : (\d+) +(.+?) : (\d+)", rows[1])
        assert m and (int(m[2]), int(m[4])) == game.score
        boards = [Position.start().mover, Position.start().mover]
        cube, wins = 1, None
        for row in rows[2:]:
            if not row.strip():
                continue
            for seat, cell in enumerate(split_columns(row)):
                if not cell:
                    continue
                if m := re.fullmatch(r"([1-6])([1-6]):(.*)", cell):
                    dice = (int(m[1]), int(m[2]))
                    position = Position.unchecked(boards[seat], boards[1 - seat])
                    steps = parse_steps(m[3])
                    for frm, to, starred in steps:
                        assert starred == (to != 0 and position.opponent[25 - to] == 1)
                        position = apply_move(position, (frm, to))
                    plays = legal_plays(Position(boards[seat], boards[1 - seat]), *dice)
                    if steps:
                        assert position in {p.position for p in plays}
                    elif plays:
                        assert game.result.reason in (EndReason.RESIGN, EndReason.FORFEIT)
                    boards[seat], boards[1 - seat] = position.mover, position.opponent
                elif m := re.fullmatch(r"(Doubles|Beavers) => (\d+)", cell):
                    assert int(m[2]) == cube * (4 if m[1] == "Beavers" else 2)
                    if m[1] == "Beavers":
                        cube *= 4  # taken and redoubled at once: no "Takes" follows
                elif cell == "Takes":
                    cube *= 2
                elif cell == "Drops":
                    pass
                elif m := re.fullmatch(r"Wins (\d+) points?( and the match)?", cell):
                    wins = (seat, int(m[1]), bool(m[2]))
                else:
                    raise AssertionError(f"unrecognised cell {cell!r} in {row!r}")
        result = game.result
        if result is None:
            assert wins is None
            continue
        # What the game was worth (a match forfeit's extra points are in the header comments).
        assert wins is not None and wins[:2] == (result.winner, result.points)
        if result.reason is EndReason.BEAR_OFF:
            assert boards[result.winner][0] == 15
        if result.reason is not EndReason.DROP:
            assert cube == result.cube


POLICY = Policy(double=0.1, beaver=0.3, resign=0.02)


@settings(max_examples=10)
@given(
    st.integers(0, 2**32),
    st.sampled_from(
        [
            MatchOptions.single_game(),
            MatchOptions.match(3),
            MatchOptions.money(jacoby=True, beavers=True),
        ]
    ),
    st.sampled_from([0.0, 0.01]),
)
def test_random_matches_export_and_read_back(seed, options, forfeit):
    match, events = play_match(options, random.Random(seed), POLICY, money_games=3,
                               forfeit=forfeit)
    record = MatchRecord.from_events(options, ("White Player", "Black Player"), tuple(events))
    assert record.end == events[-1] and len(record.games) == match.game_number
    text = export(record)
    read_back(text, record)
    last = record.games[-1]
    if options.mode is Mode.MATCH:
        assert text.rstrip().endswith("and the match")
        assert last.final_score == match.score
