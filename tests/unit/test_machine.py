"""The pure match state machine: whole matches, the reveal barrier, rejections, clocks."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from engine.match import MatchOptions
from harness.machine_driver import Seat, play_out
from protocol import events as pe
from protocol.codec import encode
from protocol.fairdice import derive_dice
from protocol.registry import KIND_BY_CLASS
from server.machine import core, serial
from server.machine.commands import (
    Commit,
    Double,
    Join,
    Leave,
    MovePlay,
    Recommit,
    Resign,
    Reveal,
    Roll,
    Stop,
    Take,
)
from server.machine.state import Config, MatchState, Phase, owing

MID = "0123456789abcdef0123456789abcdef"
CLOCK = 30_000


def new_match(options: MatchOptions, now: int = 0) -> MatchState:
    state, _ = core.create(MID, Config(options, clock_ms=CLOCK, grace_ms=500), "ann", now)
    step = core.apply(state, Join(1, name="bob"), now)
    return step.state


def leaked(secret: bytes, events) -> bool:
    """True if ``secret`` appears anywhere in what these events would put on the wire."""
    return any(secret in encode(e) for e in events)


def kinds(events) -> list[str]:
    return [KIND_BY_CLASS[type(e.data)].name for e in events]


def first(events, kind):
    return next(e.data for e in events if KIND_BY_CLASS[type(e.data)].name == kind)


def step(state, command, now=1000):
    outcome = core.apply(state, command, now)
    assert isinstance(outcome, core.Accepted)
    return outcome.state, outcome.events


def started(options: MatchOptions) -> tuple[MatchState, list[Seat]]:
    """A match past the commitments: both seats committed to their game-1 chains."""
    import random

    state = new_match(options)
    seats = [Seat(0, random.Random(1)), Seat(1, random.Random(2))]
    for s in seats:
        state, _ = step(state, s.decide(state))
    assert state.phase is Phase.ROLLOFF
    return state, seats


@pytest.mark.parametrize(
    "options",
    [
        MatchOptions.single_game(),
        MatchOptions.match(1),
        MatchOptions.match(5),
        MatchOptions.money(jacoby=True, beavers=True),
    ],
    ids=["single", "match1", "match5", "money"],
)
@pytest.mark.parametrize("seed", range(3))
def test_whole_matches_play_out_with_gap_free_versions(options, seed):
    state = new_match(options)
    if options.mode.value == "money":
        # A money session runs until someone stops it: stop after the first game.
        state, log = play_out_until_between_games(state, seed)
        state, events = step(state, Stop(0))
        log += events
    else:
        state, log = play_out(state, seed)
    assert state.is_over
    versions = [e.v for e in log]
    assert versions == list(range(4, 4 + len(log)))  # created, seated 0, seated 1
    assert state.version == versions[-1]
    assert kinds(log)[-1] == "match_over"
    assert log[-1].next.phase == "over" and log[-1].next.deadline is None
    assert state.match.winner in (0, 1, None)
    if options.mode.value == "match":
        assert max(state.match.score) >= options.length
    # every roll's dice are the ones both reveals derive
    from protocol.fairdice import GameId

    for e in log:
        encode(e)  # every event is a valid wire frame
        if kinds([e]) == ["dice"]:
            d = e.data
            game = GameId(bytes.fromhex(MID), d.game)
            assert derive_dice(game, d.k, d.reveal0, d.reveal1) == (d.d1, d.d2)


def play_out_until_between_games(state, seed):
    import random

    rng = random.Random(seed)
    seats = [Seat(0, random.Random(rng.random())), Seat(1, random.Random(rng.random()))]
    log = []
    while not (state.phase is Phase.COMMIT and state.dice.game == 2):
        for s in seats:
            command = s.decide(state)
            if command is not None:
                state, events = step(state, command)
                log += events
                break
    return state, log


def test_state_survives_serialization_and_snapshots_hide_held_reveals_at_every_step():
    import random

    from protocol.messages import Snapshot
    from server.machine.view import public_view

    state = new_match(MatchOptions.match(3))
    seats = [Seat(0, random.Random(5)), Seat(1, random.Random(6))]
    n = 0
    while not state.is_over and n < 3000:
        for s in seats:
            command = s.decide(state)
            if command is not None:
                state, _ = step(state, command)
                assert serial.loads(MatchState, serial.dumps(state)) == state
                frame = encode(Snapshot(state.version, public_view(state)))
                for held in state.dice.pending:
                    assert held is None or held not in frame
                if None in state.dice.commitments:
                    assert all(c is None or c not in frame for c in state.dice.commitments)
                n += 1
                break
    assert state.is_over


def test_reveal_barrier_nothing_of_roll_k_before_both_reveals():
    state, seats = started(MatchOptions.match(3))
    # Roll-off: seat 0 reveals first; its reveal must not appear anywhere yet.
    cmd = seats[0].decide(state)
    state, events = step(state, cmd)
    assert kinds(events) == ["revealed"]
    assert not leaked(cmd.reveal, events)
    assert state.dice.pending[0] == cmd.reveal  # held by the server only
    cmd1 = seats[1].decide(state)
    state, events = step(state, cmd1)
    dice = first(events, "dice")
    assert dice.kind == "rolloff" and (dice.reveal0, dice.reveal1) == (cmd.reveal, cmd1.reveal)
    # Play until a turn roll: the roller's ROLL produces only 'rolling' without its reveal.
    while not (state.phase is Phase.PLAY and owing(state)[1] == "decide"):
        for s in seats:
            c = s.decide(state)
            if c is not None:
                state, _ = step(state, c)
                break
    roller = owing(state)[0][0]
    roll = seats[roller].decide(state)
    assert isinstance(roll, Roll)
    state, events = step(state, roll)
    assert kinds(events) == ["rolling"]
    assert not leaked(roll.reveal, events)
    assert state.phase is Phase.REVEAL and owing(state) == ((1 - roller,), "reveal")
    # The roller cannot complete its own roll.
    with pytest.raises(core.Rejected) as exc:
        core.apply(state, Reveal(roller, 99, game=1, k=roll.k, reveal=roll.reveal), 1000)
    assert exc.value.code == "not_your_turn"
    reveal = seats[1 - roller].decide(state)
    state, events = step(state, reveal)
    dice = first(events, "dice")
    assert dice.kind == "turn" and dice.roller == roller
    assert roll.reveal in (dice.reveal0, dice.reveal1)


def test_invalid_reveal_forfeits_with_evidence():
    state, _seats = started(MatchOptions.match(5))
    bad = bytes(32 * [7])
    state, events = step(state, Reveal(1, 50, game=1, k=1, reveal=bad))
    assert kinds(events)[-1] == "match_over"
    forfeit = first(events, "forfeit")
    assert (forfeit.seat, forfeit.reason, forfeit.evidence) == (1, "invalid_reveal", bad)
    assert state.is_over and state.match.winner == 0
    assert events[-1].data.reason == "forfeit"


def test_commitment_rules():
    state = new_match(MatchOptions.single_game())
    c = bytes(range(32))
    for bad, why in [(bytes(32), "all_zero"), (b"short", "wrong_length")]:
        with pytest.raises(core.Rejected) as exc:
            core.apply(state, Commit(0, 1, game=1, commitment=bad), 0)
        assert exc.value.code == "bad_commitment" and why in exc.value.message
    state, events = step(state, Commit(0, 1, game=1, commitment=c))
    assert kinds(events) == ["commit_received"]
    assert not leaked(c, events)  # not published before both are in
    with pytest.raises(core.Rejected) as exc:
        core.apply(state, Commit(0, 2, game=1, commitment=bytes(range(1, 33))), 0)
    assert "already_committed" in exc.value.message
    with pytest.raises(core.Rejected) as exc:
        core.apply(state, Commit(1, 1, game=1, commitment=c), 0)
    assert "same_as_opponent" in exc.value.message
    with pytest.raises(core.Rejected) as exc:
        core.apply(state, Commit(1, 1, game=2, commitment=bytes(range(1, 33))), 0)
    assert exc.value.code == "stale"
    state, events = step(state, Commit(1, 1, game=1, commitment=bytes(range(1, 33))))
    assert kinds(events) == ["committed", "game_started"]
    assert (events[0].data.commitment0, events[0].data.commitment1) == (c, bytes(range(1, 33)))


def test_out_of_turn_wrong_phase_spectator_and_after_the_end():
    state, seats = started(MatchOptions.match(3))
    with pytest.raises(core.Rejected) as exc:
        core.apply(state, Double(0, 50, game=1), 0)
    assert (exc.value.code, exc.value.message) == ("wrong_phase", "the match waits for rolloff")
    with pytest.raises(core.Rejected) as exc:
        core.apply(state, MovePlay(-1, 0, game=1, turn=0, moves=()), 0)
    assert exc.value.code == "not_a_player"
    while state.phase is Phase.ROLLOFF:  # ties repeat the roll-off
        for s in seats:
            state, _ = step(state, s.decide(state))
    mover = owing(state)[0][0]
    game = state.match.game
    with pytest.raises(core.Rejected) as exc:
        core.apply(state, MovePlay(1 - mover, 9, game=1, turn=game.turns + 1, moves=((24, 23),)), 0)
    assert exc.value.code == "not_your_turn"
    with pytest.raises(core.Rejected) as exc:
        core.apply(state, MovePlay(mover, 9, game=1, turn=game.turns + 1, moves=((24, 1),)), 0)
    assert exc.value.code == "illegal_play"
    with pytest.raises(core.Rejected) as exc:
        core.apply(state, Roll(mover, 9, game=1, k=state.dice.k, reveal=bytes(32)), 0)
    # The engine's phase is the decision as the protocol names it.
    assert (exc.value.code, exc.value.message) == ("wrong_phase", "the game waits for move")
    offered, _ = step(state, Resign(mover, 9, game=1, level=1))
    with pytest.raises(core.Rejected) as exc:
        core.apply(offered, Roll(1 - mover, 9, game=1, k=state.dice.k, reveal=bytes(32)), 0)
    assert (exc.value.code, exc.value.message) == ("wrong_phase", "the game waits for resign")
    with pytest.raises(core.Rejected) as exc:
        core.apply(state, MovePlay(mover, 9, game=1, turn=game.turns + 2, moves=()), 0)
    assert exc.value.code == "stale"
    with pytest.raises(core.Rejected) as exc:
        core.apply(state, Take(1 - mover, 9, game=1), 0)
    assert exc.value.code in ("not_your_turn", "no_double_pending", "wrong_phase")
    state, _ = step(state, Leave(mover, 9))
    with pytest.raises(core.Rejected) as exc:
        core.apply(state, Leave(1 - mover, 10), 0)
    assert exc.value.code == "match_over"


def test_resent_command_is_applied_once():
    state, seats = started(MatchOptions.match(3))
    cmd = seats[0].decide(state)
    state, _events = step(state, cmd)
    version = state.version
    again = core.apply(state, cmd, 2000)
    assert again == core.Duplicate(version)
    # ...even when it comes back over a faster or slower link
    assert core.apply(state, dataclasses.replace(cmd, lag_ms=7), 2000) == core.Duplicate(version)
    # but the same sequence number for another action is refused, not acknowledged
    other = dataclasses.replace(cmd, reveal=bytes(32))
    with pytest.raises(core.Rejected) as exc:
        core.apply(state, other, 2000)
    assert exc.value.code == "duplicate"
    older = dataclasses.replace(cmd, seq=cmd.seq - 1) if cmd.seq > 1 else None
    if older:
        with pytest.raises(core.Rejected) as exc:
            core.apply(state, older, 2000)
        assert exc.value.code == "stale"


def test_recommit_between_rolls_changes_the_chain():
    import random

    from protocol.fairdice import GameId, HashChain

    state, seats = started(MatchOptions.match(3))
    for s in seats:
        state, _ = step(state, s.decide(state))
    while owing(state)[1] != "decide":
        for s in seats:
            c = s.decide(state)
            if c is not None:
                state, _ = step(state, c)
                break
    roller = owing(state)[0][0]
    k = state.dice.k
    fresh = HashChain(random.Random(9).randbytes(32), GameId(bytes.fromhex(MID), 1), roller)
    state, events = step(state, Recommit(roller, 100, game=1, commitment=fresh.link(k - 1)))
    assert kinds(events) == ["recommitted"] and events[0].data.k == k
    seats[roller].chains[1] = fresh  # from now on the fresh chain's links are revealed
    seats[roller].seq = 100
    old_link = Seat(roller, random.Random(1)).chain(MID, 1).link(k)
    with pytest.raises(core.Rejected):
        core.apply(state, Roll(roller, 101, game=1, k=k + 1, reveal=old_link), 1000)
    state, events = step(state, seats[roller].decide(state))
    assert kinds(events) == ["rolling"]


# ---------------------------------------------------------------- clocks


def test_deadline_is_absolute_and_kept_while_the_same_decision_is_owed():
    state = new_match(MatchOptions.single_game(), now=0)
    assert state.deadline == CLOCK
    state, events = step(state, Commit(0, 1, game=1, commitment=bytes(range(32))), now=29_000)
    assert state.deadline == CLOCK  # seat 1 still owes the same commitment: no extension
    assert events[-1].next == pe.Clock("commit", (1,), CLOCK)


def test_move_just_before_deadline_accepted_just_after_rejected():
    state, seats = started(MatchOptions.match(3))
    deadline = state.deadline
    cmd = seats[0].decide(state)
    assert isinstance(core.apply(state, cmd, deadline), core.Accepted)
    with pytest.raises(core.Rejected) as exc:
        core.apply(state, cmd, deadline + 1)  # no measured lag: no allowance
    assert exc.value.code == "too_late"
    # A connection with a measured round trip of 300 ms gets 300 ms...
    slow = dataclasses.replace(cmd, lag_ms=300)
    assert isinstance(core.apply(state, slow, deadline + 300), core.Accepted)
    with pytest.raises(core.Rejected):
        core.apply(state, slow, deadline + 301)
    # ...and never more than the match's allowance (grace 500 ms here), whatever it claims.
    greedy = dataclasses.replace(cmd, lag_ms=60_000)
    assert isinstance(core.apply(state, greedy, deadline + 500), core.Accepted)
    with pytest.raises(core.Rejected):
        core.apply(state, greedy, deadline + 501)
    # The clock settles only after the whole allowance: never before a late-but-allowed move.
    assert core.expire(state, deadline + 500) is None
    assert core.expire(state, deadline + 501) is not None


@pytest.mark.parametrize(
    ("setup", "loser", "reason"),
    [
        ("commit_one", 1, "abandoned"),
        ("rolloff_one", 1, "no_reveal"),
    ],
)
def test_timeouts_forfeit_the_silent_seat(setup, loser, reason):
    import random

    state = new_match(MatchOptions.match(5), now=0)
    seats = [Seat(0, random.Random(1)), Seat(1, random.Random(2))]
    state, _ = step(state, seats[0].decide(state), now=10)  # seat 0 commits, seat 1 never does
    if setup == "rolloff_one":
        state, _ = step(state, seats[1].decide(state), now=20)
        state, _ = step(state, seats[0].decide(state), now=30)  # seat 0 reveals, seat 1 never
    outcome = core.expire(state, state.deadline + 10_000)
    assert kinds(outcome.events)[-1] == "match_over"
    forfeit = first(outcome.events, "forfeit")
    assert (forfeit.seat, forfeit.reason) == (loser, reason)
    assert outcome.state.match.winner == 1 - loser
    assert core.expire(outcome.state, outcome.state.created + 10**9) is None  # exactly once


def test_both_silent_before_the_game_abandons_without_winner():
    state = new_match(MatchOptions.match(5), now=0)
    outcome = core.expire(state, CLOCK + 600)
    over = first(outcome.events, "match_over")
    assert over.winner is None and over.reason == "abandoned" and outcome.state.abandoned


def test_timeout_on_move_and_on_reveal():
    state, seats = started(MatchOptions.single_game())
    for s in seats:
        state, _ = step(state, s.decide(state))
    while owing(state)[1] not in ("move",):
        for s in seats:
            c = s.decide(state)
            if c is not None:
                state, _ = step(state, c)
                break
    mover = owing(state)[0][0]
    outcome = core.expire(state, state.deadline + 501)
    forfeit = first(outcome.events, "forfeit")
    assert (forfeit.seat, forfeit.reason) == (mover, "timeout")
    over = first(outcome.events, "game_over")
    # still in contact: the worst case, a backgammon
    assert over.winner == 1 - mover and over.result == "backgammon"


def raise_codes(source: str) -> tuple[set[str], list[int]]:
    """The ``ErrorCode`` members named by the ``Rejected(...)`` calls of ``source`` (a call may
    name ``ErrorCode.X`` or convert with ``ErrorCode(...)``), and the lines of the calls whose
    code is anything else: a string, an f-string, a variable."""
    named: set[str] = set()
    bare: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name != "Rejected":
            continue
        args = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "code")]
        code = args[0] if args else None
        if isinstance(code, ast.Attribute) and getattr(code.value, "id", None) == "ErrorCode":
            named.add(code.attr)
        elif not (isinstance(code, ast.Call) and getattr(code.func, "id", None) == "ErrorCode"):
            bare.append(node.lineno)
    return named, bare


def test_raise_codes_finds_every_bare_code():
    sample = (
        "raise Rejected(ErrorCode.STALE, 'old')\n"
        "raise core.Rejected(ErrorCode(exc.code.value), str(exc))\n"
        "raise Rejected('stale', 'old')\n"
        "raise core.Rejected(f'{x}', 'old')\n"
        "raise Rejected(code, 'old')\n"
        "raise Rejected(message='old', code='stale')\n"
        "raise RevealRejected('stale', 'not ours')\n"
    )
    assert raise_codes(sample) == ({"STALE"}, [3, 4, 5, 6])


def test_every_rejection_names_a_wire_error_code():
    """The machine's codes are the wire's ``ErrorCode`` (the gateway sends them as
    ``reject.code``): every raise of ``Rejected`` in production code names a member, never a
    string, and the engine's codes, which the machine passes on, are wire codes too."""
    from engine.errors import ErrorCode as EngineCode
    from protocol.errors import ErrorCode as WireCode

    wire = {c.value for c in WireCode}
    assert {c.value for c in EngineCode} <= wire
    root = Path(core.__file__).resolve().parents[2]
    named: set[str] = set()
    for package in ("engine", "protocol", "brain", "bots", "analysis", "server"):
        for path in sorted((root / package).rglob("*.py")):
            found, bare = raise_codes(path.read_text())
            assert not bare, f"{path.relative_to(root)}: a bare code at line(s) {bare}"
            named |= found
    assert named and named <= set(WireCode.__members__)
    assert raise_codes(Path(core.__file__).read_text())[0]  # the machine raises its own


