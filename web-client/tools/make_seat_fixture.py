"""Write the seat-core conversation fixture, from the Python core against the real machine.

``web-client/test/fixtures/seat-conversations.json`` holds conversations of one seat core
(``protocol.client.seat``) with the real, pure match machine (``server.machine``, driven by
``harness/seat_harness.py``): every input the core got (frames as the server sends them, the
program's actions, ticks, the chains the adapter handed over, closes) and every effect it
returned (frames sent, answers, wakes, reconnects, chain requests, notices, the end). Both cores
replay them: ``tests/web/test_seat_fixture.py`` (Python) and ``web-client/test/seatCore.test.ts``
(TypeScript) feed the inputs to a fresh core and must return the same effects, so the two
languages cannot drift apart.

Deterministic (fixed seeds, jitter from a fixed cycle). Run from the repository root::

    .venv/bin/python web-client/tools/make_seat_fixture.py          # write
    .venv/bin/python web-client/tools/make_seat_fixture.py --check  # exit 1 when stale
"""

from __future__ import annotations

import itertools
import json
import random
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.match import MatchOptions  # noqa: E402
from harness.seat_harness import Client, Room  # noqa: E402
from protocol import events as pe  # noqa: E402
from protocol import messages as m  # noqa: E402
from protocol.client import seat as sc  # noqa: E402
from protocol.close_codes import CloseCode  # noqa: E402
from protocol.codec import encode  # noqa: E402
from protocol.errors import ErrorCode  # noqa: E402
from server.machine.state import owing as owing_seats  # noqa: E402

FIXTURE = ROOT / "web-client" / "test" / "fixtures" / "seat-conversations.json"
JITTER = (0.13, 0.62, 0.91, 0.05, 0.44, 0.78, 0.29)
"""The cores' random numbers, in this cycle (both languages)."""


def jitter() -> Callable[[], float]:
    cycle = itertools.cycle(JITTER)
    return lambda: next(cycle)


def secs(now: float) -> float:
    """Times are written in the core's unit (seconds, exactly); the TypeScript core's is ms."""
    return now


def effect(e: sc.Effect) -> dict[str, Any]:
    if isinstance(e, sc.Send):
        return {"send": encode(e.message).hex()}
    if isinstance(e, sc.Answer):
        code = None if isinstance(e.reply, m.Ack) else str(e.reply.code)
        return {"answer": e.ticket, "seq": e.reply.seq, "ok": code is None, "code": code,
                "local": e.local, "kind": e.kind}  # fmt: skip
    if isinstance(e, sc.Wake):
        return {"wake": secs(e.at)}
    if isinstance(e, sc.Connect):
        return {"connect": secs(e.at)}
    if isinstance(e, sc.NeedChain):
        return {"need": e.game, "purpose": e.purpose, "from": e.from_k, "length": e.length,
                "n": e.n}  # fmt: skip
    if isinstance(e, sc.Notice):
        return {"notice": str(e.kind)}
    if isinstance(e, sc.Watch):
        return {"watch": secs(e.at)}
    if isinstance(e, sc.Drop):
        return {"drop": True}
    assert isinstance(e, sc.Ended)
    return {"ended": str(e.reason), "code": e.code}


def held(h: sc.Held | None) -> dict[str, Any] | None:
    if h is None:
        return None
    return {"secret": h.chain.link(h.chain.length).hex(), "length": h.chain.length,
            "from": h.from_k, "n": h.n}  # fmt: skip


