"""The HTTP side of a real server: health, metrics and the lobby's answers to good and bad input."""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from harness.scripts import load_script
from protocol.client import LobbyError, MatchClient, create_match, join_match, play_random
from protocol.client.lobby import get, get_text


async def test_healthz_reports_redis(server):
    health = await get(server.base, "/healthz")
    assert health["ok"] is True and health["redis"] == "ok" and health["time"] > 0


async def test_metrics_count_moves_connections_and_appends(server):
    created = await create_match(server.base, name="Ann", mode="single_game")
    joined = await join_match(server.base, created["match"], name="Bob")
    a = MatchClient(server.ws, created["match"], created["token"])
    b = MatchClient(server.ws, created["match"], joined["token"])
    async with a, b:
        # The gauge moves just after each welcome is sent: look again for a moment.
        for _ in range(50):
            text = await get_text(server.base, "/metrics")
            if re.search(r'fairgammon_connections\{role="player"\} 2\.0', text):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"two players not counted: {text}")
        await asyncio.gather(play_random(a, random.Random(1)), play_random(b, random.Random(2)))
    text = await get_text(server.base, "/metrics")

    def sample(name: str) -> float:
        return float(re.search(rf"^{name} (\S+)$", text, re.M).group(1))

    moves = sample("fairgammon_moves_total")
    appends = sample("fairgammon_event_append_seconds_count")
    assert moves > 10 and appends > moves
    # The loop's lag is sampled every 0.1 s (server.ops.metrics.watch_loop); the collector's
    # passes are listed by generation from the start, at zero until the first.
    assert sample("fairgammon_loop_lag_seconds_count") >= 1
    for generation in range(3):
        assert sample(f'fairgammon_gc_pause_seconds_count\\{{generation="{generation}"\\}}') >= 0
    # bench/load.py reads the same figures through bench/loadgen/scrape.py.
    read = load_script("bench/loadgen/scrape.py").scrape([server.base])
    assert read["append"].count == appends and read["lag"].count >= 1
    assert read["append"].quantile(0.5) is not None


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"mode": "chess"}, "bad_field"),
        ({"mode": "match", "length": 26}, "bad_field"),
        ({"mode": "match", "length": True}, "bad_field"),
        ({"clock": 2}, "bad_field"),
        ({"reserve": -1}, "bad_field"),
        ({"reserve": 3601}, "bad_field"),
        ({"reserve": 1.5}, "bad_field"),
        ({"reserve": True}, "bad_field"),
        ({"name": "x" * 25}, "bad_field"),
        ({"name": "a\u0007b"}, "bad_field"),
        ({"private": "yes"}, "bad_field"),
    ],
)
async def test_create_refuses_bad_options(server, body, code):
    with pytest.raises(LobbyError) as exc:
        await create_match(server.base, **body)
    assert exc.value.status == 400 and exc.value.code == code


async def test_a_time_reserve_reaches_the_summary_and_the_first_event(server):
    created = await create_match(server.base, name="Ann", mode="match", length=3, reserve=120)
    summary = await get(server.base, f"/api/matches/{created['match']}")
    assert (summary["clock"], summary["reserve"]) == (30, 120)
    async with MatchClient(server.ws, created["match"], created["token"]) as ann:
        await ann.wait_for(lambda t: t.settings is not None)
        assert (ann.tracker.settings.move_time, ann.tracker.settings.reserve) == (30_000, 120_000)
    plain = await create_match(server.base, name="Cid")
    assert (await get(server.base, f"/api/matches/{plain['match']}"))["reserve"] == 0


async def test_private_match_needs_its_invite_and_seats_are_taken_once(server):
    created = await create_match(server.base, name="Ann", mode="match", length=3, private=True)
    match_id = created["match"]
    invite = created["invite"].split("#join=", 1)[1]
    assert created["token"] not in created["invite"]  # tokens never travel in URLs
    with pytest.raises(LobbyError) as exc:
        await join_match(server.base, match_id, "Eve")
    assert exc.value.status == 403 and exc.value.code == "forbidden"
    with pytest.raises(LobbyError):
        await join_match(server.base, match_id, "Eve", invite="wrong-code")
    joined = await join_match(server.base, match_id, "Bob", invite=invite)
    assert joined["seat"] == 1 and joined["token"] != created["token"]
    with pytest.raises(LobbyError) as exc:
        await join_match(server.base, match_id, "Carl", invite=invite)
    assert exc.value.status == 409 and exc.value.code == "seat_taken"
    open_ids = [m["id"] for m in (await get(server.base, "/api/matches?status=open"))["matches"]]
    live_ids = [m["id"] for m in (await get(server.base, "/api/matches?status=live"))["matches"]]
    assert match_id not in open_ids and match_id not in live_ids


