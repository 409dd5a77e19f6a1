"""The store out of reach (docs/protocol.md, "When the server cannot reach its store").

Clients are told (``degraded``, then ``restored`` or close 1013), a hello meanwhile is held
and welcomed once the store is back, and a process cut off from Redis while another is fine
sheds its connections at once, so that its players move on and nobody loses on time.
"""

from __future__ import annotations

import asyncio
import signal
import time

from harness.failure_kit import (
    Cable,
    Seen,
    assert_saw_the_log,
    clock_credit,
    count_kind,
    play_until,
    stack_fixture,
    until,
)
from harness.serverproc import ServerProcess
from harness.srv_support import (
    Peer,
    Recorder,
    assert_log_replays,
    closing_error,
    play_out,
    seat_two,
)
from protocol import events as pe
from protocol import messages as m
from protocol.close_codes import CloseCode
from protocol.limits import PROTOCOL_VERSION

stack = stack_fixture()


async def test_told_degraded_then_restored_when_the_store_returns_within_the_grace(stack):
    proc = stack.server(FAIRGAMMON_STORE_GRACE_SECONDS="30")
    seated = await seat_two(proc.base)
    seat = await seated.peer(proc.ws, 0)
    watcher = await Peer.open(proc.ws)
    await watcher.hello(seated.match_id)
    stack.redis.kill()
    stopped = time.monotonic()
    for peer in (seat, watcher):
        await peer.next(m.Degraded)
    told = time.monotonic() - stopped
    await asyncio.to_thread(stack.redis.start)
    for peer in (seat, watcher):
        restored = await peer.next(m.Restored)
        last = [x for x in peer.messages if isinstance(x, m.Degraded)][-1]
        assert restored.since == last.since
        assert sum(isinstance(x, m.Welcome) for x in peer.messages) == 1  # the same connection
    await seat.sync()
    print(f"\ntold degraded {told:.2f} s after Redis died")
    assert told < 1.0


async def test_a_long_outage_sheds_connections_1013_and_a_held_hello_is_welcomed_when_back(stack):
    proc = stack.server()  # grace: 1 s
    seated = await seat_two(proc.base)
    seat = await seated.peer(proc.ws, 0)
    stack.redis.kill()
    stopped = time.monotonic()
    assert await seat.closed() == CloseCode.TRY_AGAIN_LATER
    shed = time.monotonic() - stopped
    assert closing_error(seat.messages) == "retry_later"
    assert any(isinstance(x, m.Degraded) for x in seat.messages)
    # A hello meanwhile: told at once, held, and welcomed as soon as Redis is back.
    again = await Peer.open(proc.ws)
    await again.send_msg(m.Hello(PROTOCOL_VERSION, seated.match_id, seated.tokens[0], None, None))
    await again.next(m.Degraded)
    await asyncio.to_thread(stack.redis.start)
    await again.next(m.Welcome)
    await again.next(m.Snapshot)
    await again.sync()
    # ... and one that finds no store for 3 s is refused 1013 after its degraded notice.
    stack.redis.kill()
    late = await Peer.open(proc.ws)
    await late.send_msg(m.Hello(PROTOCOL_VERSION, seated.match_id, None, None, None))
    assert await late.closed() == CloseCode.TRY_AGAIN_LATER
    assert [type(x) for x in late.messages] == [m.Degraded, m.Error]
    print(f"\nconnections shed {shed:.2f} s after Redis died")
    assert shed < 3.0


