"""The importer reads ``.mat`` as other programs write it and GNU Backgammon's SGF, and refuses
everything else with a typed error naming the line (and column).

Two independent writers (:mod:`harness.import_samples`: an eXtreme Gammon / Backgammon Galaxy
style ``.mat`` and a gnubg-style SGF) write seeded random matches; each import must give back the
same games. Then the notation's corners one by one, and a table of malformed files with the
code, line and column each must be refused with.
"""

from __future__ import annotations

import pytest

from engine.importer import FileErrorCode, MatchFileError, read_match
from engine.importer.mat import parse_mat
from engine.importer.plays import NotLegal, resolve
from engine.match import Mode
from engine.position import Position
from engine.results import EndReason
from harness.import_samples import essentials, gnubg_sgf, other_mat, sample_record


@pytest.mark.parametrize("seed", range(14))
def test_other_programs_mat_files(seed):
    record = sample_record(seed)
    imported = read_match(other_mat(record).encode())
    assert imported.format == "mat"
    assert essentials(imported.record)[:3] == essentials(record)[:3]
    assert imported.tags["Site"] == "eXtreme Gammon" and imported.tags["Match ID"] == "246338669"


@pytest.mark.parametrize("seed", range(14))
def test_gnubg_sgf_files(seed):
    record = sample_record(seed)
    imported = read_match(gnubg_sgf(record).encode())
    assert imported.format == "sgf"
    # SGF cannot say whether beavers were allowed when nobody beavered.
    assert essentials(imported.record)[1:3] == essentials(record)[1:3]
    assert imported.record.options.mode is record.options.mode


# ------------------------------------------------------------------ the notation's corners

HEAD = ' ; [Site "test"]\n\n 5 point match\n\n Game 1\n Ann : 0                        Bob : 0\n'


def game_of(rows: str):
    imported = read_match(HEAD + rows)
    return imported.record.games[0]


def test_combined_paths_counts_bar_off_and_hits():
    game = game_of(
        "  1) 64: 24/14                  62: 8/2 6/4\n"  # one checker, both dice
        "  2)\n"  # an empty row
        "  2) 33: 8/5(2) 6/3(2)          31: 8/5 6/5\n"  # the same path twice
        "  3) 21: 5/3 6/5\n"
    )
    moves = [e.moves for e in game.events if type(e).__name__ == "Moved"]
    assert moves[0] in (((24, 20), (20, 14)), ((24, 18), (18, 14)))
    assert sorted(moves[2]) == [(6, 3), (6, 3), (8, 5), (8, 5)]
    assert len(moves) == 5


def test_a_hit_on_the_way_is_taken_from_the_marks():
    """6-5 from the 24: through 18 or 19. With blots on both, the written star decides."""
    blots = Position.from_points({24: 1, 6: 14}, {7: 1, 6: 1, 2: 13})  # blots on our 18, 19
    via_18 = resolve(blots, (6, 5), ((24, 18), (18, 13)), frozenset({18}))
    assert via_18.moves == ((24, 18), (18, 13))
    via_19 = resolve(blots, (6, 5), ((24, 13),), frozenset({19}))
    assert via_19.moves == ((24, 19), (19, 13))
    # Unmarked, although both ways hit: one of the two legal plays, never an error.
    assert resolve(blots, (6, 5), ((24, 13),), frozenset()) in (via_18, via_19)
    with pytest.raises(NotLegal):
        resolve(blots, (6, 5), ((24, 12),), frozenset())


def test_bar_and_off_words_and_numbers():
    """``bar``/``25`` and ``off``/``0`` are the same squares; a star marks the hit."""
    for play in ("bar/22* 6/off", "25/22* 6/0", "Bar/22* 6/Off"):
        parsed = parse_mat(HEAD + f"  1) 31: {play}\n")
        roll = parsed.games[0].steps[0]
        assert roll.segments == ((25, 22), (6, 0)) and roll.hits == frozenset({22})
    entering = Position.from_points({25: 1, 6: 14}, {3: 1, 1: 14})  # their 3 is our 22
    play = resolve(entering, (3, 1), ((25, 22), (6, 5)), frozenset({22}))
    assert play.position.opponent[25] == 1  # the blot was hit


def test_resign_after_the_roll_in_xg_writing():
    game = game_of(
        "  1) 31: 8/5 6/5                 43: ???\n"
        "                                  \n"
        "      Wins 1 point\n"
    )
    assert game.result.winner == 0 and game.result.reason is EndReason.RESIGN
    assert type(game.events[-4]).__name__ == "Rolled"


def test_gamesgrid_ratings_and_a_match_started_part_way():
    text = (" 5 point match\n\n Game 3\n Ann, 1612 : 2      Bob, 1580 : 3\n"
            "  1) 31: 8/5 6/5                 43: 24/21 13/9\n")
    record = read_match(text).record
    assert record.names == ("Ann", "Bob")
    assert record.games[0].number == 3 and record.games[0].score == (2, 3)


def test_single_game_and_money_session_headers():
    single = read_match(' ; [CubeLimit "1"]\n 0 point match\n Game 1\n A : 0    B : 0\n'
                        '  1) 31: 8/5 6/5\n').record
    assert single.options.mode is Mode.SINGLE_GAME
    money = read_match(' ; [Jacoby "On"]\n ; [Beaver "On"]\n 0 point match\n Game 1\n'
                       ' A : 0    B : 0\n  1) 31: 8/5 6/5\n').record
    assert money.options.mode is Mode.MONEY and money.options.jacoby and money.options.beavers


