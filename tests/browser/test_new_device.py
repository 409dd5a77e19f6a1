"""A seat opened on a new device mid-game (through the seat link of the match panel), in
Chromium against a real server and Redis: the new browser has no dice secret, re-commits a
fresh chain between rolls (docs/fairness.md, section 7), reveals from it (also after a
reload), and the game is played to its end with every roll verified; the finished game's
transcript verifies with the Python verifier, the CLI and the browser's verify view."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

from playwright.async_api import Page

from harness.browser import PHONE, ROOT
from protocol.fairdice import verify_json
from tests.browser.conftest import NetPages
from tests.browser.net_support import Seat, create_match, join_match, play, to_play, view

# Every notice a page shows, kept in window.notices (set up before the page's own scripts).
KEEP_NOTICES = """
Object.defineProperty(window, 'fairgammon', {
  configurable: true,
  get() { return this.__fairgammon; },
  set(value) {
    this.__fairgammon = value;
    window.notices = window.notices || [];
    value.session.subscribe(() => {
      const n = value.game.current().notice;  // as the board shows it
      if (n && window.notices[window.notices.length - 1] !== n.text) window.notices.push(n.text);
    });
  },
});
"""

NEW_CHAIN = "New dice chain committed for this device"


async def notices(page: Page) -> list[str]:
    return await page.evaluate("window.notices || []")


async def test_a_seat_opened_on_a_new_device_recommits_and_plays_to_the_end(
    net: NetPages, tmp_path: Path
) -> None:
    ann_page = await net.new(who="Ann")
    bob_page = await net.new(PHONE, who="Bob")
    for page in (ann_page, bob_page):
        await page.context.add_init_script(KEEP_NOTICES)
    match_id, invite, _ = await create_match(ann_page, net.base, "Ann", "single_game", clock=60)
    await join_match(bob_page, invite, "Bob")
    ann, bob = Seat(ann_page), Seat(bob_page)

    # A few turns, until Bob is to move.
    await play([ann, bob], lambda vs: ann.turns + bob.turns >= 3 and to_play(vs[1], 1))
    assert (await view(bob_page))["phase"] == "moving"
    record = await bob_page.evaluate(f"localStorage.getItem('fairgammon.seat.{match_id}')")
    assert json.loads(record)["seat"] == 1
    secrets = await bob_page.evaluate(
        "Object.keys(localStorage).filter(k => k.startsWith('fairgammon.chain.'))"
    )
    assert secrets == [f"fairgammon.chain.{match_id}.1.1"]

    # Bob opens his seat on his phone: a fresh browser context, no storage but the seat.
    phone_page = await net.new(PHONE, who="Bob's phone")
    await phone_page.context.add_init_script(KEEP_NOTICES)
    # The seat link from Bob's match panel ("Play on another device").
    await bob_page.click("details.seat-move summary")
    link = await bob_page.locator(".seatlink input").input_value()
    assert link == f"{net.base}/m/{match_id}#seat=1.{json.loads(record)['token']}"
    await phone_page.goto(link)
    await phone_page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    assert phone_page.url == f"{net.base}/m/{match_id}"  # the token left the address bar
    assert (await view(phone_page))["viewer"] == 1
    # The page that had the seat is replaced; the phone re-commits between rolls, by itself.
    await phone_page.wait_for_function(
        "window.fairgammon.session.tracker.recommits[1] === 1"
        " && window.fairgammon.session.holdsChain() === true",
        timeout=10_000,
    )
    assert NEW_CHAIN in await notices(phone_page)
    await bob_page.wait_for_function("window.fairgammon.session.link === 'closed'")
    stored = json.loads(
        await phone_page.evaluate(f"localStorage.getItem('fairgammon.chain.{match_id}.1.1')")
    )
    k0 = stored["from"]
    assert stored["n"] == 1 and k0 > 1 and len(stored["secret"]) == 64
    moved = f"Bob continues on another device or browser: a new dice commitment from roll {k0}"
    assert any(n.startswith(moved) for n in await notices(ann_page))
    assert not any("lost" in n for n in await notices(ann_page))
    # The fairness panels list it too (for the opponent: the link it published).
    for page in (ann_page, phone_page):
        await page.wait_for_function(
            f"document.querySelector('details.fairness').textContent"
            f".includes('Re-committed: Bob from roll #{k0} (')"
        )

    # Several rolls on the new chain; then the phone reloads and carries on from storage.
    phone = Seat(phone_page)
    await play([ann, phone], lambda vs: phone.turns >= 3 and to_play(vs[1], 1))
    await phone_page.reload()
    await phone_page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    await phone_page.wait_for_function("window.fairgammon.session.holdsChain() === true")

    # Play to the end: nobody forfeits for want of a reveal, every roll verifies.
    end = await play([ann, phone], lambda vs: all(v["phase"] == "gameover" for v in vs), 300)
    assert end["result"]["reason"] in ("single", "gammon", "backgammon"), end["result"]
    for page in (ann_page, phone_page):
        checks = (await view(page))["rolls"]
        assert checks and set(checks) == {"verified"}, checks
        assert await page.evaluate("window.fairgammon.session.tracker.recommits") == [0, 1]
    assert NEW_CHAIN not in await notices(phone_page), "no second re-commitment after the reload"
    assert len(checks) - k0 + 1 >= 6, "rolls revealed from the new chain"

    # The finished game's transcript verifies: the Python verifier and `fairgammon verify`.
    url = f"{net.base}/api/matches/{match_id}/games/1/transcript.json"
    with urllib.request.urlopen(url) as r:
        text = r.read().decode()
    transcript = json.loads(text)
    assert [(x["seat"], x["applies_from"]) for x in transcript["recommitments"]] == [(1, k0)]
    assert transcript["result"]["reason"] == "bear_off"
    verdict = verify_json(text)
    assert verdict.recommitments == 1 and verdict.rolls == len(checks)
    path = tmp_path / "transcript.json"
    path.write_text(text)
    cli = subprocess.run(
        [sys.executable, "-m", "server.cli", "verify", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert cli.returncode == 0, cli.stdout + cli.stderr
    assert cli.stdout.startswith("verified:"), cli.stdout
    # And in the browser's verify view.
    await ann_page.goto(f"{net.base}/verify?match={match_id}")
    await ann_page.locator(".verdict h2").wait_for()
    assert await ann_page.locator(".verdict h2").inner_text() == "✓ Game 1: verified"