async def test_a_process_cut_off_from_redis_sheds_its_players_to_a_healthy_one(stack):
    """Both seats play on process 1, which reaches Redis through a cable; process 2 reaches
    it directly. The cable is cut while a seat owes a move on a 5-second clock: process 1
    closes them 1013 at once, they resume on process 2 and finish the game; nobody forfeits,
    and the clocks never stopped (process 2 kept them)."""
    cable = Cable(stack.redis.port)
    await cable.mend()
    cut_off = ServerProcess(f"redis://127.0.0.1:{cable.port}")
    await asyncio.to_thread(cut_off.start)  # (the cable runs on this loop)
    stack.servers.append(cut_off)
    healthy = await asyncio.to_thread(stack.server)
    seated = await seat_two(healthy.base, mode="single_game", clock=5)
    seen = (Seen(), Seen())
    logs = (Recorder(), Recorder())
    a, b = (
        seated.client(
            cut_off.ws,
            s,
            fallback_urls=[healthy.ws],
            on_event=lambda x, s=s: (seen[s](x), logs[s](x)),
        )
        for s in (0, 1)
    )
    w = seated.client(healthy.ws, None)
    async with a, b, w:
        await play_until((a, b), lambda: a.owes() == "move" or b.owes() == "move")
        credit = await clock_credit(healthy.base)
        await cable.cut()
        cut = time.monotonic()
        await until(lambda: len(seen[0].welcomes) == 2 and len(seen[1].welcomes) == 2, 10)
        moved = time.monotonic() - cut
        results = await play_out(a, b, seed=7, timeout=60)
        await w.wait_for(lambda t: t.over is not None, timeout=10)
        # (measured to half a request's round trip; an outage would add a second or more)
        assert abs(await clock_credit(healthy.base) - credit) < 300
    for log in logs:
        kinds = [type(x) for x in log.messages]
        assert m.Degraded in kinds
        assert any(isinstance(x, m.Error) and x.code == "retry_later" for x in log.messages)
    assert results[0].reason != "forfeit"
    stored = await stack.log(seated.match_id)
    assert count_kind(stored, pe.Forfeit) == 0
    for s in seen:
        assert_saw_the_log(s, stored)
    print(f"\nboth seats resumed on the healthy process {moved:.2f} s after the cut")
    await cable.cut()


async def test_a_stalled_store_is_noticed_within_a_second_and_a_pending_action_answered(stack):
    """Redis paused (SIGSTOP: connections stay open, nothing answers): the seats are told
    ``degraded`` within about a second (the heartbeat's stall limit, not the 5 s socket
    timeout), the action sent as the store stalled is answered ``retry_later`` then, not left
    hanging, and once Redis runs again (SIGCONT) the seats get ``restored`` and the action,
    sent again by the client, is stored exactly once."""
    proc = stack.server(FAIRGAMMON_STORE_GRACE_SECONDS="30")
    seated = await seat_two(proc.base, mode="single_game")
    times: list[tuple[float, m.ServerMessage]] = []
    (a, b), _ = seated.recorded((proc.ws, 0), (proc.ws, 1))
    a.on_event = lambda x: times.append((time.monotonic(), x))
    redis = stack.redis.process
    assert redis is not None
    async with a, b:
        await play_until((a, b), lambda: a.owes() == "decide")
        await until(lambda: a.tracker.version == b.tracker.version)
        start = len(times)
        redis.send_signal(signal.SIGSTOP)
        stopped = time.monotonic()
        try:
            rolling = asyncio.create_task(a.roll())  # sent at once, to a store that stalls
            await until(lambda: any(isinstance(x, m.Degraded) for _, x in times[start:]), 10)
            told = next(t for t, x in times[start:] if isinstance(x, m.Degraded)) - stopped
            await until(lambda: any(isinstance(x, m.Reject) for _, x in times[start:]), 10)
            refused = next((t, x) for t, x in times[start:] if isinstance(x, m.Reject))
            assert refused[1].code == "retry_later", refused
            answered = refused[0] - stopped
            assert not rolling.done()  # the client sends it again by itself, later
        finally:
            redis.send_signal(signal.SIGCONT)
        resumed = time.monotonic()
        await until(lambda: any(isinstance(x, m.Restored) for _, x in times[start:]), 10)
        back = next(t for t, x in times[start:] if isinstance(x, m.Restored)) - resumed
        reply = await asyncio.wait_for(rolling, 30)
        assert isinstance(reply, m.Ack), reply
        results = await play_out(a, b, seed=5)
    stored = await stack.log(seated.match_id)
    assert results[0] == results[1] and count_kind(stored, pe.Forfeit) == 0
    assert sum(isinstance(x, m.Welcome) for _, x in times) == 1  # the same connection throughout
    await assert_log_replays(stack.redis.url, seated.match_id)
    print(
        f"\nstalled store: degraded {told:.2f} s after SIGSTOP, the pending roll answered "
        f"{answered:.2f} s after it; restored {back:.2f} s after SIGCONT"
    )
    assert told < 2.5 and answered < 2.5  # (about 1 s: margin for a loaded 2-core machine)