class Recording:
    """Wraps a client's core so that each input and its effects are written down."""

    def __init__(self, client: Client, room: Room) -> None:
        self.steps: list[dict[str, Any]] = []
        core = client.core
        self.core = core
        self.config = core.config
        self.token = core.token

        def wrap(name: str, describe: Callable[..., dict[str, Any]]) -> None:
            original = getattr(core, name)

            def recorded(*args: Any) -> Any:
                result = original(*args)
                effects = result[1] if isinstance(result, tuple) else result
                step = {"in": name, **describe(*args)}
                if isinstance(result, tuple):
                    step["ticket"] = result[0]
                step["out"] = [effect(e) for e in effects]
                self.steps.append(step)
                return result

            setattr(core, name, recorded)

        wrap("opened", lambda now: {"now": secs(now)})
        wrap("closed", lambda code, now: {"code": code, "now": secs(now)})
        wrap("receive", lambda msg, now: {"frame": encode(msg).hex(), "now": secs(now)})
        # The action as the program gives it (its seq is the core's to set: 1 stands in for it).
        wrap("act", lambda msg, now: {"frame": encode(replace(msg, seq=1)).hex(), "now": secs(now)})
        wrap("roll", lambda now: {"now": secs(now)})
        wrap("next_game", lambda now: {"now": secs(now)})
        wrap("tick", lambda now: {"now": secs(now)})
        wrap("silent", lambda now: {"now": secs(now)})
        wrap("chain_ready", lambda game, h, now: {"game": game, "held": held(h), "now": secs(now)})

    def render(self, name: str, what: str, match_id: str) -> dict[str, Any]:
        cfg = self.config
        return {
            "name": name,
            "what": what,
            "match_id": match_id,
            "token": self.token,
            "config": {
                "chainLength": cfg.chain_length,
                "autoCommit": cfg.auto_commit,
                "autoReveal": cfg.auto_reveal,
                "autoRoll": cfg.auto_roll,
                "nextGameShare": cfg.next_game_share,
                "firstLastV": cfg.first_last_v,
                "reconnectCap": cfg.reconnect_cap,
                "deadLink": cfg.dead_link,
            },
            "steps": self.steps,
        }


def seated(options: MatchOptions, seed: int, **config: Any) -> tuple[Room, Client, Client]:
    room = Room(options, seed)
    a = room.client(0, **config)
    b = room.client(1, **config)
    for c in (a, b):
        c.core.jitter = jitter()
    return room, a, b


def playing(
    options: MatchOptions, seed: int, **config: Any
) -> tuple[Room, Client, Client, random.Random]:
    """Both seats seated and connected, and the random numbers of their decisions."""
    room, a, b = seated(options, seed, **config)
    room.connect(a)
    room.connect(b)
    return room, a, b, random.Random(seed)


def owing(room: Room, phase: str) -> Client | None:
    for c in room.clients:
        if c.core.seat is not None and c.core.tracker.owes(c.core.seat) == phase:
            return c
    return None


def fresh(room: Room, seat: int, **config: Any) -> Client:
    c = room.client(seat, **config)
    c.core.jitter = jitter()
    return c


# ---------------------------------------------------------------- the conversations


def single_game() -> dict[str, Any]:
    room, a, b = seated(MatchOptions.single_game(), 21, auto_roll=True, first_last_v=0)
    rec = Recording(a, room)
    room.connect(a)
    room.connect(b)
    room.play_until(lambda: room.state.is_over, random.Random(21), limit=5000)
    room.drop(a, CloseCode.NORMAL)
    return rec.render("single_game", "a single game with the forced rolls automatic", room.match_id)


def match_with_cube() -> dict[str, Any]:
    room, a, b = seated(MatchOptions.match(3), 22, auto_roll=True, next_game_share=0.5,
                        first_last_v=0)  # fmt: skip
    rec = Recording(b, room)
    room.connect(a)
    room.connect(b)
    room.play_until(lambda: room.state.is_over, random.Random(22), limit=20000)
    return rec.render("match_with_cube", "a match to 3: cube decisions wait for the player, the "
                      "next game's commit waits for half its clock", room.match_id)  # fmt: skip


