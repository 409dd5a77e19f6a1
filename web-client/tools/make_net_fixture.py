"""Write the wire fixture of the web client's network tests, from the Python implementation.

``web-client/test/fixtures/net-frames.json`` holds:

- ``client``: one frame of every client message type, encoded by ``protocol.codec`` (the
  TypeScript encoder must produce the same bytes);
- ``server``: one frame of every non-event server message type with its decoded fields;
- ``matches``: whole matches played by honest automatic seats on the pure match machine
  (``server.machine``): every event frame as the server sends it, the Python client
  :class:`protocol.client.Tracker`'s picture after each frame, and public snapshots taken part
  way (``server.machine.view``) with the tracker's picture of them, so that the TypeScript
  tracker is checked against the Python one on real frames, from the start and after a resume.

Deterministic (fixed match ids, seeds and times). Run from the repository root::

    .venv/bin/python web-client/tools/make_net_fixture.py          # write
    .venv/bin/python web-client/tools/make_net_fixture.py --check  # exit 1 when stale
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import msgpack

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.match import MatchOptions  # noqa: E402
from engine.position import Position  # noqa: E402
from engine.position_id import encode as position_id  # noqa: E402
from engine.variants import rules  # noqa: E402
from harness.machine_driver import Seat  # noqa: E402
from protocol import messages as m  # noqa: E402
from protocol.client.tracker import Tracker  # noqa: E402
from protocol.codec import decode_from_server, encode  # noqa: E402
from protocol.errors import ErrorCode  # noqa: E402
from protocol.events import PLAYER_DECISIONS  # noqa: E402
from protocol.limits import PROTOCOL_VERSION  # noqa: E402
from server.machine import core  # noqa: E402
from server.machine.commands import CrashCredit, Join, Stop  # noqa: E402
from server.machine.state import (  # noqa: E402
    Config,
    MatchState,
    Phase,
    owing,
    reserve_owed,
)
from server.machine.view import public_view  # noqa: E402
from server.match.history import Logged, transcripts  # noqa: E402

FIXTURE = ROOT / "web-client" / "test" / "fixtures" / "net-frames.json"
T0 = 1_767_225_600_000
MATCH = "5f0c9e2a7b3d4e6f8a1b2c3d4e5f6a7b"


def h32(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def client_frames() -> list[dict[str, Any]]:
    """Each client message type once (bin fields as hex in ``p``)."""
    link = h32("link")
    samples: list[tuple[str, m.ClientMessage]] = [
        ("hello seat", m.Hello(PROTOCOL_VERSION, MATCH, "q3YxV0n8bWf2Kd9Z", 16, "Ann")),
        ("hello spectator", m.Hello(PROTOCOL_VERSION, MATCH, None, 0, None)),
        ("commit", m.Commit(1, 1, h32("commitment"))),
        ("recommit", m.Recommit(2, 1, h32("recommitment"))),
        ("roll", m.Roll(3, 1, 4, link)),
        ("reveal", m.Reveal(4, 2, 1, link)),
        ("double", m.Double(5, 1)),
        ("take", m.Take(6, 1)),
        ("drop", m.Drop(7, 1)),
        ("beaver", m.Beaver(8, 1)),
        ("move", m.Move(9, 1, 2, ((24, 21), (13, 9)))),
        ("move pass", m.Move(10, 1, 3, ())),
        ("move bar off", m.Move(300, 2, 40, ((25, 22), (6, 0), (6, 0), (5, 0)))),
        ("resign", m.Resign(11, 1, 2)),
        ("resign_reply", m.ResignReply(12, 1, True)),
        ("leave", m.Leave(13)),
        ("stop", m.Stop(2_000_000_000)),
        ("ping", m.Ping(T0 + 123)),
        ("echo", m.Echo(98_765_432)),
        ("resync", m.Resync(41)),
    ]
    out = []
    for name, msg in samples:
        frame = encode(msg)
        # The frame itself, read back as plain msgpack: what the TypeScript side builds.
        plain = msgpack.unpackb(frame, raw=False)
        out.append({"name": name, "frame": _jsonable(plain), "hex": frame.hex()})
    return out


def server_frames() -> list[dict[str, Any]]:
    samples: list[tuple[str, m.ServerMessage]] = [
        ("welcome seat", m.Welcome("seat1", MATCH, 17, T0, 3)),
        ("welcome spectator", m.Welcome("spectator", MATCH, 0, T0, None)),
        ("ack", m.Ack(4, 18)),
        ("reject", m.Reject(5, ErrorCode.ILLEGAL_PLAY, "move 2 (13, 9): blocked — ça va")),
        ("reject no seq", m.Reject(None, ErrorCode.BAD_FRAME, "not msgpack")),
        ("presence", m.Presence(1, "reconnecting", T0 + 30_000)),
        ("presence online", m.Presence(0, "online", None)),
        ("pong", m.Pong(T0 + 1, T0 + 250)),
        ("probe", m.Probe(98_765_432)),
        ("error", m.Error(ErrorCode.REPLACED, "a new connection took over")),
    ]
    return [
        {"name": n, "hex": encode(msg).hex(), "frame": _jsonable(msgpack.unpackb(encode(msg)))}
        for n, msg in samples
    ]


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"bin": value.hex()}
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def picture(t: Tracker) -> dict[str, Any]:
    """What the TypeScript tracker must agree on after each frame."""
    boards = Position.unchecked(t.boards[0], t.boards[1])
    return {
        "v": t.version,
        "game": t.game,
        "k": t.k,
        "turn": t.turn,
        "on_roll": t.on_roll,
        "dice": list(t.dice) if t.dice else None,
        "position_id": position_id(boards),
        "cube": t.cube,
        "cube_owner": t.cube_owner,
        "score": list(t.score),
        "crawford": t.crawford,
        "names": list(t.names),
        "clock": [t.clock.phase, list(t.clock.seats), t.clock.deadline, list(t.clock.reserves)],
        "commitments": [c.hex() if c else None for c in t.commitments],
        "commit_game": t.commit_game,
        "last_game": None
        if t.last_game is None
        else [t.last_game.game, t.last_game.winner, t.last_game.points, t.last_game.reason],
        "over": None if t.over is None else [t.over.winner, t.over.reason, list(t.over.score)],
        "variant": t.variant,
        "pinned": list(t.pinned),
        "boards": [list(t.boards[0]), list(t.boards[1])],
    }


def play(
    name: str,
    options: MatchOptions,
    seed: int,
    *,
    double_rate: float,
    snapshots_at: tuple[int, ...],
    timeout_after: int | None = None,
    stop_after_games: int | None = None,
    crashes: tuple[int, ...] = (),
    with_transcripts: bool = False,
) -> dict[str, Any]:
    """One match between two honest machine seats; ``timeout_after`` stops the seats after
    that many commands and lets the clock settle the match (a forfeit on time); a money session
    is stopped by seat 0 after ``stop_after_games`` games. After each number of commands in
    ``crashes`` (at the next player's decision) the server process of the seat that owes it dies
    and the seat is back 1.2 s later on another: a ``clock_credit``."""
    match_id = hashlib.md5(name.encode()).hexdigest()  # 32 hex characters, fixed per name
    rng = random.Random(seed)
    seats = [Seat(0, random.Random(rng.random())), Seat(1, random.Random(rng.random()))]
    for s in seats:
        s.double_rate = double_rate
    now = T0
    config = Config(options, clock_ms=30_000, reserve_ms=90_000)
    state, events = core.create(match_id, config, "Ann", now)
    log = list(events)
    times = [now] * len(log)  # the server time of each event (for the games' transcripts)
    states: list[MatchState] = [state]
    step = core.apply(state, Join(1, name="Bob"), now + 1000)
    assert isinstance(step, core.Accepted)
    state = step.state
    log += step.events
    times += [now] * (len(log) - len(times))
    states.append(state)
    commands = 0
    pending = sorted(crashes)
    while not state.is_over:
        seats_owing, decision = owing(state)
        if pending and commands >= pending[0] and decision in PLAYER_DECISIONS:
            pending.pop(0)
            (seat_owing,) = seats_owing
            since, now = now + 300, now + 1_500
            process = f"p{commands}"
            credit = CrashCredit(seat_owing, process=process, since=since, seen=now, back=now)
            outcome = core.apply(state, credit, now)
            assert isinstance(outcome, core.Accepted), outcome
            state = outcome.state
            log += outcome.events
            times += [now] * (len(log) - len(times))
            states.append(state)
            continue
        if timeout_after is not None and commands >= timeout_after:
            assert state.deadline is not None
            now = state.deadline + state.config.grace_ms + 1
            expired = core.expire(state, now)
            assert expired is not None
            state = expired.state
            log += expired.events
            times += [now] * (len(log) - len(times))
            states.append(state)
            break
        finished = state.match.game_number - (1 if state.match.in_game else 0)
        if (
            stop_after_games is not None
            and state.phase is Phase.COMMIT
            and (finished >= stop_after_games)
        ):
            now += 500
            outcome = core.apply(state, Stop(0, seats[0].next_seq()), now)
            assert isinstance(outcome, core.Accepted), outcome
            state = outcome.state
            log += outcome.events
            times += [now] * (len(log) - len(times))
            states.append(state)
            continue
        for seat in rng.sample(seats, 2):
            command = seat.decide(state)
            if command is None:
                continue
            now += rng.randint(200, 3000)
            if (
                commands % 7 == 3
                and reserve_owed(state) == (seat.seat, state.reserves[seat.seat])
                and state.reserves[seat.seat] > 15_000
            ):
                now += 40_000  # a slow decision, into the seat's time reserve
            outcome = core.apply(state, command, now)
            assert isinstance(outcome, core.Accepted), outcome
            state = outcome.state
            log += outcome.events
            times += [now] * (len(log) - len(times))
            states.append(state)
            commands += 1
            break
    # Every version's state, for snapshots at chosen versions.
    by_version = {s.version: s for s in states}
    tracker = Tracker()
    frames, pictures = [], []
    for event in log:
        frame = encode(event)
        tracker.apply(decode_from_server(frame))  # type: ignore[arg-type]
        frames.append(frame.hex())
        pictures.append(picture(tracker))
    snaps = []
    for wanted in snapshots_at:
        # The first stored state at or after the wanted version (a transition may emit several).
        v = min(x for x in by_version if x >= wanted)
        snap = m.Snapshot(v, public_view(by_version[v], ("online", "reconnecting")))
        frame = encode(snap)
        t = Tracker()
        t.apply(decode_from_server(frame))  # type: ignore[arg-type]
        snaps.append({"v": v, "hex": frame.hex(), "picture": picture(t)})
    kinds = sorted({type(e.data).__name__ for e in log})
    played = {
        "name": name,
        "match_id": match_id,
        "kinds": kinds,
        "frames": frames,
        "pictures": pictures,
        "snapshots": snaps,
    }
    if with_transcripts:
        # The fair-dice transcript of every game, as the server exports it (the web client's
        # verifier must accept each, variants and openers included).
        logged = [Logged(e.v, t, e.data) for e, t in zip(log, times, strict=True)]
        played["transcripts"] = [g.to_obj() for g in transcripts(match_id, logged).games]
    return played


def matches() -> list[dict[str, Any]]:
    return [
        play(
            "match3",
            MatchOptions.match(3),
            9,
            double_rate=0.12,
            snapshots_at=(3, 40, 120),
            crashes=(10, 30),
        ),
        play(
            "money",
            MatchOptions.money(jacoby=True, beavers=True),
            2,
            double_rate=0.12,
            snapshots_at=(60,),
            stop_after_games=2,
        ),
        play(
            "timeout",
            MatchOptions.single_game(),
            3,
            double_rate=0,
            snapshots_at=(),
            timeout_after=12,
        ),
        # Protocol version 5: a Tavli match (portes, plakoto with its pins, fevga; the Greek
        # opening, the last winner opening the next game) and a hypergammon game.
        play(
            "tavli",
            MatchOptions.match(3, variant=rules("tavli")),
            20,
            double_rate=0,
            snapshots_at=(30, 200, 400),
            with_transcripts=True,
        ),
        play(
            "hypergammon",
            MatchOptions.single_game(variant=rules("hypergammon")),
            6,
            double_rate=0.1,
            snapshots_at=(20,),
        ),
    ]


def render() -> str:
    fixture = {
        "description": "Wire frames from the Python implementation for the web client's network "
        "tests; written by web-client/tools/make_net_fixture.py",
        "client": client_frames(),
        "server": server_frames(),
        "matches": matches(),
        # The decisions a player takes by hand, whose deadline includes the seat's time reserve
        # (the web client's RESERVE_PHASES must be the same).
        "reserve_decisions": sorted(PLAYER_DECISIONS),
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
