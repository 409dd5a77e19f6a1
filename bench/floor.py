"""The floor of an action in this stack: what the unavoidable work of a stored action costs,
in echo round trips, measured in the same run as the echo.

    .venv/bin/python bench/floor.py                       # 1,000 pairs, 600 actions/s
    .venv/bin/python bench/floor.py --pairs 500 --rate 300 --seconds 20

An action of a match, stripped to what no design in this stack can skip: one binary frame in
from the player, the transition stored in Redis by the server's own commit script through its
own store link (``Store.commit``: compare-and-set of a ~1 KB snapshot, the event appended to
the log and published, one round trip, ``appendfsync always``), then one frame back to the
player (the ack) and one to the opponent (the event). No rules, no snapshot dump, no codec, no
bus, no hub, no probes: those are the server's own (``bench/machine.py`` and
``bench/snapshot.py`` time the first two alone). With ``--rules`` the floor app also does the
compute a stored action cannot skip either: the pure machine's ``core.apply`` of a recorded
transition of a money session (``bench/commit.py``'s seeded games, each pair cycling through
one), the snapshot of the state it makes (``serial.dumps``), its summary and command record,
and its events encoded as the server encodes them (``protocol.codec.encode``), which are what
it stores and sends. With ``--probes S`` each socket also gets a small frame every ``S``
seconds (in slices, one every 0.1 s, as the gateway sends its probes), which its client
answers at once: the server's probe and echo (``bench/load.py``'s servers probe every 2 s).
With ``--chain N`` the seats of a pair answer each other at once ``N - 1`` times, then wait
``N`` times as long (same rate): a turn of ``bench/load.py``'s matches is such a chain of three
(the roll, the opponent's reveal as soon as the roll arrives, the move as soon as the dice do),
where the default spreads the actions evenly (the loop then handles several at a time).

It starts a private redis-server, one server process of this floor app under the same uvicorn
settings as ``fairgammon serve`` (``server.web.websocket``'s protocol, frames written through
its direct path as the gateway writes them), and a client process holding ``--pairs`` pairs of
sockets: the two seats of a pair act in turn, each ``pairs / rate`` seconds after the other's
event reached it, so about ``--rate`` actions a second are stored, paced as
``bench/load.py`` paces its matches. Then the bare echo of ``bench/loadgen/echo.py`` on the
same settings. It prints the floor app's CPU per action, the echo's CPU per round trip, and
their ratio: what ``bench/load.py`` reports as "echo round trips per stored action" for the
real server, for an action that does nothing else.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

# Run as a script, this file's folder comes first on sys.path (for ``loadgen`` and
# ``commit``): put the checkout ahead of it, or bench/engine.py would hide the ``engine``
# package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loadgen import echo, procs

from protocol import codec
from server.machine import core
from server.match.outbox import SEND_FRAME
from server.match.store import Store
from server.match.stored import blobs
from server.ops.redis_process import RedisProcess, free_port

SNAPSHOT = bytes(1000)
"""A mid-match snapshot is ~1 KB (docs/load.md)."""
SUMMARY = bytes(90)
EVENT = bytes(120)
ACK = bytes(12)
COMMAND = bytes(40)
PROBE = b"probe" + bytes(10)
ECHO = b"echo" + bytes(10)


# ------------------------------------------------------------------------- the floor server


class Floor:
    """The floor app: pairs of sockets, each inbound frame stored, acked and passed on."""

    def __init__(self, redis_url: str, rules: bool = False, probes: float = 0.0) -> None:
        self.redis_url = redis_url
        self.probes = probes
        self.probed: list[Any] = []  # the sockets' writers, probed in slices
        self.ticker: asyncio.Handle | None = None
        self.games: list[Any] = []
        if rules:
            import commit  # bench/commit.py: seeded money sessions, recorded

            self.games = [commit.play(i)[1] for i in range(16)]
        self.store: Any = None
        self.seats: dict[str, list[Any]] = {}
        self.versions: dict[str, int] = {}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
        elif scope["type"] == "websocket":
            await self.socket(scope, receive, send)
        else:
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b""})

    async def lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.store = Store.connect(self.redis_url)
            else:
                await self.store.close()
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return

    async def socket(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        query = parse_qs(scope["query_string"].decode())
        pair, seat = query["pair"][0], int(query["seat"][0])
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        direct = scope["extensions"][SEND_FRAME]

        pending: set[asyncio.Task[None]] = set()

        def sent(task: asyncio.Task[None]) -> None:
            pending.discard(task)
            if not task.cancelled():
                task.exception()  # (retrieved: a socket the client closed at the run's end)

        def write(frame: bytes) -> None:
            if not direct(frame):  # (a slow reader: the usual, waiting way)
                task = asyncio.ensure_future(send({"type": "websocket.send", "bytes": frame}))
                pending.add(task)
                task.add_done_callback(sent)

        seats = self.seats.setdefault(pair, [None, None])
        seats[seat] = write
        if self.probes:
            self.probed.append(write)
            self.start_probes()
        match_id = f"floor-{pair}"
        steps = self.games[int(pair) % len(self.games)] if self.games else []
        step = 0
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                if self.probes:
                    self.probed.remove(write)
                return
            if message.get("bytes") == ECHO:
                continue  # a probe's answer: the link is alive
            expected = self.versions.get(match_id, -1)
            if steps:
                snapshot, summary, events, command = self.transition(*steps[step % len(steps)])
                step += 1
            else:
                snapshot, summary, events, command = SNAPSHOT, SUMMARY, [EVENT], COMMAND
            self.versions[match_id] = await self.store.commit(
                match_id, expected, snapshot, summary, events, command=command
            )
            other = seats[1 - seat]
            for event in events:  # both seats follow the match; the actor's ack comes last
                write(event)
                if other is not None:
                    other(event)
            write(ACK)

    def start_probes(self) -> None:
        """Probe the sockets in slices, one slice every 0.1 s, each socket once per ``probes``
        seconds (as the gateway spreads its probes: ``Gateway.probe_forever``)."""
        if self.ticker is not None:
            return
        loop = asyncio.get_running_loop()
        slices = max(1, round(self.probes / 0.1))
        turn = [0]

        def tick() -> None:
            for write in self.probed[turn[0] % slices :: slices]:
                write(PROBE)
            turn[0] += 1
            self.ticker = loop.call_later(self.probes / slices, tick)

        self.ticker = loop.call_later(0.1, tick)

    @staticmethod
    def transition(state: Any, command: Any, now: int) -> tuple[bytes, bytes, list[bytes], bytes]:
        """What the server stores and sends for one transition (``server.match.stored.blobs``
        and the events encoded, as ``MatchService._store`` makes them)."""
        after = core.apply(state, command, now)
        snapshot, summarized, record = blobs(after.state, command, now)
        return snapshot, summarized, [codec.encode(e) for e in after.events], record


def serve(port: int, redis_url: str, rules: bool, probes: float) -> None:
    import uvicorn

    uvicorn.run(
        Floor(redis_url, rules, probes), host="127.0.0.1", port=port, ws=echo.SERVER_WS,
        ws_max_size=16 * 1024, ws_max_queue=8, ws_per_message_deflate=False,
        ws_ping_interval=None, ws_ping_timeout=None, log_level="warning", access_log=False,
        lifespan="on",
    )  # fmt: skip


# ------------------------------------------------------------------------- the client


async def play(
    port: int, pairs: int, rate: float, chain: int, warmup: float, seconds: float, out: Any
) -> None:
    """Hold the pairs, pace their actions, and report how many were acked in the window."""
    from loadgen.wsconn import WsConn

    loop = asyncio.get_running_loop()
    think = pairs / rate  # a pair acts once per think (its seats in turn), on average
    counting = False
    acked = 0
    at_once = 0  # actions sent as soon as the other seat's events arrived (--chain)
    opened = 0
    all_open = asyncio.Event()

    class Seat:
        conn: WsConn
        other: Seat
        chained: list[int]  # the pair's actions so far (its two seats share it)

        def on_open(self, conn: WsConn) -> None:
            nonlocal opened
            opened += 1
            if opened == 2 * pairs:
                all_open.set()

        busy = False  # from the turn's start to the ack of its action

        def on_frame(self, data: bytes) -> None:
            nonlocal acked, at_once
            if data == PROBE:
                self.conn.send(ECHO)
            elif data == ACK:
                acked += counting
                self.busy = False
            elif not self.busy:  # the opponent's events (its own come before its ack)
                self.busy = True
                self.chained[0] += 1
                if self.chained[0] % chain:
                    at_once += counting
                    loop.call_soon(self.act)  # the chain goes on at once
                else:
                    loop.call_later(think * chain, self.act)

        def act(self) -> None:
            self.busy = True
            if self.conn.open:
                self.conn.send(b"action")

        def on_close(self, conn: WsConn, code: int | None) -> None:
            pass

    url = f"ws://127.0.0.1:{port}/ws"
    first = []
    for pair in range(pairs):
        a, b = Seat(), Seat()
        a.other, b.other = b, a
        a.chained = b.chained = [0]
        for seat, s in enumerate((a, b)):
            _, s.conn = await loop.create_connection(
                lambda s=s, where=f"{url}?pair={pair}&seat={seat}": WsConn(
                    where, s.on_open, s.on_frame, s.on_close
                ),
                "127.0.0.1",
                port,
            )
        first.append(a)
    await asyncio.wait_for(all_open.wait(), 60)
    spread = random.Random(1)
    for a in first:
        loop.call_later(spread.uniform(0, think * chain), a.act)
    await asyncio.sleep(warmup)
    out.send("go")
    counting = True
    start = time.monotonic()
    await asyncio.sleep(seconds)
    counting = False
    out.send({"acked": acked, "at_once": at_once, "elapsed": time.monotonic() - start})
    for a in first:
        a.conn.close()
        a.other.conn.close()
    await asyncio.sleep(0.2)


def client(
    port: int, pairs: int, rate: float, chain: int, warmup: float, seconds: float, out: Any
) -> None:
    asyncio.run(play(port, pairs, rate, chain, warmup, seconds, out))


# ------------------------------------------------------------------------- the run


def measure_floor(ctx: Any, redis_url: str, a: argparse.Namespace) -> dict[str, float]:
    port = free_port()
    server = ctx.Process(target=serve, args=(port, redis_url, a.rules, a.probes))
    server.start()
    try:
        procs.listening(port)
        parent, child = ctx.Pipe()
        args = (port, a.pairs, a.rate, a.chain, a.warmup, a.seconds, child)
        player = ctx.Process(target=client, args=args)
        player.start()
        parent.recv()  # "go": warmed up
        u0, t0 = procs.Usage.of([server.pid]), time.monotonic()
        result = parent.recv()
        u1, t1 = procs.Usage.of([server.pid]), time.monotonic()
        player.join(10)
        result["cpu_per_action"] = (u1.cpu - u0.cpu) / result["acked"]
        result["busy"] = (u1.cpu - u0.cpu) / (t1 - t0)
        return result
    finally:
        if server.pid is not None:
            server.terminate()
        server.join(10)


def measure_echo(ctx: Any, a: argparse.Namespace) -> dict[str, float]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(Path(echo.__file__)), str(port), a.echo_ws], cwd=procs.ROOT
    )
    try:
        procs.listening(port)
        parent, child = ctx.Pipe()
        args = (f"ws://127.0.0.1:{port}/ws", a.echo_connections, a.echo_seconds, child)
        runner = ctx.Process(target=echo.client, args=args)
        runner.start()
        parent.recv()  # "go"
        u0, t0 = procs.Usage.of([proc.pid]), time.monotonic()
        result = parent.recv()
        u1, t1 = procs.Usage.of([proc.pid]), time.monotonic()
        runner.join(5)
        cpu = (u1.cpu - u0.cpu) / (t1 - t0)
        result["cpu_per_round_trip"] = cpu / result["round_trips_per_s"]
        result["busy"] = cpu
        return result
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pairs", type=int, default=1000, help="pairs of sockets (matches)")
    p.add_argument("--rate", type=float, default=600.0, help="actions a second, all pairs")
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--rules", action="store_true", help="also apply, dump and encode (above)")
    p.add_argument(
        "--probes", type=float, default=0.0, help="seconds between probes to each socket (0: none)"
    )
    p.add_argument(
        "--chain", type=int, default=1, help="actions a pair makes at once in a row (above)"
    )
    p.add_argument("--echo-seconds", type=float, default=5.0)
    p.add_argument("--echo-connections", type=int, default=64)
    p.add_argument(
        "--echo-ws",
        default=echo.SERVER_WS,
        help="the echo's uvicorn ws protocol (websockets-sansio: uvicorn's own)",
    )
    a = p.parse_args()
    if a.chain < 1:
        p.error("--chain is at least 1")
    ctx = mp.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        redis = RedisProcess(Path(tmp) / "redis")
        redis.start()
        try:
            floor = measure_floor(ctx, redis.url, a)
        finally:
            redis.stop()
    rtt = measure_echo(ctx, a)
    per_action, per_rt = floor["cpu_per_action"], rtt["cpu_per_round_trip"]
    print(f"== the floor of an action: {a.pairs} pairs, {a.rate:g} actions/s asked, "
          f"{a.seconds:g} s measured ==")  # fmt: skip
    print(f"actions            {floor['acked'] / floor['elapsed']:.0f}/s acked "
          f"(floor server {100 * floor['busy']:.0f}% of a core; "
          f"{100 * floor['at_once'] / max(1, floor['acked']):.0f}% sent at once on the other "
          "seat's events)")  # fmt: skip
    work = "frame in, apply, dump, encode, " if a.rules else "frame in, "
    if a.probes:
        work = f"probes every {a.probes:g} s, " + work
    if a.chain > 1:
        work = f"chains of {a.chain}, " + work
    print(f"floor CPU          {per_action * 1e6:.1f} us per action "
          f"({work}Store.commit, ack and events out)")  # fmt: skip
    print(f"echo               {rtt['round_trips_per_s']:.0f} round trips/s over "
          f"{a.echo_connections} sockets ({a.echo_ws}; echo server {100 * rtt['busy']:.0f}% of "
          f"a core: {per_rt * 1e6:.1f} us per round trip)")  # fmt: skip
    print(f"floor / echo       {per_action / per_rt:.1f} echo round trips per action "
          "(by the echo's CPU per round trip)")  # fmt: skip


if __name__ == "__main__":
    main()