def outage() -> dict[str, Any]:
    room, a, b = seated(MatchOptions.single_game(), 23)
    rng = random.Random(23)
    recs = {0: Recording(a, room), 1: Recording(b, room)}
    room.connect(a)
    room.connect(b)
    room.play_until(lambda: owing(room, "decide") is not None and a.core.tracker.k > 2, rng)
    roller = owing(room, "decide")
    assert roller is not None
    other = b if roller is a else a
    rec = recs[other.core.seat or 0]
    room.effects(roller, roller.core.roll(room.now)[1])
    room.pump(limit=1)
    room.outage = True
    room.pump()
    room.advance(60)
    room.outage = False
    room.advance(3)
    room.play_until(lambda: a.core.tracker.k > 8, rng)
    return rec.render("outage", "an owed reveal refused retry_later for a minute, then through",
                      room.match_id)  # fmt: skip


def drops() -> dict[str, Any]:
    room, a, b = seated(MatchOptions.single_game(), 24)
    rng = random.Random(24)
    rec = Recording(a, room)
    room.connect(a)
    room.connect(b)
    room.to(a, m.Probe(1_767_225_612_345))  # answered at once: echo
    room.play_until(lambda: owing(room, "move") is a, rng)
    room.drop_outgoing.add(0)
    room.decide(a, rng)
    room.drop_outgoing.discard(0)
    room.drop(a)
    room.advance(3)
    room.play_until(lambda: owing(room, "move") is a, rng)
    room.lose_next_ack.add(0)
    room.decide(a, rng)
    room.drop(a, CloseCode.SERVICE_RESTART)
    room.advance(0.1)
    room.drop(a)  # the restarting server refuses the first tries
    room.advance(3)
    room.play_until(lambda: owing(room, "move") is a, rng)
    room.drop(a, CloseCode.REPLACED)
    return rec.render("drops", "a lost move and a lost ack resent or answered after the welcome; "
                      "a restart; taken over (4003)", room.match_id)  # fmt: skip


def new_device() -> dict[str, Any]:
    room, a, b, rng = playing(MatchOptions.single_game(), 25)
    room.play_until(lambda: a.core.tracker.k > 4 and owing(room, "decide") is b, rng)
    room.drop(b)
    b.connect_at = None
    room.clients.remove(b)
    phone = fresh(room, 1)
    rec = Recording(phone, room)
    room.refuse_next.add(1)
    room.connect(phone)
    room.effects(phone, phone.core.roll(room.now)[1])
    room.pump()
    room.advance(1)
    room.play_until(lambda: a.core.tracker.k > 12, rng, limit=5000)
    # The phone reloads (the same secrets): from a snapshot, it reveals from the kept chain.
    room.drop(phone)
    phone.connect_at = None
    room.clients.remove(phone)
    again = fresh(room, 1)
    again.secrets = phone.secrets
    rec2 = Recording(again, room)
    room.connect(again)
    room.play_until(lambda: room.state.is_over, rng, limit=5000)
    out = rec.render("new_device", "a new device re-commits (refused once for now) and holds "
                     "its roll behind it", room.match_id)  # fmt: skip
    out2 = rec2.render("reload_after_recommit", "that device reloads: a snapshot, the kept chain",
                       room.match_id)  # fmt: skip
    assert sum(isinstance(e.data, pe.Recommitted) for e in room.log) == 1
    return {"list": [out, out2]}


def catch_up() -> dict[str, Any]:
    room, a, b, rng = playing(MatchOptions.single_game(), 26)
    room.play_until(lambda: a.core.tracker.k > 4 and owing(room, "decide") is not None, rng)
    roller = owing(room, "decide")
    assert roller is not None
    other = b if roller is a else a
    room.drop(other)
    other.connect_at = None
    room.effects(roller, roller.core.roll(room.now)[1])
    room.pump()
    page = fresh(room, other.core.seat or 0, first_last_v=0)
    page.secrets = other.secrets
    room.clients.remove(other)
    rec = Recording(page, room)
    room.connect(page)
    room.play_until(lambda: roller.core.tracker.k > 8, rng)
    return rec.render("catch_up", "a page opened late replays the log and acts only on the "
                      "present", room.match_id)  # fmt: skip


