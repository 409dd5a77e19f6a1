"""The networked client in Chromium against a real server and Redis: whole games by clicks,
spectators from the start and joining late, a reload mid-turn, a loss on time, the cube
(double, take, later a drop) by keys, a server restart, and screenshots."""

from __future__ import annotations

import dataclasses
import json
import re
import urllib.request

from playwright.async_api import WebSocketRoute

from harness.browser import DESKTOP, PHONE, SCREENSHOTS
from protocol import events as pe
from protocol.codec import decode_from_server, encode
from tests.browser.conftest import NetPages
from tests.browser.net_support import (
    Seat,
    ask_for_rematch,
    create_match,
    join_match,
    on_bar,
    play,
    to_play,
    view,
)


async def test_a_whole_game_by_clicks_with_spectators_and_a_reload(net: NetPages) -> None:
    ann_page = await net.new(DESKTOP, who="Ann")
    bob_page = await net.new(PHONE, who="Bob")
    early = await net.new(DESKTOP, who="early spectator")
    match_id, invite, watch = await create_match(ann_page, net.base, "Ann", "single_game")

    # A spectator from the start sees the waiting table; the invite is not theirs to see.
    await early.goto(watch)
    await early.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    assert (await view(early))["phase"] == "waiting"
    await early.locator(".invite h2", has_text="Waiting for a second player").wait_for()
    assert await early.locator(".invite .invitelink").count() == 0
    assert await early.locator(".badge.spectating").is_visible()

    await join_match(bob_page, invite, "Bob")
    assert "#join" not in bob_page.url  # the invite code left the address bar
    ann, bob = Seat(ann_page), Seat(bob_page)
    # The game starts by itself: commitments, roll-off, the first move.
    first = await play([ann, bob], lambda vs: vs[0].get("phase") in ("moving", "decide", "rolling"))
    assert first["players"][1]["name"] == "Bob"
    await ann_page.wait_for_function("window.fairgammon.game.current().spectators === 1")
    assert await ann_page.locator(".badge.watchers").inner_text() == "1 watching"

    # A few turns; then, while Ann thinks, a second spectator joins and sees the same position
    # at once (and the dice Ann has to play).
    await play([ann, bob], lambda vs: ann.turns + bob.turns >= 6 and to_play(vs[0], 0))
    players = await view(ann_page)
    late = await net.new(PHONE, who="late spectator")
    await late.goto(watch)
    await late.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    mid = await view(late)
    assert mid["viewer"] is None and mid["version"] == players["version"] > 20
    assert (mid["boards"], mid["dice"]["values"]) == (players["boards"], players["dice"]["values"])
    await ann_page.wait_for_function("window.fairgammon.game.current().spectators === 2")
    assert await late.locator(".movelist button.opt").count() == 0
    assert await late.locator("button.roll").is_hidden()

    # Bob reloads in the middle of his turn (one checker moved, not sent) and carries on.
    await play([ann, bob], lambda vs: vs[1]["phase"] == "moving" and vs[1]["turn"] == 1
               and not vs[1]["pending"] and vs[1]["dice"] is not None)  # fmt: skip
    before = await view(bob_page)
    labels = await bob.labels()
    if labels:
        option = bob_page.locator('.movelist button.opt[data-index="0"]')
        await option.click()
        await option.click()
    await bob_page.reload()
    await bob_page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    after = await view(bob_page)
    assert after["viewer"] == 1, "the reload returned to the same seat"
    assert after["dice"]["values"] == before["dice"]["values"]
    assert after["boards"] == before["boards"], "the unsent step is not on the board"
    assert after["phase"] == "moving"

    # Play to the end.
    end = await play([ann, bob], lambda vs: all(v["phase"] == "gameover" for v in vs), 240)
    result = end["result"]
    assert result["reason"] in ("single", "gammon", "backgammon")
    assert result["matchOver"] is True
    winner = end["players"][result["winner"]]["name"]
    winner_page = (ann_page, bob_page)[result["winner"]]
    loser_page = (ann_page, bob_page)[1 - result["winner"]]
    for page in (ann_page, bob_page, early, late):
        await page.locator(".result h2").wait_for()
        # Each player reads the result in the second person; a spectator reads the winner's name.
        said = {winner_page: "You win", loser_page: "You lose"}.get(page, f"{winner} wins")
        assert (await page.locator(".result h2").inner_text()).startswith(said)
    # Every roll was verified live, by the players and by both spectators (the late one from
    # the whole log), and nobody was refused anything.
    for page in (ann_page, bob_page, early, late):
        checks = (await view(page))["rolls"]
        assert checks and set(checks) == {"verified"}, checks
    assert await ann_page.locator(".result a", has_text="Verify the dice").count() == 1
    assert await early.locator(".result button.next").count() == 0  # no rematch for spectators

    # The game's transcript verifies in the browser's verify view.
    await late.goto(f"{net.base}/verify?match={match_id}")
    await late.locator(".verdict h2").wait_for()
    assert await late.locator(".verdict h2").inner_text() == "✓ Game 1: verified"
    with urllib.request.urlopen(f"{net.base}/api/matches/{match_id}") as r:
        assert json.loads(r.read())["winner"] == result["winner"]


