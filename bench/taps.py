"""Taps per turn over whole hot-seat games in Chromium, with the default play feel.

    .venv/bin/python bench/taps.py [--games 5] [--strategy furthest|random] [--seed 15]

Needs a built client (scripts/build-web.sh). Both players tap a movable checker (the furthest
back, or a random one) until each game is over; the turn goes out by itself and the dice roll
by themselves (money session: the cube stays centred, so every turn has a cube question). Prints
per game and in total: turns, taps, taps per turn, and what the same plays would have cost with
select-then-destination input, End turn and Roll (2 taps a step + 1 + 1 per cube question).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import json
import random
import sys
import threading
import time
from pathlib import Path

from playwright.async_api import async_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.browser import CHROMIUM, CHROMIUM_ARGS, DESKTOP, DIST, NEXT_TAP  # noqa: E402


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


async def one_game(browser, base: str, strategy: str, rng: random.Random) -> tuple[int, int, int]:
    """(turns, taps, cube questions) of one whole game."""
    context = await browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    settings = json.dumps({"pauseMs": 40})
    await context.add_init_script(
        f"localStorage.setItem('fairgammon.settings.v1', JSON.stringify({settings}))"
    )
    page = await context.new_page()
    await page.goto(f"{base}/demo.html?mode=money&clock=0")
    await page.wait_for_selector("svg.board .checker")
    centre: dict[int, tuple[float, float]] = {}
    for rect in await page.locator("rect.hit").all():
        box = await rect.bounding_box()
        assert box is not None
        place = int(await rect.get_attribute("data-place") or -1)
        centre[place] = (box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.75)
    turns = taps = decisions = 0
    seen: set[tuple[int, int]] = set()
    while True:
        s = await page.evaluate(NEXT_TAP)
        decisions += s["decisions"]
        if s["phase"] == "gameover":
            break
        if (s["k"], s["turn"]) not in seen:
            seen.add((s["k"], s["turn"]))
            turns += 1
        movable = s["movable"]
        place = movable[0] if strategy == "furthest" else rng.choice(movable)
        await page.mouse.click(*centre[place])
        taps += 1
    await context.close()
    return turns, taps, decisions


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--strategy", choices=("furthest", "random"), default="furthest")
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    if not (DIST / "demo.html").exists():
        sys.exit("web-client/dist is missing: run scripts/build-web.sh")
    handler = functools.partial(_Quiet, directory=str(DIST))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    rng = random.Random(args.seed)
    total = [0, 0, 0]
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for n in range(1, args.games + 1):
            started = time.monotonic()
            turns, taps, decisions = await one_game(browser, base, args.strategy, rng)
            classic = 2 * taps + turns + decisions
            print(
                f"game {n}: {turns} turns, {taps} taps, {taps / turns:.2f} a turn"
                f" (classic {classic / turns:.2f}) in {time.monotonic() - started:.0f} s",
                flush=True,
            )
            total = [total[0] + turns, total[1] + taps, total[2] + classic]
        await browser.close()
    server.shutdown()
    turns, taps, classic = total
    print(f"all {args.games} games: {taps / turns:.2f} taps a turn (classic {classic / turns:.2f})")


if __name__ == "__main__":
    asyncio.run(main())
