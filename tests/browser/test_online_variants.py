"""A variant online, between two browsers on a real server (protocol version 5): the lobby's
form creates a plakoto game (the summary names its variant), the other player joins from a
360 px phone, and both pages play it through the page's own game
(`window.fairgammon.game`: the legal plays of the dice on screen, sent as any play is) while the
seat cores roll by themselves (no cube in plakoto) until a checker is pinned, then one resigns
and the other accepts; both boards draw the pinned checker under its pinner, the header names
the game, and both pages agree on the result; /verify checks the game's dice and plays, and the
replay starts from plakoto's position."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.request

from harness.browser import DESKTOP, SCREENSHOTS
from tests.browser.conftest import NetPages
from tests.browser.net_support import join_match, same_host

PHONE_360 = {"width": 360, "height": 780}

# Play this page's turns until the game is over, noting the pinned checkers drawn meanwhile:
# once this page's board shows a pinned checker (and ten plays were made), it resigns a single
# game on its next turn, and the other page accepts (the board keeps the pin on show).
PLAY_MINE = """async () => {
  const g = window.fairgammon.game;
  const drawn = () => document.querySelectorAll('svg.board .checker.pinned').length;
  let pinned = 0, plays = 0, resigned = false;
  for (let i = 0; i < 40000; i++) {
    const v = g.current();
    if (v.phase === 'gameover' && v.result) {
      return { result: v.result, pinned, plays, resigned, variant: v.variant, atEnd: drawn() };
    }
    const pins = v.pinned && (v.pinned[0] || v.pinned[1]);
    if (pins) pinned = Math.max(pinned, drawn());
    if (v.phase === 'offer' && v.offer && v.offer.kind === 'resign' && v.offer.by !== v.viewer) {
      g.acceptResign();
    } else if (v.phase === 'moving' && v.viewer === v.turn && !v.pending) {
      if (pins && pinned > 0 && plays >= 10 && !resigned) {
        g.resign(1);
        resigned = true;
      } else {
        const legal = g.legalPlays();
        if (legal.length) {
          g.play(legal[0]);
          plays++;
        }
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
    # No money session without a cube; the computer offers its plakoto levels only.
    assert await ann.locator("#mode-money").is_disabled()
    assert await ann.locator("#level-hard").is_disabled()
    assert not await ann.locator("#level-easy").is_disabled()
    # ... and says plainly that a hand-written heuristic plays it (backgammon's nets do not).
    said = await ann.locator(".bot-heuristic").inner_text()
    assert "Plakoto" in said and "rule of thumb" in said, said
    await ann.select_option("select[name=variant]", "backgammon")
    assert await ann.locator(".bot-heuristic").is_hidden()
    await ann.select_option("select[name=variant]", "plakoto")
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
    if ann_end["resigned"] or bob_end["resigned"]:
        # Resigned with a pin on show: both boards draw it under its pinner at the end.
        assert result["reason"] == "resign" and result["points"] == 1
        assert ann_end["atEnd"] > 0 and bob_end["atEnd"] > 0
    else:  # (no pin before the end: rare) the game played out
        assert result["points"] in (0, 1, 2)
        assert ann_end["pinned"] > 0 or bob_end["pinned"] > 0
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
