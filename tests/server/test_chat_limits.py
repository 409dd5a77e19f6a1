"""Chat allowances are per speaker, not per connection: every spectator socket from one client
address shares one allowance, and a seat keeps its own across reconnects. The server trusts the
test client as its proxy (its ``X-Forwarded-For`` names the client address, as nginx's would),
and the allowance refills on the server clock, which the tests move instead of waiting: one line
a minute after a burst of five."""

from __future__ import annotations

import asyncio

from harness.srv_support import Peer, move_clock, seat_two, server_fixture
from protocol import messages as m
from protocol.errors import ErrorCode

BURST = 5
server = server_fixture(
    FAIRGAMMON_TRUSTED_PROXIES="127.0.0.1",
    FAIRGAMMON_CHAT_BURST=str(BURST),
    FAIRGAMMON_CHAT_PER_MINUTE="1",
)

FLOODER, OTHER = "203.0.113.7", "198.51.100.9"


def said(peer: Peer, room: str) -> list[m.Chat]:
    return [x for x in peer.messages if isinstance(x, m.Chat) and x.room == room]


def refusals(peer: Peer, start: int = 0) -> list[m.Reject]:
    return [x for x in peer.messages[start:] if isinstance(x, m.Reject)]


async def answered(peer: Peer, message: m.ChatSend) -> m.Chat | m.Reject:
    """Say ``message`` and wait for the answer: its line, which the sender hears like everyone
    in the room, or a refusal (then checked to be a typed ``rate_limited``)."""
    start = len(peer.messages)
    await peer.send_msg(message)

    def answer() -> m.Chat | m.Reject | None:
        for x in peer.messages[start:]:
            if isinstance(x, m.Reject) or (isinstance(x, m.Chat) and x.text == message.text):
                return x
        return None

    await peer.wait(lambda: answer() is not None)
    got = answer()
    assert got is not None
    if isinstance(got, m.Reject):
        assert got.code is ErrorCode.RATE_LIMITED and got.seq is None
    return got


async def test_spectator_sockets_from_one_address_share_one_allowance(server) -> None:
    seated = await seat_two(server.base, mode="single_game")
    flood = [await Peer.open(server.ws, client=FLOODER) for _ in range(6)]
    other = await Peer.open(server.ws, client=OTHER)
    everyone = [*flood, other]
    try:
        for peer in everyone:
            await peer.hello(seated.match_id)
        # 6 sockets, 5 lines each, all at once: 30 lines from one address.
        texts = [[f"flood {i}.{j}" for j in range(5)] for i in range(len(flood))]
        await asyncio.gather(*(
            peer.send_msg(m.ChatSend("spectators", text, "F"))
            for peer, lines in zip(flood, texts, strict=True) for text in lines
        ))  # fmt: skip
        # Each socket's lines are answered in order: its own line back, or a refusal.
        for peer, lines in zip(flood, texts, strict=True):
            mine = set(lines)
            await peer.wait(lambda p=peer, mine=mine: len(refusals(p)) + sum(
                x.text in mine for x in said(p, "spectators")) == 5)  # fmt: skip
        refused = [r for peer in flood for r in refusals(peer)]
        assert len(refused) == 30 - BURST
        assert {r.code for r in refused} == {ErrorCode.RATE_LIMITED}
        assert all("your address" in r.message for r in refused)
        # The room got the allowance and no more: lines 1..5, whoever of the 6 said them.
        await other.wait(lambda: len(said(other, "spectators")) >= BURST)
        await other.sync()
        assert [x.n for x in said(other, "spectators")] == list(range(1, BURST + 1))

        # Another address has its own allowance, at once ...
        line = await answered(other, m.ChatSend("spectators", "from elsewhere", "O"))
        assert isinstance(line, m.Chat) and line.n == BURST + 1
        # ... and a fresh socket from the flooding address gets none.
        fresh = await Peer.open(server.ws, client=FLOODER)
        everyone.append(fresh)
        await fresh.hello(seated.match_id)
        late = await answered(fresh, m.ChatSend("spectators", "new socket", "F"))
        assert isinstance(late, m.Reject)
        # A minute later (on the server clock) the address may say one line again: one.
        await move_clock(server, server.redis_url, 60)
        again = await answered(fresh, m.ChatSend("spectators", "a minute on", "F"))
        assert isinstance(again, m.Chat) and again.n == BURST + 2
        once = await answered(flood[0], m.ChatSend("spectators", "and again", "F"))
        assert isinstance(once, m.Reject)
    finally:
        for peer in everyone:
            await peer.close()


async def test_a_seat_keeps_its_allowance_across_reconnects(server) -> None:
    seated = await seat_two(server.base, mode="single_game")
    ann, bob = await seated.peer(server.ws, 0), await seated.peer(server.ws, 1)
    peers = [ann, bob]
    try:
        for i in range(BURST):
            line = await answered(ann, m.ChatSend("players", f"line {i}", None))
            assert isinstance(line, m.Chat) and line.n == i + 1
        assert isinstance(await answered(ann, m.ChatSend("players", "more", None)), m.Reject)
        # A new connection for the seat (a reload, or a client that reconnects to refill):
        # the seat's allowance is spent all the same.
        await ann.close()
        ann = await seated.peer(server.ws, 0)
        peers.append(ann)
        refused = await answered(ann, m.ChatSend("players", "reloaded", None))
        assert isinstance(refused, m.Reject) and "this seat" in refused.message
        # The other seat has its own allowance ...
        line = await answered(bob, m.ChatSend("players", "hi Ann", None))
        assert isinstance(line, m.Chat) and line.n == BURST + 1
        # ... and a minute later (server clock) Ann may say one line again.
        await move_clock(server, server.redis_url, 60)
        line = await answered(ann, m.ChatSend("players", "a minute on", None))
        assert isinstance(line, m.Chat) and line.n == BURST + 2
    finally:
        for peer in peers:
            await peer.close()