async def test_a_short_clock_ends_on_time_on_both_pages(net: NetPages) -> None:
    ann_page = await net.new(who="Ann")
    bob_page = await net.new(PHONE, who="Bob")
    match_id, invite, _ = await create_match(ann_page, net.base, "Ann", "match", length=3, clock=5)
    await join_match(bob_page, invite, "Bob")
    # Nobody moves: the roll-off winner's 5-second clock runs out.
    for page in (ann_page, bob_page):
        await page.wait_for_function(
            "window.fairgammon.game.current().phase === 'gameover'", timeout=20_000
        )
    for page in (ann_page, bob_page):
        v = await view(page)
        assert v["result"]["reason"] == "timeout"
        assert v["result"]["matchOver"] is True
        mine = v["result"]["winner"] == v["viewer"]  # your own result speaks to you
        expected = "You win on time" if mine else "You lost on time"
        assert await page.locator(".result h2").inner_text() == expected
    assert (await view(ann_page))["result"] == (await view(bob_page))["result"]

    # Rematch: a new match with the same settings, offered to Bob (tests/browser/test_rematch.py
    # follows the offer further).
    rematch = await ask_for_rematch(ann_page, net.base, match_id)
    await ann_page.locator(".invite .rematch-wait").wait_for()
    await bob_page.locator(".rematch-offer button.accept-rematch").wait_for()
    with urllib.request.urlopen(f"{net.base}/api/matches/{rematch}") as r:
        summary = json.loads(r.read())
    assert (summary["mode"], summary["length"], summary["clock"]) == ("match", 3, 5)
    assert summary["names"] == ["Ann", None]


