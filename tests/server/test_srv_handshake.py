"""threats.md, "Handshake and identity", against real server processes: the Origin allowlist,
the hello (or its absence), seat tokens, replacement of a seat's connection, tokens kept out
of URLs and unguessable match ids."""

from __future__ import annotations

import secrets

import msgpack
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from harness.srv_support import (
    Peer,
    Seated,
    check_seat_taken_over,
    closing_error,
    seat_two,
    server_fixture,
    stored_version,
)
from protocol import codec
from protocol import messages as m
from protocol.client import LobbyError, create_match, join_match
from protocol.client.lobby import get, get_text
from protocol.limits import PROTOCOL_VERSION as PROTO

server = server_fixture()
# A second server: browsers allowed from one configured origin only, a short handshake
# timeout, and info-level logging (to check that tokens never reach the log).
strict = server_fixture(
    FAIRGAMMON_ALLOWED_ORIGINS="https://play.example",
    FAIRGAMMON_AUTH_TIMEOUT_SECONDS="1",
    FAIRGAMMON_LOG_LEVEL="info",
)


async def upgrade_status(url: str, origin: str | None) -> int:
    """101 when the WebSocket opens, else the HTTP status of the refused upgrade."""
    try:
        peer = await Peer.open(url, origin=origin)
    except InvalidStatus as exc:
        return exc.response.status_code
    await peer.close()
    return 101


async def test_origin_must_match_the_servers_own_origin_exactly(server):
    port = server.port
    allowed = [None, f"http://localhost:{port}", f"http://127.0.0.1:{port}"]
    refused = [
        "http://evil.example",
        f"http://localhost:{port}.evil.example",
        f"http://localhost.evil.example:{port}",
        f"http://evil.example/http://localhost:{port}",
        f"http://localhost:{port}/",
        f"http://localhost:{port + 1}",
        "http://localhost",
        f"https://localhost:{port}",
        f"HTTP://LOCALHOST:{port}",
        "null",
    ]
    for origin in allowed:
        assert await upgrade_status(server.ws, origin) == 101, origin
    for origin in refused:
        assert await upgrade_status(server.ws, origin) == 403, origin


async def test_configured_origin_allowlist_is_exact(strict):
    assert await upgrade_status(strict.ws, "https://play.example") == 101
    assert await upgrade_status(strict.ws, None) == 101  # bots and the CLI send no Origin
    for origin in [
        f"http://localhost:{strict.port}",  # the server's own origin is not listed now
        "http://play.example",
        "https://play.example:443",
        "https://play.example.evil.example",
        "https://evil.play.example",
        "https://play.exampl",
        "https://play.example/",
    ]:
        assert await upgrade_status(strict.ws, origin) == 403, origin


async def test_silent_socket_is_closed_after_the_auth_timeout(strict):
    peer = await Peer.open(strict.ws)
    code = await peer.closed(timeout=5)
    assert code == 4002
    assert [type(x) for x in peer.messages] == [m.Error]
    assert peer.messages[0].code == "auth_timeout"


def hello_frame(match_id: str, token: object, proto: int = PROTO, name: object = None) -> bytes:
    payload = {"proto": proto, "match": match_id, "token": token, "last_v": None, "name": name}
    return msgpack.packb({"t": "hello", "p": payload}, use_bin_type=True)


async def test_bad_first_frames_close_before_any_match_data(server):
    one = await seat_two(server.base)
    other = await seat_two(server.base)
    unknown = secrets.token_hex(16)
    forged = secrets.token_urlsafe(32)
    cases = [
        ("garbage", b"\xc1\x00garbage", 4000, "bad_frame"),
        ("truncated", hello_frame(one.match_id, one.tokens[0])[:-5], 4000, "bad_frame"),
        ("text", "hello", 1003, "unsupported"),
        ("ping first", codec.encode(m.Ping(1)), 4000, "not_authenticated"),
        ("action first", codec.encode(m.Leave(1)), 4000, "not_authenticated"),
        ("another protocol", hello_frame(one.match_id, one.tokens[0], proto=PROTO + 1), 4005,
         "unsupported_version"),
        ("unknown match", hello_frame(unknown, None), 4004, "not_found"),
        ("forged token", hello_frame(one.match_id, forged), 4001, "auth_failed"),
        ("another match's token", hello_frame(one.match_id, other.tokens[0]), 4001,
         "auth_failed"),
        ("seat 1 token on another match", hello_frame(other.match_id, one.tokens[1]), 4001,
         "auth_failed"),
        ("token with bad characters", hello_frame(one.match_id, "a b!"), 4000, "bad_field"),
        ("empty token", hello_frame(one.match_id, ""), 4000, "bad_field"),
        ("token not a string", hello_frame(one.match_id, 12345), 4000, "bad_field"),
        ("overlong token", hello_frame(one.match_id, "a" * 65), 4000, "bad_field"),
        # Free text is length-limited and plain: no control or bidi-override characters.
        ("overlong name", hello_frame(one.match_id, None, name="n" * 25), 4000, "bad_field"),
        ("control character", hello_frame(one.match_id, None, name="a\x07b"), 4000,
         "bad_field"),
        ("bidi override", hello_frame(one.match_id, None, name="a\u202eb"), 4000, "bad_field"),
    ]  # fmt: skip
    for name, frame, close, error in cases:
        peer = await Peer.open(server.ws)
        await peer.send(frame)
        code = await peer.closed()
        # Exactly one frame, the error: no welcome, snapshot, event or presence before it.
        assert [type(x) for x in peer.messages] == [m.Error], name
        assert (code, peer.messages[0].code) == (close, error), name
    # Nothing of the above changed either match.
    assert await stored_version(server.redis_url, one.match_id) == 3
    assert await stored_version(server.redis_url, other.match_id) == 3