def test_an_sgf_with_variations_and_escapes():
    text = ("(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[A\\]nn]PB[Bob]RU[Crawford]"
            "C[a comment\\\nover two lines]"
            ";W[31hefe]C[nice];B[43adlp](;W[52mhmk])(;W[61mgxw]))")
    imported = read_match(text)
    assert imported.record.names == ("A]nn", "Bob")
    assert len([e for e in imported.record.games[0].events if type(e).__name__ == "Moved"]) == 3
    assert "1 variation(s) beside the main line ignored" in imported.notes


# ------------------------------------------------------------------ refusals


def mat(rows: str) -> str:
    return HEAD + rows


CASES = [
    # (name, text, code, line, column)
    ("roll 71", mat("  1) 71: 8/1\n"), FileErrorCode.SYNTAX, 7, 6),
    ("a path of nothing", mat("  1) 31: 8/5 6/x\n"), FileErrorCode.SYNTAX, 7, 14),
    ("illegal play", mat("  1) 31: 8/4 6/5\n"), FileErrorCode.ILLEGAL, 7, 6),
    ("opening double", mat("  1) 33: 8/5(2) 6/3(2)\n"), FileErrorCode.ILLEGAL, 7, 6),
    ("roll out of turn", mat("  1) 31: 8/5 6/5\n  2) 42: 8/4 6/4\n"), FileErrorCode.ILLEGAL, 8, 6),
    ("take of nothing", mat("  1) 31: 8/5 6/5                 Takes\n"), FileErrorCode.ILLEGAL,
     7, 34),
    ("raccoon", mat("  1) 31: 8/5 6/5                 Raccoons => 8\n"),
     FileErrorCode.UNSUPPORTED, 7, 34),
    ("three actions", mat("  1) 31: 8/5 6/5   Takes  Drops\n"), FileErrorCode.SYNTAX, 7, 27),
    ("text before an action", mat("  1) hello 31: 8/5 6/5\n"), FileErrorCode.SYNTAX, 7, 6),
    ("wrong score line", HEAD.replace("Bob : 0", "Bob : 2") + "  1) 31: 8/5 6/5\n",
     FileErrorCode.INCONSISTENT, 5, None),
    ("wrong points", mat("  1) 31: 8/5 6/5\n      Wins 4 points\n"), FileErrorCode.INCONSISTENT,
     8, 7),
    ("no score line", " 5 point match\n Game 1\n  1) 31: 8/5 6/5\n", FileErrorCode.SYNTAX, 3,
     None),
    ("game 3 after game 1", mat("  1) 31: 8/5 6/5\n      Wins 1 point\n\n Game 3\n"
                                " Ann : 1   Bob : 0\n"), FileErrorCode.INCONSISTENT, 10, None),
    ("no length line", " Game 1\n A : 0  B : 0\n", FileErrorCode.SYNTAX, 1, None),
    ("30 points", " 30 point match\n", FileErrorCode.UNSUPPORTED, 1, None),
    ("nackgammon", ' ; [Variation "NackGammon"]\n 5 point match\n', FileErrorCode.UNSUPPORTED,
     None, None),
    ("binary", "\x00\x01 5 point match", FileErrorCode.NOT_TEXT, None, None),
    ("empty", "   \n\n", FileErrorCode.UNKNOWN_FORMAT, None, None),
    ("sgf: go", "(;FF[4]GM[1]SZ[19];B[pd])", FileErrorCode.UNKNOWN_FORMAT, 1, 11),
    ("sgf: unclosed value", "(;FF[4]GM[6]\nPW[Ann", FileErrorCode.SYNTAX, 2, 3),
    ("sgf: unclosed tree", "(;FF[4]GM[6];W[31hefe]\n", FileErrorCode.SYNTAX, 1, 1),
    ("sgf: bad letters", "(;FF[4]GM[6]\n;W[31h!fe])", FileErrorCode.SYNTAX, 2, 4),
    ("sgf: setup", "(;FF[4]GM[6]\n;AB[a][b])", FileErrorCode.UNSUPPORTED, 2, 5),
    ("sgf: illegal", "(;FF[4]GM[6]MI[length:3]\n;W[31hdfe])", FileErrorCode.ILLEGAL, 2, 4),
    ("sgf: result of an open game", "(;FF[4]GM[6]MI[length:3]RE[W+1]\n;W[31hefe])",
     FileErrorCode.INCONSISTENT, 1, 28),
    ("sgf: result garbage", "(;FF[4]GM[6]RE[white wins]\n;W[31hefe])", FileErrorCode.SYNTAX,
     1, 16),
]


@pytest.mark.parametrize(("name", "text", "code", "line", "column"), CASES,
                         ids=[c[0] for c in CASES])
def test_refusals_name_the_place(name, text, code, line, column):
    with pytest.raises(MatchFileError) as caught:
        read_match(text)
    err = caught.value
    assert (err.code, err.line, err.column) == (code, line, column), str(err)
    assert str(err).startswith(f"line {line}") if line else True


def test_too_large():
    with pytest.raises(MatchFileError) as caught:
        read_match(b" 5 point match\n" + b" " * 100, max_bytes=50)
    assert caught.value.code is FileErrorCode.TOO_LARGE
