"""Match files written the way other programs write them, for the importer's tests and fuzzing.

Independent writers of the two formats the importer reads, from an engine
:class:`~engine.record.MatchRecord`:

* :func:`other_mat` — a ``.mat`` as eXtreme Gammon and Backgammon Galaxy lay it out: a byte
  order mark, CRLF line ends, their header tags, a wider right column, plays in standard
  notation (``24/13``, ``8/5(2)``, ``bar/22*``, ``6/off``; :func:`engine.notation.play_text`),
  dice in the order rolled, ``Cannot Move`` for a dance, ``????`` for a roll answered by a
  resignation, ``and the match`` on the deciding game;
* :func:`gnubg_sgf` — GNU Backgammon's SGF: one game tree per game, ``MI``/``PW``/``PB``/
  ``RU``/``RE`` on the root, moves as dice and letter pairs, ``PL[..]DI[..]`` for a roll that
  was not played, a beaver as a double by the doubled player.

Neither can say what those programs cannot: forfeits, and the level of a resignation the
Jacoby rule counted as a single (:func:`sample_record` makes matches without them).

:func:`essentials` is what a match file carries of a record: what an import must give back.
"""

from __future__ import annotations

import random
from dataclasses import replace

from engine.events import (
    Beavered,
    Doubled,
    Dropped,
    Forfeited,
    GameOver,
    Moved,
    Passed,
    ResignOffered,
    ResignRejected,
    Rolled,
    RolledOff,
    Taken,
)
from engine.match import MatchOptions, Mode
from engine.notation import play_text
from engine.position import Position
from engine.record import GameRecord, MatchRecord
from engine.reference import apply_move
from harness.random_play import Policy, play_match

SAMPLE_OPTIONS = (
    MatchOptions.match(1), MatchOptions.match(3), MatchOptions.match(5), MatchOptions.match(9),
    MatchOptions.money(), MatchOptions.money(beavers=True), MatchOptions.single_game(),
)


def sample_record(seed: int, names: tuple[str, str] = ("Ann", "Bob Lee")) -> MatchRecord:
    """A seeded random match (cube, beavers, resignations, passes; no forfeits, no Jacoby)."""
    rng = random.Random(seed)
    options = SAMPLE_OPTIONS[seed % len(SAMPLE_OPTIONS)]
    policy = Policy(double=0.12, beaver=0.4, take=0.7, resign=0.02, accept=0.6)
    _, events = play_match(options, rng, policy, money_games=3)
    return MatchRecord.from_events(options, names, tuple(events))


def essentials(record: MatchRecord) -> tuple:
    """What a match file carries of ``record``: per game its number, score, Crawford flag and
    cube, every roll (as the pair of dice), play (the engine's moves), pass, cube action,
    accepted resignation, forfeit and result, the points scored and the score after it; and how
    the match ended. Left out: roll-off ties, the order in which the two dice came, and
    resignation offers that were not accepted."""
    games = []
    for game in record.games:
        kept: list = []
        for event in game.events:
            if isinstance(event, RolledOff) and event.first is None:
                continue  # a tie: nobody moved
            if isinstance(event, ResignRejected | Forfeited) and kept and isinstance(
                    kept[-1], ResignOffered):
                kept.pop()  # an offer not accepted
                if isinstance(event, ResignRejected):
                    continue
            if isinstance(event, Rolled | Passed | Moved):
                event = replace(event, dice=tuple(sorted(event.dice, reverse=True)))
            kept.append(event)
        games.append((game.number, game.score, game.crawford, game.cube, tuple(kept),
                      game.result, game.points, game.final_score))
    return record.options, record.names, tuple(games), record.end


# ------------------------------------------------------------------ .mat, XG / Galaxy style