async def test_a_private_match_is_never_listed_but_its_watch_link_works(server, redis_url):
    import redis.asyncio as aioredis

    from server.match.store import LIVE_MATCHES, OPEN_MATCHES

    private = await create_match(server.base, name="Ann", mode="match", length=3, private=True)
    public = await create_match(server.base, name="Cid", mode="match", length=3)
    joined = []
    for created, name in ((private, "Bob"), (public, "Dee")):
        invite = created["invite"].split("#join=", 1)[1]
        joined.append(await join_match(server.base, created["match"], name, invite=invite))
    match_id = private["match"]
    # Played: both seats connected, the opening roll played, a spectator by the watch link.
    a = MatchClient(server.ws, match_id, private["token"])
    b = MatchClient(server.ws, match_id, joined[0]["token"])
    watcher = MatchClient(server.ws, match_id)
    async with a, b, watcher:
        await a.wait_for(lambda t: t.turn >= 1)
        await watcher.wait_for(lambda t: t.turn >= 1)
        r = aioredis.from_url(redis_url)
        live = (await get(server.base, "/api/matches?status=live"))["matches"]
        opened = (await get(server.base, "/api/matches?status=open"))["matches"]
        listed = [m["id"] for m in live + opened]
        assert public["match"] in listed  # the positive control: a public live match is
        assert match_id not in listed
        assert await r.zscore(LIVE_MATCHES, match_id) is None
        assert await r.zscore(OPEN_MATCHES, match_id) is None
        # Even a stray index entry (a hint) does not list it: the stored summary decides.
        await r.zadd(LIVE_MATCHES, {match_id: 1})
        live = (await get(server.base, "/api/matches?status=live"))["matches"]
        assert match_id not in [m["id"] for m in live]
        await r.aclose()
    # The watch link is the only way in, and its id is 128 random bits.
    assert re.fullmatch(r"[0-9a-f]{32}", match_id) and private["watch"].endswith(
        f"/m/{match_id}#watch"
    )


async def test_open_matches_are_listed_until_joined(server):
    created = await create_match(server.base, name="Ann")
    listed = (await get(server.base, "/api/matches?status=open"))["matches"]
    assert any(m["id"] == created["match"] and m["names"] == ["Ann", None] for m in listed)
    await join_match(server.base, created["match"], "Bob")
    listed = (await get(server.base, "/api/matches?status=open"))["matches"]
    assert all(m["id"] != created["match"] for m in listed)


async def test_unknown_and_malformed_match_ids_are_404(server):
    for path in ("/api/matches/" + "0" * 32, "/api/matches/nothex", "/api/matches/../etc"):
        with pytest.raises(LobbyError) as exc:
            await get(server.base, path)
        assert exc.value.status == 404
    with pytest.raises(LobbyError) as exc:
        await join_match(server.base, "f" * 32, "Bob")
    assert exc.value.status == 404


async def test_oversized_and_non_json_bodies_are_refused(server):
    import urllib.error
    import urllib.request

    for data, status in ((b"{" * 5000, 413), (b"not json", 400), (b"[1, 2]", 400)):
        request = urllib.request.Request(f"{server.base}/api/matches", data=data, method="POST")
        with pytest.raises(urllib.error.HTTPError) as exc:
            await asyncio.to_thread(urllib.request.urlopen, request)
        assert exc.value.code == status


async def test_stale_lobby_entries_are_not_listed_and_are_dropped(server, redis_url):
    import redis.asyncio as aioredis

    from server.match.store import LIVE_MATCHES, OPEN_MATCHES

    created = await create_match(server.base, name="Ann")
    await join_match(server.base, created["match"], "Bob")
    # What a crash between storing the join and updating the indexes leaves behind:
    r = aioredis.from_url(redis_url)
    await r.zadd(OPEN_MATCHES, {created["match"]: 1})
    await r.zadd(LIVE_MATCHES, {"f" * 32: 1})  # a match that does not exist
    listed = (await get(server.base, "/api/matches?status=open"))["matches"]
    assert all(m["id"] != created["match"] for m in listed)
    assert await r.zscore(OPEN_MATCHES, created["match"]) is None
    live = (await get(server.base, "/api/matches?status=live"))["matches"]
    assert [m["id"] for m in live] == [created["match"]]
    assert await r.zscore(LIVE_MATCHES, "f" * 32) is None
    await r.aclose()
