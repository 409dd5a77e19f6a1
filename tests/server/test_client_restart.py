"""MatchClient never gives up on a server that is restarting: connections refused, handshakes
that fail half-way (the socket accepted and closed, a 503 answer), then the server is back and
the client resumes by itself. Only a definitive answer ends it (4001: the token refused)."""

from __future__ import annotations

import asyncio

import pytest

from harness.failure_kit import Cable
from harness.srv_support import seat_two
from protocol.client import ClientClosed, MatchClient
from protocol.client import seat as sc


class Restarting:
    """A front for the server that, in turn, refuses connections, accepts and hangs up at once
    (the client sees an invalid handshake), and answers HTTP 503, like a server restarting;
    then it relays to the server."""

    def __init__(self, target_port: int) -> None:
        self.cable = Cable(target_port)
        self.port = self.cable.port
        self.mode = "refuse"
        self.tries: dict[str, int] = {"refuse": 0, "hangup": 0, "503": 0}
        self._server: asyncio.Server | None = None

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    async def set(self, mode: str) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        await self.cable.cut()
        self.mode = mode
        if mode == "relay":
            await self.cable.mend()
        elif mode != "refuse":
            self._server = await asyncio.start_server(self._answer, "127.0.0.1", self.port)

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.tries[self.mode] += 1
        if self.mode == "503":
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
        writer.close()


async def test_the_client_keeps_trying_through_a_restart_and_resumes(server):
    seated = await seat_two(server.base, mode="single_game")
    front = Restarting(server.port)
    await front.set("relay")
    client = MatchClient(front.ws, seated.match_id, seated.tokens[0])
    async with client:
        await client.wait_for(lambda t: client.core.caught_up, timeout=10)
        v = client.tracker.version
        assert v > 0  # created, joined, ...: the log was read
        await front.set("refuse")
        await client.drop()
        await asyncio.sleep(0.6)  # connection refused, again and again
        await front.set("hangup")
        while front.tries["hangup"] < 2:
            await asyncio.sleep(0.05)
        await front.set("503")
        while front.tries["503"] < 2:
            await asyncio.sleep(0.05)
        assert client.welcomes == 1 and client.core.ended is None
        await front.set("relay")
        # The second welcome, then the events up to its version (they follow the welcome).
        await client.wait_for(lambda t: client.welcomes == 2 and client.core.caught_up, timeout=10)
        assert client.tracker.version >= v and client.seat == 0
    await front.set("refuse")


async def test_a_refused_token_is_definitive(server):
    seated = await seat_two(server.base, mode="single_game")
    client = MatchClient(server.ws, seated.match_id, "not-the-token-0123456789")
    with pytest.raises(ClientClosed) as closed:
        await client.start()
    assert closed.value.code == 4001 and closed.value.why is sc.EndReason.AUTH_FAILED
    await client.close()
