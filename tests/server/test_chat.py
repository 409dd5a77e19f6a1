"""Chat through a real server process: the players' room and the spectators' room, who sees
which, plain text kept as typed, limits, rate limiting, and the history after a reload."""

from __future__ import annotations

import msgpack
from websockets.asyncio.client import connect

from harness.accounts import signed_up
from harness.serverproc import ServerProcess
from harness.srv_support import Peer, move_clock, seat_two
from protocol import codec
from protocol import messages as m
from protocol.errors import ErrorCode


def chat_frame(text: str) -> bytes:
    """A players' chat_send frame built by hand (the codec refuses to encode bad text)."""
    body = {"t": "chat_send", "p": {"room": "players", "text": text, "name": None}}
    return msgpack.packb(body, use_bin_type=True)


def lines(peer: Peer, room: str) -> list[tuple[int, str, str]]:
    chat = [x for x in peer.messages if isinstance(x, m.Chat) and x.room == room]
    return [(x.n, x.name, x.text) for x in chat]


async def refused(peer: Peer, frame: bytes | m.ClientMessage) -> ErrorCode:
    start = len(peer.messages)
    await peer.send(frame if isinstance(frame, bytes) else codec.encode(frame))
    return (await peer.next(m.Reject, start=start)).code


async def test_players_and_spectators_chat_apart_and_a_reload_shows_the_history(server):
    seated = await seat_two(server.base, mode="match", length=3)
    ann, bob = await seated.peer(server.ws, 0), await seated.peer(server.ws, 1)
    kib, lurker = await Peer.open(server.ws), await Peer.open(server.ws)
    for spectator in (kib, lurker):
        await spectator.hello(seated.match_id)
    try:
        await ann.send_msg(m.ChatSend("players", "Good luck", None))
        for peer in (ann, bob):
            await peer.next(m.Chat, lambda x: x.n == 1)
        said = await bob.next(m.Chat)
        assert (said.room, said.seat, said.name, said.account) == ("players", 0, "Ann", False)

        # Markup stays text, exactly as typed; the spectators' own name is the typed one.
        await kib.send_msg(m.ChatSend("spectators", "<b>nice</b> & <i>roll</i>", "Kibitzer"))
        for peer in (kib, lurker):
            await peer.next(m.Chat, lambda x: x.room == "spectators")
        assert lines(lurker, "spectators") == [(1, "Kibitzer", "<b>nice</b> & <i>roll</i>")]
        # The players do not see it: Bob's next line, published after it on the same channel,
        # reaches Ann with no spectators' line before it. And spectators never see the players.
        await bob.send_msg(m.ChatSend("players", "Nice roll", None))
        await ann.next(m.Chat, lambda x: x.n == 2)
        assert lines(ann, "spectators") == [] and lines(bob, "spectators") == []
        await kib.send_msg(m.ChatSend("spectators", "second", None))
        await lurker.next(m.Chat, lambda x: x.room == "spectators" and x.n == 2)
        assert lines(kib, "players") == [] and lines(lurker, "players") == []
        assert lines(lurker, "spectators")[1] == (2, "Spectator", "second")  # nil name

        # A signed-in spectator speaks under the account's name, whatever it types.
        browser = await signed_up(server.base, "carla")
        cookie = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
        ws = await connect(server.ws, origin=server.base, additional_headers={"Cookie": cookie})
        member = Peer(ws)
        await member.hello(seated.match_id)
        await member.send_msg(m.ChatSend("spectators", "hello", "Impostor"))
        heard = await kib.next(m.Chat, lambda x: x.text == "hello")
        assert (heard.n, heard.name, heard.account, heard.seat) == (3, "carla", True, None)
        await member.close()

        # Who may write and read where.
        assert await refused(kib, m.ChatSend("players", "hi", None)) is ErrorCode.NOT_A_PLAYER
        assert await refused(ann, m.ChatSend("spectators", "hi", None)) is ErrorCode.FORBIDDEN
        assert await refused(ann, m.ChatSync("spectators", 0)) is ErrorCode.FORBIDDEN
        assert await refused(kib, m.ChatSync("players", 0)) is ErrorCode.NOT_A_PLAYER
        # Plain text of at most 200 characters, no control characters.
        for text in ("x" * 201, "r\x07ng", ""):
            assert await refused(ann, chat_frame(text)) is ErrorCode.BAD_FIELD, text
        await ann.send(chat_frame("y" * 200))  # the longest line is fine
        await bob.next(m.Chat, lambda x: x.text == "y" * 200)

        # Rate limited per speaker, and every spectator here is one: they all come from
        # 127.0.0.1, which said 3 lines already (tests/server/test_chat_limits.py for more).
        for i in range(2):
            await lurker.send_msg(m.ChatSend("spectators", f"spam {i}", "L"))
        more = m.ChatSend("spectators", "more", "L")
        assert await refused(lurker, more) is ErrorCode.RATE_LIMITED
        await kib.next(m.Chat, lambda x: x.text == "spam 1")
        assert [t for _, _, t in lines(kib, "spectators")][3:] == ["spam 0", "spam 1"]

        # A reload (a new connection for Bob's seat) asks for the history and gets it in order.
        again = await seated.peer(server.ws, 1)
        await again.send_msg(m.ChatSync("players", 0))
        await again.next(m.Chat, lambda x: x.n == 3)
        assert lines(again, "players") == [
            (1, "Ann", "Good luck"),
            (2, "Bob", "Nice roll"),
            (3, "Ann", "y" * 200),
        ]
        start = len(again.messages)
        await again.send_msg(m.ChatSync("players", 1))  # only what it lacks
        await again.next(m.Chat, lambda x: x.n == 3, start=start)
        assert [x.n for x in again.messages[start:] if isinstance(x, m.Chat)] == [2, 3]

        # Once the match is over the players may read the spectators' room, and still talk.
        start = len(again.messages)
        await ann.send_msg(m.Leave(1))
        await again.next(m.Event, lambda x: type(x.data).__name__ == "MatchOver", start=start)
        await again.send_msg(m.ChatSync("spectators", 0))
        await again.next(m.Chat, lambda x: x.room == "spectators" and x.n == 5)
        assert len(lines(again, "spectators")) == 5
        await again.send_msg(m.ChatSend("players", "Thanks, good game", None))
        await ann.next(m.Chat, lambda x: x.text == "Thanks, good game")
        # ... and new spectators' lines reach them live (2 s on: the address may say one).
        await move_clock(server, server.redis_url, 2)
        await kib.send_msg(m.ChatSend("spectators", "gg all", None))
        await again.next(m.Chat, lambda x: x.text == "gg all")
    finally:
        for peer in (ann, bob, kib, lurker):
            await peer.close()


async def test_chat_crosses_server_processes(server):
    other = ServerProcess(server.redis_url)
    other.start()
    try:
        seated = await seat_two(server.base, mode="single_game")
        ann, bob = await seated.peer(server.ws, 0), await seated.peer(other.ws, 1)
        near, far = await Peer.open(server.ws), await Peer.open(other.ws)
        for spectator in (near, far):
            await spectator.hello(seated.match_id)
        await ann.send_msg(m.ChatSend("players", "Good luck", None))
        assert (await bob.next(m.Chat)).text == "Good luck"
        await far.send_msg(m.ChatSend("spectators", "from afar", "Far"))
        heard = await near.next(m.Chat)
        assert (heard.room, heard.n, heard.name) == ("spectators", 1, "Far")
        assert heard.text == "from afar"
        # A new connection on either process gets the same history.
        late = await Peer.open(other.ws)
        await late.hello(seated.match_id)
        await late.send_msg(m.ChatSync("spectators", 0))
        assert (await late.next(m.Chat)).text == "from afar"
        for peer in (ann, bob, near, far, late):
            await peer.close()
    finally:
        other.stop()