def other_mat(record: MatchRecord) -> str:
    options = record.options
    n0, n1 = record.names
    lines = [
        '\ufeff; [Site "eXtreme Gammon"]',
        '; [Match ID "246338669"]',
        f'; [Player 1 "{n0}"]',
        f'; [Player 2 "{n1}"]',
        '; [Player 1 Elo "1600.00/0"]',
        '; [Player 2 Elo "1600.00/0"]',
        '; [EventDate "2026.03.01"]',
        '; [EventTime "21.53"]',
        '; [Variation "Backgammon"]',
        '; [Unrated "Off"]',
        '; [Crawford "On"]',
        f'; [Jacoby "{"On" if options.jacoby else "Off"}"]',
        f'; [Beaver "{"On" if options.beavers else "Off"}"]',
        f'; [CubeLimit "{1 if options.mode is Mode.SINGLE_GAME else 1024}"]',
        "",
        f"{options.length if options.mode is Mode.MATCH else 0} point match",
        "",
    ]
    for game in record.games:
        lines.append(f" Game {game.number}")
        lines.append(f" {n0} : {game.score[0]}".ljust(40) + f"{n1} : {game.score[1]}")
        lines.extend(_rows(record, game))
        lines.append("")
    return "\r\n".join(lines) + "\r\n"


def _rows(record: MatchRecord, game: GameRecord) -> list[str]:
    rows: list[list] = []

    def cell(seat: int, text: str, numbered: bool = True) -> None:
        if seat == 1 and rows and rows[-1][0] is not None and rows[-1][1] is not None \
                and rows[-1][2] is None:
            rows[-1][2] = text
            return
        number = sum(1 for r in rows if r[0] is not None) + 1 if numbered else None
        rows.append([number, text, None] if seat == 0 else [number, None, text])

    boards = [Position.start().mover, Position.start().mover]
    pending: Rolled | None = None
    previous = None
    for event in game.events:
        if isinstance(event, Forfeited):
            raise ValueError("this style cannot write a forfeit")
        if isinstance(event, RolledOff) and event.first is not None:
            first = event.first
            pending = Rolled(first, (event.dice[first], event.dice[1 - first]))
        elif isinstance(event, Rolled):
            pending = event
        elif isinstance(event, Moved):
            here = Position.unchecked(boards[event.seat], boards[1 - event.seat])
            text = play_text(here, event.moves)
            for move in event.moves:
                here = apply_move(here, move)
            boards[event.seat], boards[1 - event.seat] = here.mover, here.opponent
            cell(event.seat, f"{event.dice[0]}{event.dice[1]}: {text}")
            pending = None
        elif isinstance(event, Passed):
            cell(event.seat, f"{event.dice[0]}{event.dice[1]}: Cannot Move")
            pending = None
        elif isinstance(event, Doubled):
            cell(event.seat, f" Doubles => {event.value}")
        elif isinstance(event, Beavered):
            cell(event.seat, f" Beavers => {event.value}")
        elif isinstance(event, Taken) and not isinstance(previous, Beavered):
            cell(event.seat, " Takes")
        elif isinstance(event, Dropped):
            cell(event.seat, " Drops")
        elif isinstance(event, GameOver):
            if pending is not None:
                cell(pending.seat, f"{pending.dice[0]}{pending.dice[1]}: ????")
            points = event.result.points
            decided = record.options.mode is Mode.MATCH and (
                game.score[event.result.winner] + points >= record.options.length)
            cell(event.result.winner, f" Wins {points} point{'s' if points > 1 else ''}"
                 + (" and the match" if decided else ""), numbered=False)
        previous = event
    out = []
    for number, left, right in rows:
        prefix = "      " if number is None else f"{number:4d}) "
        out.append((prefix + (left or "").ljust(36) + (right or "")).rstrip())
    return out


# ------------------------------------------------------------------ .sgf, gnubg style