def device(room: Room, old: Client, seat: int, **config: Any) -> Client:
    """``old``'s page goes away; a page without its secrets opens the seat."""
    room.drop(old)
    old.connect_at = None
    room.clients.remove(old)
    page = fresh(room, seat, **config)
    return page


def recommit_limit() -> dict[str, Any]:
    room, _, b, rng = playing(MatchOptions.single_game(), 27)
    room.play_until(lambda: owing(room, "move") is b, rng)
    page = b
    for _ in range(3):  # three new devices, each re-commits between rolls and plays a little
        page = device(room, page, 1)
        room.connect(page)
        room.play_until(lambda p=page: owing(room, "move") is p and p.core.holds_chain(), rng)
        room.decide(page, rng)
        room.play_until(lambda p=page: owing(room, "move") is p, rng)
    last = device(room, page, 1)
    rec = Recording(last, room)
    room.connect(last)
    room.decide(last, rng)  # its move; then Ann rolls and it owes a reveal it cannot make
    room.play_until(lambda: owing(room, "reveal") is last, rng)
    room.advance(5)
    assert sum(isinstance(e.data, pe.Recommitted) for e in room.log) == 3
    return rec.render("recommit_limit", "a fourth device: the game's three re-commitments are "
                      "used, it says so once and sends no reveal", room.match_id)  # fmt: skip


def recommit_refused() -> dict[str, Any]:
    room, a, b, rng = playing(MatchOptions.single_game(), 28)
    room.play_until(lambda: a.core.tracker.k > 3 and owing(room, "move") is b, rng)
    phone = device(room, b, 1)
    rec = Recording(phone, room)
    room.refuse_with[1] = ErrorCode.BAD_COMMITMENT
    room.connect(phone)
    room.advance(5)
    return rec.render("recommit_refused", "a refused re-commitment is said once and not sent "
                      "again", room.match_id)  # fmt: skip


def owed_reveal() -> dict[str, Any]:
    room, a, b, rng = playing(MatchOptions.single_game(), 29)
    room.play_until(lambda: a.core.tracker.k > 3 and owing(room, "decide") is a, rng)
    b.core.config.auto_reveal = False  # its reveal of Ann's roll is lost
    room.effects(a, a.core.roll(room.now)[1])
    room.pump()
    phone = device(room, b, 1)
    rec = Recording(phone, room)
    room.connect(phone)
    room.advance(5)
    return rec.render("owed_reveal", "a device without the secret while its reveal is owed: it "
                      "cannot re-commit during a roll, says so once, sends nothing",
                      room.match_id)  # fmt: skip


def withdrawn() -> dict[str, Any]:
    """The opponent's reveal is answered retry_later; the player resigns meanwhile (held behind
    the reveal: one action in flight); the roller leaves before the retry: the reveal is
    withdrawn and the resignation goes at once."""
    room, a, b = seated(MatchOptions.single_game(), 10, first_last_v=0)
    recs = {id(a): Recording(a, room), id(b): Recording(b, room)}
    room.connect(a)
    room.connect(b)
    room.play_until(lambda: owing(room, "decide") is not None, random.Random(10))
    roller = owing(room, "decide")
    assert roller is not None
    other = b if roller is a else a
    room.refuse_next.add(other.core.seat)  # type: ignore[arg-type]
    room.effects(roller, roller.core.roll(room.now)[1])
    room.pump()
    game = other.core.tracker.game
    room.effects(other, other.core.act(m.Resign(0, game, 1), room.now)[1])
    room.effects(roller, roller.core.act(m.Leave(0), room.now)[1])
    room.pump()
    return recs[id(other)].render("withdrawn", "an action held behind an automatic one goes "
                                  "when that one is withdrawn", room.match_id)  # fmt: skip