async def test_the_time_reserve_runs_after_the_move_clock_on_both_pages(net: NetPages) -> None:
    ann_page = await net.new(who="Ann")
    bob_page = await net.new(PHONE, who="Bob")
    match_id, invite, _ = await create_match(
        ann_page, net.base, "Ann", "match", length=3, clock=5, reserve=60
    )
    with urllib.request.urlopen(f"{net.base}/api/matches/{match_id}") as r:
        assert json.loads(r.read())["reserve"] == 60
    await bob_page.goto(invite)
    sub = await bob_page.locator(".join-card .sub").inner_text()
    assert sub == "Match to 3 · 5 s per move + 1 min reserve"
    await join_match(bob_page, invite, "Bob")
    pages = (ann_page, bob_page)
    for page in pages:
        await page.wait_for_function("window.fairgammon.game.current().phase === 'moving'")
    mover = (await view(ann_page))["turn"]
    other = 1 - mover

    def clock(page, seat: int):
        return page.locator(f".player[data-seat='{seat}'] .clock")

    # The roll-off winner's 5 seconds run, each player's reserve shown under the clock.
    for page in pages:
        for seat in (0, 1):
            await page.wait_for_function(
                f"document.querySelector(\".player[data-seat='{seat}'] .clock .reserve\")"
                "?.textContent === '+1:00'"
            )
    # Then the mover's reserve runs, on both pages (the clock says so, in its own colour).
    for page in pages:
        await clock(page, mover).and_(page.locator(".in-reserve")).wait_for(timeout=15_000)
        assert await clock(page, mover).locator(".reserve").inner_text() == "reserve"
        assert re.fullmatch(r"0:5\d|1:00", await clock(page, mover).locator(".time").inner_text())
        assert await clock(page, other).locator(".reserve").inner_text() == "+1:00"
    await ann_page.screenshot(path=SCREENSHOTS / "reserve-running-1440x900.png")
    await bob_page.screenshot(path=SCREENSHOTS / "reserve-running-390x844.png")

    # The mover plays once two seconds of its reserve are gone (the clocks show whole seconds,
    # rounded up: a move within a second of the reserve still shows "+1:00", seen in a full
    # run): what it used is gone from its reserve, on both pages and the server's.
    await pages[mover].wait_for_function(
        f"document.querySelector(\".player[data-seat='{mover}'] .clock .time\")"
        "?.textContent <= '0:58'"
    )
    await Seat(pages[mover]).play_turn()
    for page in pages:
        await page.wait_for_function(
            f"window.fairgammon.game.current().turn === {other}"
            " && window.fairgammon.game.current().phase === 'decide'"
        )
        await clock(page, other).and_(page.locator(".running")).wait_for()
        left = await clock(page, mover).locator(".reserve").inner_text()
        assert re.fullmatch(r"\+0:5\d", left), left
        assert await clock(page, other).locator(".reserve").inner_text() == "+1:00"
        assert await clock(page, mover).get_attribute("class") == "clock"  # stopped, not low


