"""The history of a match, out of its event log: the one place the facts of finished games
come from — fair-dice transcripts, the engine's events of each game (for the ``.mat`` export,
the game records and every analysis) and the match record.

The event log is the single source: each stored event is its wire frame, and the first event of
every transition carries the record of the command that caused it, with its server time.
:func:`read_log` is the only I/O here (one read of the log; :func:`parse_log` reads what it
read); everything else is pure, a log in and facts out:

- :func:`transcript` — the fair-dice transcript of a finished game (:class:`Uncommitted` when
  the game has none: forfeited before both seats committed to their dice; KeyError when it is
  not finished), with ``jacoby`` set in a money session played under the Jacoby rule (the
  verifier counts an uncubed gammon or backgammon as a single there); :func:`transcripts` —
  those of every finished game, and the games left out;
- :func:`engine_events` — the engine's events of the whole match, from the wire's;
  :func:`match_record` (the engine's :class:`MatchRecord`), :func:`mat_text` (``.mat``),
  :func:`find_game`, :func:`finished_games`.

Facts the wire events do not carry are recovered exactly: a play's dice are the last ``dice``
event's; a drop (and a game's end) counts the last take's cube value or half the last beaver's
(a beaver names the value its redouble would make); an answer to a resignation is at the
offer's level; the kind of a win that the Jacoby rule counted as a single (the wire says what
counted) is the accepted resignation's level, or what the final position says (the last
``moved`` event's Position ID, the winner's); who stopped a money session is the seat of the
stop command's record (:attr:`Logged.stopped_by`).

:mod:`server.match.replay` reaches the same facts the other way, replaying the command records
through the machine and so through the engine; ``tests/unit/test_history_replay.py`` holds the
two to each other, game by game, over a corpus of matches played with random disruptions.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgpack

from engine import events as ev
from engine.match import MatchOptions, cube_in_play
from engine.matfile import export as export_mat
from engine.position_id import decode as decode_position
from engine.record import GameRecord, MatchRecord
from engine.results import EndReason, ForfeitReason, Result, ResultKind, result_kind
from engine.rules import Opening
from engine.variants import hypergammon, rules, variant
from protocol import events as pe
from protocol.codec import decode_from_server
from protocol.fairdice import (
    Action,
    Commitment,
    Evidence,
    GameId,
    Recommitment,
    RollKind,
    RollRecord,
    SeatInfo,
    Transcript,
)
from protocol.fairdice import Result as DiceResult
from protocol.fairdice import ResultReason as DiceReason
from protocol.messages import Event
from server.machine.commands import RECORD_KINDS, Stop, recorded_command
from server.match.store import Store


@dataclass(frozen=True, slots=True)
class Logged:
    """One stored event with its server time (from the record of the command that caused its
    transition) and, when that command stopped a money session, the seat that sent it: the one
    fact of the command records that the wire events do not say."""

    v: int
    t: int
    data: pe.EventData
    stopped_by: int | None = None


async def read_log(store: Store, match_id: str) -> list[Logged]:
    return parse_log(await store.log_entries(match_id))


def parse_log(entries: list[tuple[int, dict[bytes, bytes]]]) -> list[Logged]:
    """The log as :meth:`Store.log_entries` returns it, each event with its server time."""
    out: list[Logged] = []
    t, stopped_by = 0, None
    for v, fields in entries:
        if b"c" in fields:
            kind, body, t = msgpack.unpackb(fields[b"c"], raw=False)
            # Only a stop's record is read further (reading every record would double the
            # cost of reading a log).
            stopped_by = (
                recorded_command(kind, body).seat if RECORD_KINDS.get(kind) is Stop else None
            )
        event = decode_from_server(fields[b"e"])
        assert isinstance(event, Event)
        out.append(Logged(v, t, event.data, stopped_by))
    return out


# ---------------------------------------------------------------- transcripts

_FORFEIT_REASON = {
    "timeout": DiceReason.TIMEOUT,
    "no_reveal": DiceReason.NO_REVEAL,
    "invalid_reveal": DiceReason.INVALID_REVEAL,
    "abandoned": DiceReason.ABANDON,
}


def plays(log: list[Logged]) -> tuple[int, int]:
    """The checker plays each seat made in the whole match (a forced pass is none)."""
    out = [0, 0]
    for e in log:
        if isinstance(e.data, pe.Moved) and e.data.moves:
            out[e.data.seat] += 1
    return out[0], out[1]


def finished_games(log: list[Logged]) -> list[int]:
    return [e.data.game for e in log if isinstance(e.data, pe.GameOver)]


class Uncommitted(LookupError):
    """A finished game with no fair-dice transcript: it was forfeited before both seats had
    committed to their dice (a seat that never came), so no roll was made and there is
    nothing to verify."""

    reason = "uncommitted"

    def __init__(self, game: int) -> None:
        super().__init__(game)
        self.game = game

    def __str__(self) -> str:
        return (f"game {self.game} was forfeited before both seats committed to their dice: "
                "it has no roll to verify")


@dataclass(frozen=True, slots=True)
class Transcripts:
    """The transcripts of a match's finished games, and the finished games that have none
    (each an :class:`Uncommitted`, in game order)."""

    games: tuple[Transcript, ...]
    left_out: tuple[Uncommitted, ...]


def transcripts(match_id: str, log: list[Logged]) -> Transcripts:
    """The fair-dice transcript of every finished game of the match, in order; a game forfeited
    before both seats committed is left out, with the reason."""
    games: list[Transcript] = []
    left_out: list[Uncommitted] = []
    for n in finished_games(log):
        try:
            games.append(transcript(match_id, log, n))
        except Uncommitted as missing:
            left_out.append(missing)
    return Transcripts(tuple(games), tuple(left_out))


def transcript(match_id: str, log: list[Logged], game_no: int) -> Transcript:
    """The fair-dice transcript of finished game ``game_no``: :class:`Uncommitted` when it
    ended before both seats committed, KeyError when there is no such finished game."""
    names: list[str | None] = [None, None]
    commitments: list[Commitment | None] = [None, None]
    committed_at: dict[int, tuple[int, int]] = {}
    recommitments: list[Recommitment] = []
    rolls: list[RollRecord] = []
    actions: list[Action] = []
    result: DiceResult | None = None
    forfeit: pe.Forfeit | None = None
    cube = 1
    last_roll_k = 0
    game_variant = "backgammon"
    opener: int | None = None
    previous_winner: int | None = None  # of the game before this one
    jacoby = False  # a money session played under the Jacoby rule
    for e in log:
        d = e.data
        if isinstance(d, pe.MatchCreated):
            jacoby = d.mode == "money" and d.jacoby
        if isinstance(d, pe.Seated):
            names[d.seat] = d.name
        if isinstance(d, pe.GameOver) and d.game < game_no:
            previous_winner = d.winner
        if getattr(d, "game", None) != game_no:
            continue
        if isinstance(d, pe.GameStarted):
            # A Greek game after a won one is opened by its winner, without a roll-off
            # (engine.match.Match.next_opener).
            game_variant = d.variant
            if game_no > 1 and variant(d.variant).opening is Opening.REROLL:
                opener = previous_winner
        if isinstance(d, pe.CommitReceived):
            committed_at[d.seat] = (e.v, e.t)
        elif isinstance(d, pe.Committed):
            for seat, value in enumerate((d.commitment0, d.commitment1)):
                v, t = committed_at.get(seat, (e.v, e.t))
                commitments[seat] = Commitment(seat, value, v, t)
        elif isinstance(d, pe.Recommitted):
            recommitments.append(Recommitment(d.seat, d.k, d.commitment, e.v, e.t))
        elif isinstance(d, pe.Rolling):
            actions.append(Action(e.v, e.t, d.seat, "roll", {"k": d.k}))
        elif isinstance(d, pe.Revealed):
            # A reveal held before its roll: in the roll-off, or deposited ahead.
            actions.append(Action(e.v, e.t, d.seat, "reveal", {"k": d.k}))
        elif isinstance(d, pe.Dice):
            kind = RollKind.ROLLOFF if d.kind == "rolloff" else RollKind.TURN
            rolls.append(
                RollRecord(d.k, kind, d.roller, (d.reveal0, d.reveal1), d.d1, d.d2, e.v, e.t)
            )
            last_roll_k = d.k
        elif isinstance(d, pe.Moved):
            moves = [list(m) for m in d.moves]
            actions.append(Action(e.v, e.t, d.seat, "move", {"k": last_roll_k, "moves": moves}))
        elif isinstance(d, pe.Passed):
            actions.append(Action(e.v, e.t, d.seat, "move", {"k": last_roll_k, "moves": []}))
        elif isinstance(d, pe.Doubled):
            actions.append(Action(e.v, e.t, d.seat, "double", {"cube": d.value}))
        elif isinstance(d, pe.Taken | pe.Beavered):
            cube = in_play(d)
            kind_name = "take" if isinstance(d, pe.Taken) else "beaver"
            actions.append(Action(e.v, e.t, d.seat, kind_name, {"cube": d.value}))
        elif isinstance(d, pe.Dropped):
            actions.append(Action(e.v, e.t, d.seat, "drop", {}))
        elif isinstance(d, pe.ResignOffered):
            actions.append(Action(e.v, e.t, d.seat, "resign", {"value": d.level}))
        elif isinstance(d, pe.ResignAccepted):
            actions.append(Action(e.v, e.t, d.seat, "accept", {}))
        elif isinstance(d, pe.ResignRejected):
            actions.append(Action(e.v, e.t, d.seat, "reject", {}))
        elif isinstance(d, pe.Forfeit):
            forfeit = d
        elif isinstance(d, pe.GameOver):
            reason = DiceReason(d.reason) if d.reason != "forfeit" else None
            evidence = None
            if reason is None:
                assert forfeit is not None
                reason = _FORFEIT_REASON[forfeit.reason]
                if forfeit.evidence is not None:
                    evidence = Evidence(last_roll_k + 1, forfeit.seat, forfeit.evidence)
            multiplier = 0 if d.result is None else ResultKind.of_word(d.result).value
            result = DiceResult(
                d.winner, reason, multiplier, cube, multiplier * cube, e.v, e.t, evidence
            )
    c0, c1 = commitments
    if result is None:
        raise KeyError(f"game {game_no} is not finished")
    if c0 is None or c1 is None:
        raise Uncommitted(game_no)
    return Transcript(
        game=GameId(bytes.fromhex(match_id), game_no),
        seats=(SeatInfo(0, names[0]), SeatInfo(1, names[1])),
        commitments=(c0, c1),
        recommitments=tuple(recommitments),
        rolls=tuple(rolls),
        actions=tuple(actions),
        result=result,
        variant=game_variant,
        opener=opener,
        jacoby=jacoby,
    )


# ---------------------------------------------------------------- .mat


def engine_events(log: list[Logged], options: MatchOptions) -> tuple[ev.Event, ...]:
    """The engine's view of the match (what :class:`MatchRecord` reads), from the wire events."""
    out: list[ev.Event] = []
    dice: tuple[int, int] = (0, 0)
    cube = 1
    pending_level = ResultKind.SINGLE
    forfeit: pe.Forfeit | None = None
    after: str | None = None  # the position ID after the last play
    in_game = False
    game_variant = "backgammon"
    previous_winner: int | None = None
    for e in log:
        d = e.data
        if isinstance(d, pe.GameStarted):
            cube, after = 1, None
            in_game = True
            game_variant = d.variant
            rules_of_game = variant(d.variant)
            with_cube = cube_in_play(options.mode, d.crawford) and rules_of_game.cube
            opener = None
            if d.game > 1 and rules_of_game.opening is Opening.REROLL:
                opener = previous_winner
            out.append(
                ev.GameStarted(d.game, d.score, d.crawford, with_cube, d.variant, opener)
            )
            # A single game forfeited before it started (its creator never came, a seat
            # silent in the roll-off): the wire names the forfeit first, the engine starts
            # the game and then forfeits it.
            if forfeit is not None and forfeit.game == d.game:
                out.append(ev.Forfeited(forfeit.seat, ForfeitReason(forfeit.reason)))
            else:
                forfeit = None
        elif isinstance(d, pe.Dice):
            dice = (d.d1, d.d2)
            if d.kind == "rolloff":
                first = None if d.d1 == d.d2 else (0 if d.d1 > d.d2 else 1)
                out.append(ev.RolledOff(dice, first))
            else:
                assert d.roller is not None
                out.append(ev.Rolled(d.roller, dice))
        elif isinstance(d, pe.Moved):
            after = d.position_id
            out.append(ev.Moved(d.seat, dice, d.moves))
        elif isinstance(d, pe.Passed):
            out.append(ev.Passed(d.seat, dice))
        elif isinstance(d, pe.Doubled):
            out.append(ev.Doubled(d.seat, d.value))
        elif isinstance(d, pe.Taken):
            cube = in_play(d)
            out.append(ev.Taken(d.seat, d.value))
        elif isinstance(d, pe.Beavered):
            cube = in_play(d)
            out.append(ev.Beavered(d.seat, d.value))
        elif isinstance(d, pe.Dropped):
            out.append(ev.Dropped(d.seat, cube))
        elif isinstance(d, pe.ResignOffered):
            pending_level = ResultKind(d.level)
            out.append(ev.ResignOffered(d.seat, pending_level))
        elif isinstance(d, pe.ResignAccepted):
            out.append(ev.ResignAccepted(d.seat, pending_level))
        elif isinstance(d, pe.ResignRejected):
            out.append(ev.ResignRejected(d.seat, pending_level))
        elif isinstance(d, pe.Forfeit):
            forfeit = d
            if in_game:  # between games a forfeit loses the match, not a game
                out.append(ev.Forfeited(d.seat, ForfeitReason(d.reason)))
        elif isinstance(d, pe.GameOver):
            previous_winner = d.winner
            reason = EndReason(d.reason)
            in_game = False
            if d.winner is None or d.result is None:  # a drawn plakoto game
                out.append(ev.GameOver(Result(None, None, cube, reason)))
                out.append(ev.GameScored(d.game, None, 0, d.score))
                continue
            counted = ResultKind.of_word(d.result)
            why = ForfeitReason(forfeit.reason) if reason is EndReason.FORFEIT and forfeit else None
            # The wire says what the game counted; under the Jacoby rule (money, backgammon
            # family) a gammon counts as a single: what happened is the resignation's level or
            # the final position.
            kind = counted
            if reason is EndReason.RESIGN:
                kind = pending_level
            elif reason is EndReason.BEAR_OFF and after is not None and options.jacoby:
                decode = hypergammon.decode if game_variant == "hypergammon" else decode_position
                final = decode(after)  # the winner's last play: the winner moved
                kind = result_kind(final.opponent, final.mover)
            result = Result(d.winner, kind, cube, reason, why, jacoby=kind is not counted)
            out.append(ev.GameOver(result))
            previous = out_score(out)
            points = d.score[d.winner] - previous[d.winner]
            out.append(ev.GameScored(d.game, d.winner, points, d.score))
        elif isinstance(d, pe.MatchOver) and d.reason in ("completed", "forfeit", "stopped"):
            # Who forfeited is the forfeit event's seat; who stopped a session, the seat of the
            # stop command (its record in the log).
            by = None
            if d.reason == "forfeit" and forfeit is not None:
                by = forfeit.seat
            elif d.reason == "stopped":
                by = e.stopped_by
            out.append(ev.MatchOver(d.winner, d.score, ev.EndOfMatch(d.reason), by))
    return tuple(out)