async def test_a_token_in_the_url_opens_no_seat(server):
    seated = await seat_two(server.base)
    token = seated.tokens[0]
    # A client that put the token in the URL and sent no token in its hello is a spectator.
    peer = await Peer.open(f"{server.ws}?token={token}")
    welcome = await peer.hello(seated.match_id, None)
    assert welcome.role == "spectator" and welcome.seq is None
    reply = await peer.reply(codec.encode(m.Leave(1)), seq=1)
    assert isinstance(reply, m.Reject) and reply.code == "not_a_player"
    await peer.close()


async def test_lobby_links_never_carry_tokens(strict):
    created = await create_match(strict.base, name="Ann", mode="single_game")
    joined = await join_match(strict.base, created["match"], name="Bob")
    tokens = (created["token"], joined["token"])
    links = [created[k] for k in ("page", "watch", "invite")] + [joined["page"], joined["watch"]]
    for link in links:
        assert "?" not in link
        assert all(t not in link for t in tokens)
    # The invite code rides in the fragment, which browsers never send to a server.
    assert created["invite"].split("#", 1)[1].startswith("join=")
    info = await get(strict.base, f"/api/matches/{created['match']}")
    listed = await get(strict.base, "/api/matches?status=live")
    for public in (str(info), str(listed)):
        assert all(t not in public for t in tokens)
    # Play a little through the server (info-level logging), then look at its log.
    seated = Seated(created["match"], tokens)
    a, b = seated.client(strict.ws, 0), seated.client(strict.ws, 1)
    async with a, b:
        await a.wait_for(lambda t: t.clock.phase in ("move", "decide") and t.turn >= 1)
        assert isinstance(await a.leave(), m.Ack)
        await b.wait_for(lambda t: t.over is not None)
    assert strict.log_path is not None
    log = strict.log_path.read_text(errors="replace")
    assert "connected" in log  # the connections were logged ...
    assert all(t not in log for t in tokens)  # ... without their tokens


async def test_match_ids_are_128_bit_and_unknown_ids_reveal_nothing(server):
    ids = {(await create_match(server.base, mode="single_game"))["match"] for _ in range(5)}
    assert len(ids) == 5
    assert all(len(i) == 32 and int(i, 16) >= 0 for i in ids)
    for guess in (secrets.token_hex(16), "0" * 32, "f" * 32, next(iter(ids))[:-1] + "x"):
        for path in (f"/api/matches/{guess}", f"/api/matches/{guess}/transcript.json"):
            with pytest.raises(LobbyError) as err:
                await get(server.base, path)
            assert err.value.status == 404
        with pytest.raises(LobbyError) as err:
            await join_match(server.base, guess, name="Eve")
        assert err.value.status == 404
    with pytest.raises(Exception) as err:
        await get_text(server.base, f"/api/matches/{secrets.token_hex(16)}/match.mat")
    assert "404" in str(err.value)


async def test_a_second_connection_replaces_the_first(server):
    seated = await seat_two(server.base)
    await check_seat_taken_over(
        seated,
        (server.ws, server.ws, server.ws),
        lambda t: t.clock.phase not in ("waiting", "commit"),
    )


async def test_replaced_connection_cannot_act_any_more(server):
    seated = await seat_two(server.base)
    old = await seated.peer(server.ws, 1)
    new = await seated.peer(server.ws, 1)
    assert await old.closed() == 4003
    assert closing_error(old.messages) == "replaced"
    # The old socket is gone: whatever it still tries to send changes nothing.
    with pytest.raises(ConnectionClosed):
        await old.send(codec.encode(m.Leave(1)))
    await new.sync()
    assert await stored_version(server.redis_url, seated.match_id) == 3
    await new.close()


async def test_the_newest_connection_keeps_the_seat_however_fast_it_comes(server):
    """A client that reconnects at once (a drop, a reload) must not be thrown out by the late
    notice of its own previous takeover, even on a process that was watching nothing else."""
    for _ in range(8):
        seated = await seat_two(server.base)
        older, newer = await Peer.open(server.ws), await Peer.open(server.ws)
        await older.hello(seated.match_id, seated.tokens[0])
        await newer.hello(seated.match_id, seated.tokens[0])  # right after the welcome
        code = await older.closed()
        assert code == 4003, (code, older.messages[-3:])
        await newer.through_the_channel()  # every takeover notice has arrived: it came before
        assert not any(isinstance(x, m.Error) for x in newer.messages)
        await newer.sync()  # still open and served
        await newer.close()