async def test_cube_double_take_then_drop_by_keys_in_a_match_to_3(net: NetPages) -> None:
    """Ann plays by keys only (arrows, Enter, B, O, D, Shift+D, E), Bob by clicks. The first
    one to decide doubles and the other takes; play goes on, hits sought, until a checker is
    on the bar (screenshots then); the cube owner redoubles and the other drops."""
    ann_page = await net.new(DESKTOP, who="Ann")
    bob_page = await net.new(DESKTOP, who="Bob")
    _, invite, _ = await create_match(ann_page, net.base, "Ann", "match", length=3, clock=60)
    await join_match(bob_page, invite, "Bob")
    ann = Seat(ann_page, keyboard=True, prefer_hits=True, double_next=True)
    bob = Seat(bob_page, prefer_hits=True, double_next=True)
    seats = [ann, bob]

    v = await play(seats, lambda vs: vs[0].get("cube", {}).get("owner") is not None)
    ann.double_next = bob.double_next = False
    owner = v["cube"]["owner"]
    assert v["cube"]["value"] == 2
    assert ann.turns > 0 or bob.turns > 0

    # Mid-game, the cube turned, Ann to play (a hit checker on the bar if the dice gave one
    # soon); shoot her board. Waiting for a checker on the bar could outlast the game: a game
    # that ended meanwhile would leave the rest of this test in the Crawford game, cubeless.
    turned_at = v["version"]

    def ann_to_play(vs: list[dict]) -> bool:
        v = vs[0]
        ready = v["phase"] == "moving" and v["turn"] == 0 and not v["pending"]
        return ready and v["cube"].get("owner") is not None

    def ann_to_play_with_a_checker_on_the_bar(vs: list[dict]) -> bool:
        return ann_to_play(vs) and (on_bar(vs[0]) or vs[0]["version"] > turned_at + 40)

    await play(seats, ann_to_play_with_a_checker_on_the_bar, timeout=180)
    await ann_page.evaluate("document.activeElement && document.activeElement.blur()")
    await ann_page.wait_for_function("!document.querySelector('.toast.show')", timeout=5000)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, size in (("390x844", PHONE), ("1440x900", DESKTOP)):
        await ann_page.set_viewport_size(size)
        await ann_page.wait_for_timeout(150)
        await ann_page.screenshot(path=SCREENSHOTS / f"net-board-{name}.png")
        assert await ann_page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    await ann_page.emulate_media(color_scheme="dark")
    await ann_page.screenshot(path=SCREENSHOTS / "net-board-dark-1440x900.png")
    await ann_page.emulate_media(color_scheme="light")
    assert await ann_page.locator("svg.board .cube").get_attribute("aria-label") in (
        "cube 2, owned by Ann",
        "cube 2, owned by Bob",
    )

    # The owner redoubles at its next decision; the other drops: the owner wins 2 points.
    seats[owner].double_next = True
    seats[1 - owner].drop_next = True
    end = await play(seats, lambda vs: all(x["phase"] == "gameover" for x in vs), timeout=180)
    result = end["result"]
    assert (result["winner"], result["reason"], result["points"]) == (owner, "drop", 2)
    assert result["matchOver"] is False
    score = [0, 0]
    score[owner] = 2
    assert result["score"] == score
    for seat, page in enumerate((ann_page, bob_page)):
        said = "You win: the double was dropped" if seat == owner else "You dropped the double"
        assert await page.locator(".result h2").inner_text() == said
        assert (
            await page.locator(".matchbox .score").inner_text()
            == f"Ann {score[0]} – {score[1]} Bob"
        )

    # Next game: the Crawford game, without a cube.
    for page in (ann_page, bob_page):
        await page.click(".result button.next")
    for page in (ann_page, bob_page):
        await page.wait_for_function(
            "window.fairgammon.game.current().match.gameNo === 2"
            " && window.fairgammon.game.current().match.crawford",
            timeout=15_000,
        )
        await page.locator(".badge.crawford").wait_for()
    v = await view(ann_page)
    assert v["cube"]["enabled"] is False and v["cube"]["value"] == 1
    assert ann.turns >= 2, "Ann played her turns by keys"