def test_connect_by_sets_the_first_commitments_deadline_only():
    """A tournament match: both seats connect (commit) by ``connect_by``, whatever the clock;
    the games after the first, and every other decision, run on the plain clock."""
    import random

    config = Config(MatchOptions.match(3), clock_ms=CLOCK, grace_ms=500, connect_by=95_000)
    state, _ = core.create(MID, config, "ann", 0)
    state = core.apply(state, Join(1, name="bob"), 1_000).state
    assert state.deadline == 95_000 and core.expire(state, 95_500) is None
    seats = [Seat(0, random.Random(1)), Seat(1, random.Random(2))]
    state, _ = step(state, seats[0].decide(state), now=50_000)
    assert state.deadline == 95_000  # seat 1 still owes its first commitment
    with pytest.raises(core.Rejected) as late:
        core.apply(state, seats[1].decide(state), 95_501)
    assert late.value.code == "too_late"
    state, _ = step(state, seats[1].decide(state), now=60_000)  # the roll-off: the plain clock
    assert state.phase is Phase.ROLLOFF and state.deadline == 60_000 + CLOCK
    # A silent seat forfeits at the connect deadline (after the lag allowance), not before.
    silent, _ = core.create(MID, config, "ann", 0)
    silent = core.apply(silent, Join(1, name="bob"), 1_000).state
    silent, _ = step(silent, seats[0].decide(silent), now=2_000)
    assert core.expire(silent, 95_500) is None
    over = core.expire(silent, 95_501)
    assert first(over.events, "forfeit").seat == 1 and over.state.match.winner == 0
    # An arranged match takes no ordinary join: the machine leaves that to the lobby, which
    # refuses it (server.match.service); its summary says so and it is never listed open.
    from server.match.indexes import entry
    from server.match.stored import summary

    arranged, _ = core.create(MID, dataclasses.replace(config, arranged="tournament"), "ann", 0)
    assert summary(arranged)["arranged"] == "tournament" and entry(arranged)[0] is None
