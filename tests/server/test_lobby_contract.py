"""Where a client written from docs/protocol.md alone tripped, against a real server: the invite
link is accepted by join as it came from create, a match needs its length (a clear refusal), a
body that is not JSON is `bad_frame`, and a seat claimed over HTTP that never connects shows as
not connected (``reconnecting``) first and ``gone`` only once it stayed away."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request

import pytest

from harness.srv_support import Peer, server_fixture
from protocol import messages as m
from protocol.client import LobbyError, create_match, join_match

server = server_fixture(FAIRGAMMON_GONE_AFTER_SECONDS="1")


async def test_join_takes_the_invite_link_create_returned(server):
    created = await create_match(server.base, name="Ann", private=True)
    assert "#join=" in created["invite"]
    with pytest.raises(LobbyError) as exc:  # another match's link: refused
        other = await create_match(server.base, name="Cid", private=True)
        await join_match(server.base, created["match"], "Eve", invite=other["invite"])
    assert exc.value.code == "forbidden"
    joined = await join_match(server.base, created["match"], "Bob", invite=created["invite"])
    assert joined["seat"] == 1
    # The code alone works too (the part after #join=).
    again = await create_match(server.base, name="Dee", private=True)
    code = again["invite"].split("#join=", 1)[1]
    assert (await join_match(server.base, again["match"], "Fay", invite=code))["seat"] == 1


async def test_a_match_needs_its_length_and_other_fields_have_defaults(server):
    with pytest.raises(LobbyError) as exc:
        await create_match(server.base, mode="match")
    assert exc.value.status == 400 and exc.value.code == "bad_field"
    assert "length" in str(exc.value)
    assert (await create_match(server.base, mode="match", length=3))["seat"] == 0
    assert (await create_match(server.base))["seat"] == 0  # everything else is optional


async def test_a_body_that_is_not_json_is_bad_frame(server):
    for data, status, code in ((b"not json", 400, "bad_frame"), (b"[1]", 400, "bad_frame"),
                               (b"{" * 5000, 413, "too_large")):  # fmt: skip
        request = urllib.request.Request(f"{server.base}/api/matches", data=data, method="POST")
        with pytest.raises(urllib.error.HTTPError) as exc:
            await asyncio.to_thread(urllib.request.urlopen, request)
        import json

        assert (exc.value.code, json.loads(exc.value.read())["error"]) == (status, code)


async def test_a_seat_that_joined_but_never_connected_is_not_gone_at_once(server):
    created = await create_match(server.base, name="Ann")
    await join_match(server.base, created["match"], "Bob")
    watcher = await Peer.open(server.ws)
    await watcher.hello(created["match"])
    snapshot = await watcher.next(m.Snapshot)
    assert [s.status for s in snapshot.state.seats] == ["reconnecting", "reconnecting"]
    ann = await Peer.open(server.ws)
    await ann.hello(created["match"], created["token"])
    # Ann came; Bob stays away: after the 1 s of this server he is announced gone, she is not.
    await watcher.wait(
        lambda: any(isinstance(x, m.Presence) and x.status == "gone" for x in watcher.messages)
    )
    presence = [(x.seat, x.status) for x in watcher.messages if isinstance(x, m.Presence)]
    assert presence == [(0, "online"), (1, "gone")]
    await ann.close()
    await watcher.close()