def answered_while_sending() -> dict[str, Any]:
    """A device without the secret that does not re-commit by itself rolls while its chain is
    being looked for, and resigns behind the roll; no chain: the roll is answered on the
    spot and the resignation goes in the same pass."""
    room, _, b, rng = playing(MatchOptions.single_game(), 7)
    room.play_until(lambda: owing(room, "decide") is b, rng)
    phone = device(room, b, 1, auto_reveal=False)
    rec = Recording(phone, room)
    loaded = phone.core.chain_ready
    phone.core.chain_ready = lambda game, held, now: []  # type: ignore[method-assign]
    room.connect(phone)  # its chain is asked for; the answer comes later
    game = phone.core.tracker.game
    room.effects(phone, phone.core.roll(room.now)[1])
    room.effects(phone, phone.core.act(m.Resign(0, game, 1), room.now)[1])
    room.effects(phone, loaded(game, None, room.now))
    room.pump()
    return rec.render("answered_while_sending", "an action answered on the spot while sending "
                      "holds back nothing behind it", room.match_id)  # fmt: skip


def old_device() -> dict[str, Any]:
    room, a, b, rng = playing(MatchOptions.single_game(), 30, first_last_v=0)
    room.play_until(lambda: a.core.tracker.k > 3 and owing(room, "move") is b, rng)
    phone = device(room, b, 1, first_last_v=0)
    room.connect(phone)
    room.play_until(lambda: a.core.tracker.k > 6 and owing(room, "move") is phone, rng)
    back = device(room, phone, 1, first_last_v=0)
    back.secrets = b.secrets  # the first browser again: the chain of the game's commitment
    rec = Recording(back, room)
    room.connect(back)
    room.play_until(lambda: a.core.tracker.k > 10, rng, limit=5000)
    assert sum(isinstance(e.data, pe.Recommitted) for e in room.log) == 2
    what = "the first device, back after another re-committed, re-commits too"
    return rec.render("old_device", what, room.match_id)


def run_out() -> dict[str, Any]:
    room, a, b = seated(MatchOptions.single_game(), 31, chain_length=8)
    rng = random.Random(31)
    rec = Recording(a, room)
    room.connect(a)
    room.connect(b)
    room.play_until(lambda: a.core.tracker.k > 20, rng, limit=5000)
    ks = [(e.data.seat, e.data.k) for e in room.log if isinstance(e.data, pe.Recommitted)]
    assert (0, 9) in ks and (1, 9) in ks, ks
    return rec.render("run_out", "a chain of 8 links runs out: a new one between rolls, again "
                      "and again", room.match_id)  # fmt: skip


def correspondence() -> list[dict[str, Any]]:
    """A correspondence match to 3: Ann's page stays open; Bob opens a page only to act
    (from a snapshot each time) and closes it. Nobody ever owes a reveal."""
    room = Room(MatchOptions.match(3), 32, days=1)
    rng = random.Random(32)
    a = fresh(room, 0, first_last_v=0)
    rec = Recording(a, room)
    room.connect(a)
    kept: dict[tuple[int, str], bytes] = {}
    visits: list[dict[str, Any]] = []
    n = 0
    for _ in range(3000):
        state = room.state
        if state.is_over:
            break
        assert owing_seats(state)[1] != "reveal", "a seat had to be there to reveal"
        if 1 in owing_seats(state)[0]:
            b = fresh(room, 1)
            b.secrets = kept
            recording = Recording(b, room) if n in (4, 17) else None
            room.visit(b, rng)
            n += 1
            if recording is not None:
                what = f"Bob's visit {n}: from a snapshot, it acts, deposits ahead and is idle"
                visits.append(recording.render(f"correspondence_visit_{n}", what, room.match_id))
        elif not room.decide(a, rng):
            room.advance(0.2)
    assert room.state.is_over and len(visits) == 2
    assert any(isinstance(e.data, pe.RolloffAhead) for e in room.log)
    what = ("a correspondence match: Ann's page stays open and deposits her reveals ahead; "
            "Bob's pages open only to act")  # fmt: skip
    out = rec.render("correspondence", what, room.match_id)
    return [out, *visits]