def in_play(d: pe.Taken | pe.Beavered) -> int:
    """The cube value a drop (or the game's end) counts once ``d`` is told: a take's value;
    after a beaver, half the value it names (the beaver took the double; its redouble to the
    value named still awaits an answer, and a drop of it wins the doubled value)."""
    return d.value if isinstance(d, pe.Taken) else d.value // 2


def out_score(events: list[ev.Event]) -> tuple[int, int]:
    for event in reversed(events):
        if isinstance(event, ev.GameScored):
            return event.score
    return (0, 0)


def options_of(log: list[Logged]) -> MatchOptions:
    created = log[0].data
    assert isinstance(created, pe.MatchCreated)
    played = rules(created.variant)
    if created.mode == "match":
        return MatchOptions.match(created.length or 1, played)
    if created.mode == "money":
        return MatchOptions.money(jacoby=created.jacoby, beavers=created.beavers, variant=played)
    return MatchOptions.single_game(played)


def match_record(log: list[Logged]) -> MatchRecord:
    """The engine's record of the match in ``log`` (games so far)."""
    names = ["", ""]
    for e in log:
        if isinstance(e.data, pe.Seated):
            names[e.data.seat] = e.data.name or f"Player {e.data.seat + 1}"
    options = options_of(log)
    return MatchRecord.from_events(options, (names[0], names[1]), engine_events(log, options))


def mat_text(log: list[Logged]) -> str:
    return export_mat(match_record(log))


def find_game(record: MatchRecord, game_no: int) -> GameRecord:
    """Game ``game_no`` of ``record`` (KeyError when it has not started)."""
    for game in record.games:
        if game.number == game_no:
            return game
    raise KeyError(game_no)