def gnubg_sgf(record: MatchRecord) -> str:
    options = record.options
    length = options.length if options.mode is Mode.MATCH else 0
    trees = []
    for game in record.games:
        root = (f"(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:{length}]"
                f"[game:{game.number - 1}][ws:{game.score[0]}][bs:{game.score[1]}]"
                f"PW[{_escaped(record.names[0])}]PB[{_escaped(record.names[1])}]")
        if game.number == 1:
            root += "DT[2026-03-01]C[written by the test harness\\] with an escaped bracket]"
        if options.mode is Mode.MATCH:
            root += "RU[Crawford" + (":CrawfordGame" if game.crawford else "") + "]"
        elif options.mode is Mode.SINGLE_GAME:
            root += "RU[NoCube]"
        result = game.result
        if result is not None:
            resigned = "R" if result.reason.value == "resign" else ""
            root += f"RE[{'WB'[result.winner]}+{result.points}{resigned}]"
        trees.append(root + "".join(_nodes(game)) + ")\n")
    return "".join(trees)


def _nodes(game: GameRecord) -> list[str]:
    out = []
    pending: Rolled | None = None
    for event in game.events:
        if isinstance(event, Forfeited):
            raise ValueError("SGF cannot write a forfeit")
        if isinstance(event, RolledOff) and event.first is not None:
            first = event.first
            pending = Rolled(first, (event.dice[first], event.dice[1 - first]))
        elif isinstance(event, Rolled):
            pending = event
        elif isinstance(event, Moved):
            letters = "".join(_letter(event.seat, frm) + _letter(event.seat, to)
                              for frm, to in event.moves)
            out.append(f"\n;{'WB'[event.seat]}[{event.dice[0]}{event.dice[1]}{letters}]")
            pending = None
        elif isinstance(event, Passed):
            out.append(f"\n;{'WB'[event.seat]}[{event.dice[0]}{event.dice[1]}]")
            pending = None
        elif isinstance(event, Doubled | Beavered):
            out.append(f"\n;{'WB'[event.seat]}[double]")
        elif isinstance(event, Taken):
            out.append(f"\n;{'WB'[event.seat]}[take]")
        elif isinstance(event, Dropped):
            out.append(f"\n;{'WB'[event.seat]}[drop]")
        elif isinstance(event, GameOver) and pending is not None:
            out.append(f"\n;PL[{'WB'[pending.seat]}]DI[{pending.dice[0]}{pending.dice[1]}]")
    return out


def _letter(seat: int, point: int) -> str:
    if point == 25:
        return "y"
    if point == 0:
        return "z"
    return chr(ord("a") + point - 1) if seat == 0 else chr(ord("a") + 24 - point)


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


# ------------------------------------------------------------------ fuzzing

_NOISE = "0123456789/*:()[];\\ \n\r\tabcdefghijklmnopqrstuvwxyzBWDPG+-=>?é\u2028\x00\x7f"


def mutant(text: str, rng: random.Random) -> str:
    """``text`` with one to three random edits: a span deleted, noise inserted, a character or
    digit changed, a line deleted, duplicated or swapped, the end cut off."""
    for _ in range(rng.randint(1, 3)):
        if not text:
            return rng.choice(_NOISE)
        kind = rng.randrange(8)
        at = rng.randrange(len(text))
        if kind == 0:
            text = text[:at] + text[at + rng.randint(1, 20):]
        elif kind == 1:
            noise = "".join(rng.choice(_NOISE) for _ in range(rng.randint(1, 8)))
            text = text[:at] + noise + text[at:]
        elif kind == 2:
            text = text[:at] + rng.choice(_NOISE) + text[at + 1:]
        elif kind == 3:
            digits = [i for i, c in enumerate(text) if c.isdigit()]
            if digits:
                i = rng.choice(digits)
                text = text[:i] + str(rng.randrange(10)) + text[i + 1:]
        else:
            lines = text.split("\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            if kind == 4:
                del lines[i]
            elif kind == 5:
                lines.insert(i, lines[j])
            elif kind == 6:
                lines[i], lines[j] = lines[j], lines[i]
            else:
                lines = lines[: i + 1]
            text = "\n".join(lines)
    return text