def frozen_server() -> dict[str, Any]:
    room = Room(MatchOptions.single_game(), 33, clock_ms=120_000)  # outlasts the freeze
    a, b = fresh(room, 0, dead_link=sc.DEAD_LINK), fresh(room, 1, dead_link=sc.DEAD_LINK)
    room.probe_every = 2.0  # as the server does
    rng = random.Random(33)
    rec = Recording(a, room)
    room.connect(a)
    room.connect(b)
    room.play_until(lambda: a.core.tracker.k > 3, rng)
    room.advance(20)  # probes keep the link: nothing is dropped
    assert not any(s["in"] == "closed" for s in rec.steps)
    room.frozen = True
    frozen_at = room.now
    room.advance(15)  # dropped, reconnected: the hello is not answered either, dropped again
    drops = [s["now"] for s in rec.steps if s["in"] == "closed"]
    assert len(drops) == 2 and 4 <= drops[0] - frozen_at <= sc.DEAD_LINK + 0.01, drops
    room.frozen = False
    room.advance(1)
    assert a.core.welcomed
    room.play_until(lambda: a.core.tracker.k > 6, rng)
    return rec.render("frozen_server", "the server probes every 2 s; frozen, its link is dropped "
                      "6 s after the last frame, and again 6 s after an unanswered hello",
                      room.match_id)  # fmt: skip


def crashed_server() -> dict[str, Any]:
    room, a, b = seated(MatchOptions.single_game(), 34)
    rng = random.Random(34)
    rec = Recording(a, room)
    room.connect(a)
    room.connect(b)
    room.play_until(lambda: owing(room, "move") is a, rng)
    due = a.core.tracker.clock.deadline
    credit = room.crash(a)  # its process dies: back on another, the match is credited
    assert credit > 0 and a.core.tracker.clock.deadline == due + credit  # (due is not None)
    assert room.crash(b) == 0  # the seat that owed nothing: no credit
    room.play_until(lambda: a.core.tracker.k > 6, rng)
    what = "the server process of the seat on move dies: it resumes, its clock is credited"
    return rec.render("crashed_server", what, room.match_id)


def conversations() -> list[dict[str, Any]]:
    out = [single_game(), match_with_cube(), outage(), drops(), frozen_server(), crashed_server()]
    out += new_device()["list"]
    out.append(catch_up())
    out += [recommit_limit(), recommit_refused(), owed_reveal(), withdrawn()]
    out += [answered_while_sending(), old_device(), run_out()]
    out += correspondence()
    return out


def close_verdicts() -> list[list[Any]]:
    """``[code, match_over, reason or None]`` for every close code of the catalogue (and a
    dropped link, ``None``): which of them end the client for good."""
    codes: list[int | None] = [None, *(int(c) for c in CloseCode), 4999]
    return [[c, over, sc.definitive(c, over)] for c in codes for over in (False, True)]


def render() -> str:
    fixture = {
        "description": "Conversations of the seat core with the real match machine; written by "
        "web-client/tools/make_seat_fixture.py",
        "jitter": list(JITTER),
        "conversations": conversations(),
        "closes": close_verdicts(),
    }
    return json.dumps(fixture, indent=None, separators=(",", ":")) + "\n"


def main() -> int:
    text = render()
    if "--check" in sys.argv:
        current = FIXTURE.read_text(encoding="utf-8") if FIXTURE.exists() else ""
        return 0 if current == text else 1
    FIXTURE.write_text(text, encoding="utf-8")
    print(f"wrote {FIXTURE.relative_to(ROOT)} ({len(text) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
