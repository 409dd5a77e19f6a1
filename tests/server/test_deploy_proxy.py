"""The deployment of ``docker-compose.yml`` without Docker: nginx configured from
``deploy/nginx.conf`` in front of two server processes on one Redis. Everything goes through
the one public port: the lobby, the players' and spectators' WebSockets, and the reconnects
after one replica is killed mid-match."""

from __future__ import annotations

import asyncio
import random
import urllib.error
import urllib.request

from harness.proxy_process import ProxyProcess
from harness.srv_support import check_barrier, check_stream, seat_two, stored_frames
from protocol.client import play_random
from tests.server.test_srv_multiproc import processes, verified_and_replayed


async def test_a_match_through_the_proxy_survives_the_loss_of_a_replica(redis_process, tmp_path):
    with processes(redis_process, 2) as (doomed, survivor):
        proxy = ProxyProcess(tmp_path / "nginx", [doomed.port, survivor.port])
        await asyncio.to_thread(proxy.start)
        try:
            seated = await seat_two(proxy.base, mode="match", length=3)
            # One public address for everybody; nginx spreads the sockets over both replicas.
            clients, logs = seated.recorded(*((proxy.ws, seat) for seat in (0, 1, None, None)))
            a, b, w1, w2 = clients
            async with a, b, w1, w2:
                rng = random.Random(47)
                match = asyncio.gather(
                    play_random(a, random.Random(rng.random())),
                    play_random(b, random.Random(rng.random())),
                )
                await a.wait_for(lambda t: t.version >= 30)
                doomed.kill()  # SIGKILL, mid-match: its sockets drop
                results = await asyncio.wait_for(match, timeout=90)
                for w in (w1, w2):
                    await w.wait_for(lambda t: t.over is not None)
            # Round robin put some of the four sockets on the killed replica: they came back
            # through the same address, to the survivor.
            assert any(c.welcomes >= 2 for c in clients), [c.welcomes for c in clients]
            assert results[0] == results[1] == w1.tracker.over == w2.tracker.over
            log = await stored_frames(survivor.redis_url, seated.match_id)
            for recorder in logs:
                check_stream(recorder.messages, log)
                check_barrier(recorder.messages)
            assert await verified_and_replayed(proxy.base, survivor.redis_url, seated.match_id)
            # Bodies: a 200 KiB match file reaches the server (which wants a session: 401),
            # where any other route keeps the proxy's 16 KiB bound (413 from nginx).
            assert await asyncio.to_thread(post, f"{proxy.base}/api/imports", 200 * 1024) == 401
            assert await asyncio.to_thread(post, f"{proxy.base}/api/matches", 20 * 1024) == 413
        finally:
            proxy.stop()


def post(url: str, size: int) -> int:
    """The status of a POST of ``size`` bytes to ``url``."""
    request = urllib.request.Request(url, data=b"x" * size, method="POST",
                                     headers={"Content-Type": "text/plain"})  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code