async def test_a_server_restart_shows_the_offline_banner_and_play_resumes(
    net: NetPages, server
) -> None:
    net.tolerate_network_errors = True  # the browser logs the refused reconnection attempts
    ann_page = await net.new(who="Ann")
    bob_page = await net.new(PHONE, who="Bob")
    _, invite, _ = await create_match(ann_page, net.base, "Ann", "single_game", clock=60)
    await join_match(bob_page, invite, "Bob")
    ann, bob = Seat(ann_page), Seat(bob_page)
    await play([ann, bob], lambda vs: ann.turns + bob.turns >= 2)
    before = await view(ann_page)
    server.stop()
    for page in (ann_page, bob_page):
        banner = page.locator(".banner.offline")
        await banner.wait_for(state="visible", timeout=10_000)
        assert "Offline" in await banner.inner_text()
    server.start()
    for page in (ann_page, bob_page):
        await page.locator(".banner.offline").wait_for(state="hidden", timeout=20_000)
        await page.wait_for_function(
            "window.fairgammon.session.link === 'online' && window.fairgammon.session.caughtUp"
        )
    turns = ann.turns + bob.turns
    after = await play([ann, bob], lambda vs: ann.turns + bob.turns >= turns + 2)
    assert after["version"] > before["version"]
    for page in (ann_page, bob_page):
        # Resumed from the last version: no gap, nothing applied twice, every roll verified.
        assert await page.evaluate("window.fairgammon.session.tracker.gaps") == 0
        assert set((await view(page))["rolls"]) == {"verified"}

    # Bob's page goes away while he owes a move: Ann sees him reconnecting, with the time left
    # before he forfeits; he comes back to the same seat.
    await play([ann, bob], lambda vs: to_play(vs[1], 1))
    url = bob_page.url
    await bob_page.goto("about:blank")
    presence = ann_page.locator(".player.top .presence")
    await presence.filter(has_text="forfeits in").wait_for(timeout=10_000)
    assert re.fullmatch(r"reconnecting · forfeits in [01]:\d\d", await presence.inner_text())
    await bob_page.goto(url)
    await bob_page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    assert (await view(bob_page))["viewer"] == 1
    await presence.filter(has_text="online").wait_for(timeout=10_000)

    # Ann offers to resign a single game; Bob rejects, then accepts a second offer.
    await play([ann, bob], lambda vs: to_play(vs[0], 0))
    await ann_page.click("details.more summary")
    await ann_page.click("details.more button.resign-1")
    # Resigning asks first; nothing is offered before the confirmation.
    assert "Resign a single game?" in await ann_page.locator(".resign-ask").inner_text()
    await ann_page.click(".resign-ask button.confirm-resign")
    await bob_page.locator(".offer button.reject").click()
    await ann_page.wait_for_function("window.fairgammon.game.current().offer === null")
    await play([ann, bob], lambda vs: to_play(vs[0], 0))
    # A gammon while Ann may still lose one; once she has borne a checker off (the dice decide
    # how far the game got: a suite run once reached that), only a single game is offered.
    levels = await ann_page.evaluate("window.fairgammon.game.current().resignLevels")
    level, words = (2, "a gammon") if 2 in levels else (1, "a single game")
    if level == 1:
        assert await ann_page.locator("details.more button.resign-2").is_hidden()
    await ann_page.click("details.more summary")
    await ann_page.click(f"details.more button.resign-{level}")
    await ann_page.click(".resign-ask button.confirm-resign")
    offer = bob_page.locator(".offer")
    await offer.locator("button.accept").wait_for()
    assert f"offers to resign {words}" in await offer.inner_text()
    await offer.locator("button.accept").click()
    headlines = ((ann_page, "You resigned"), (bob_page, "You win by resignation"))
    for page, headline in headlines:
        await page.locator(".result h2").wait_for()
        assert await page.locator(".result h2").inner_text() == headline
    assert (await view(ann_page))["result"]["points"] == level


async def test_a_tampered_roll_raises_the_alarm(net: NetPages) -> None:
    """A spectator whose connection changes one die of a turn roll (as a lying server would)
    sees the alarm; the players, who got the true dice, see every roll verified."""
    ann_page = await net.new(who="Ann")
    bob_page = await net.new(who="Bob")
    watcher = await net.new(PHONE, who="spectator")
    _, invite, watch = await create_match(ann_page, net.base, "Ann", "single_game", clock=60)
    tampered: list[int] = []

    async def lie(route: WebSocketRoute) -> None:
        server = route.connect_to_server()

        def from_server(message: str | bytes) -> None:
            if isinstance(message, bytes) and not tampered:
                msg = decode_from_server(message)
                data = getattr(msg, "data", None)
                if isinstance(data, pe.Dice) and data.kind == "turn":
                    tampered.append(data.k)
                    forged = dataclasses.replace(data, d1=data.d1 % 6 + 1)
                    message = encode(dataclasses.replace(msg, data=forged))
            route.send(message)

        server.on_message(from_server)

    await watcher.route_web_socket(re.compile(r".*/ws$"), lie)
    await watcher.goto(watch)
    await join_match(bob_page, invite, "Bob")
    ann, bob = Seat(ann_page), Seat(bob_page)
    await play([ann, bob], lambda vs: ann.turns + bob.turns >= 3 and bool(tampered))
    alarm = watcher.locator(".banner.alarm")
    await alarm.wait_for(timeout=10_000)
    k = tampered[0]
    assert f"roll {k}: announced" in await alarm.inner_text()
    assert (await view(watcher))["rolls"][k - 1] == "alarm"
    assert await watcher.locator(".fairness .rolls li.alarm").count() == 1
    for page in (ann_page, bob_page):
        assert set((await view(page))["rolls"]) == {"verified"}
        assert await page.locator(".banner.alarm").is_hidden()
