"""A variant online, between two browsers on a real server (protocol version 5): the lobby's
form creates a plakoto game (the summary names its variant), the other player joins from a
360 px phone, and both pages play it to its end through the page's own game
(`window.fairgammon.game`: the legal plays of the dice on screen, sent as any play is) while the
seat cores roll by themselves (no cube in plakoto); both boards draw the pinned checkers under
their pinners, the header names the game, and both pages agree on the result; /verify checks
the game's dice and plays, and the replay starts from plakoto's position."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.request

from harness.browser import DESKTOP, SCREENSHOTS
from tests.browser.conftest import NetPages
from tests.browser.net_support import join_match, same_host

PHONE_360 = {"width": 360, "height": 780}

# Play this page's turns until the game is over, noting the pinned checkers drawn meanwhile.
PLAY_MINE = """async () => {
  const g = window.fairgammon.game;
  let pinned = 0, plays = 0, shot = false;
  for (let i = 0; i < 40000; i++) {
    const v = g.current();
    if (v.phase === 'gameover' && v.result) {
      return { result: v.result, pinned, plays, variant: v.variant };
    }
    if (v.pinned && (v.pinned[0] || v.pinned[1])) {
      pinned = Math.max(pinned, document.querySelectorAll('svg.board .checker.pinned').length);
    }
    if (v.phase === 'moving' && v.viewer === v.turn && !v.pending) {
      const legal = g.legalPlays();
      if (legal.length) {
        g.play(legal[0]);
        plays++;
      }
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  return null;
}"""


async def test_a_plakoto_game_online_between_two_browsers(net: NetPages) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    ann = await net.new(DESKTOP, who="Ann")
    bob = await net.new(PHONE_360, who="Bob")
    await ann.goto(f"{net.base}/")
    await ann.fill("input[name=name]", "Ann")
    await ann.select_option("select[name=variant]", "plakoto")
    # No money session without a cube.
    assert await ann.locator("#mode-money").is_disabled()
    await ann.click("label[for=mode-single_game]")
    await ann.click("button.create")
    await ann.wait_for_url(re.compile(r".*/m/[0-9a-f]{32}$"))
    await ann.wait_for_selector(".invite:not([hidden])")
    match_id = ann.url.rsplit("/", 1)[1]
    invite = same_host(await ann.input_value(".invite .invitelink input"), net.base)
    with urllib.request.urlopen(f"{net.base}/api/matches/{match_id}") as response:
        assert json.load(response)["variant"] == "plakoto"

    await join_match(bob, invite, "Bob")
    for page in (ann, bob):
        await page.wait_for_function(
            "window.fairgammon.game.current().variant === 'plakoto'"
        )
    header = await bob.locator(".matchinfo").first.text_content()
    assert "Plakoto" in header, header

    ann_end, bob_end = await asyncio.gather(ann.evaluate(PLAY_MINE), bob.evaluate(PLAY_MINE))
    assert ann_end is not None and bob_end is not None, "the game did not end"
    print(f"\nplakoto online: {ann_end['plays']} + {bob_end['plays']} plays, {ann_end['result']}")
    assert ann_end["variant"] == bob_end["variant"] == "plakoto"
    assert ann_end["result"]["winner"] == bob_end["result"]["winner"]
    result = bob_end["result"]
    if result["winner"] is None:
        assert result["reason"] == "mothers" and result["points"] == 0
    else:
        assert result["points"] in (1, 2)
    # Plakoto pins: both boards drew a pinned checker under its pinner at some point.
    assert ann_end["pinned"] > 0 and bob_end["pinned"] > 0
    status = await bob.locator(".status").first.text_content()
    assert status and status.strip()
    await bob.screenshot(path=SCREENSHOTS / "online-plakoto-over-360.png")
    width = await bob.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert width <= 0, f"the phone page is {width} px too wide"

    # The dice of the game verify on /verify (the plays replayed by plakoto's rules), and the
    # replay draws the game from plakoto's start.
    await ann.goto(f"{net.base}/verify?match={match_id}")
    await ann.wait_for_selector(".verdict.ok")
    await ann.goto(f"{net.base}/m/{match_id}/replay/1")
    await ann.wait_for_selector("svg.board .checker")
    assert await ann.evaluate("window.fairgammon.replay.steps") > ann_end["plays"]
    await ann.evaluate("window.fairgammon.replay.go(0)")
    # Plakoto's start: fifteen a side in one stack each (a count on the top checker).
    counts = await ann.locator("svg.board .checker .count").all_text_contents()
    assert counts == ["15", "15"], counts
