"""The seat core (protocol.client.seat) against the real match machine, in fake time: no
horizon on retries or reconnects, resend after the welcome, automation only on the present,
one policy for the automatic roll, re-commitment, and verification of every roll."""

from __future__ import annotations

import itertools
import random

import pytest

from engine.match import MatchOptions
from harness.seat_harness import Client, Room
from protocol import events as pe
from protocol import messages as m
from protocol.client import seat as sc
from protocol.close_codes import CloseCode
from protocol.errors import ErrorCode


def seated(options: MatchOptions, seed: int = 1, **config: object) -> tuple[Room, ...]:
    room = Room(options, seed)
    a, b = room.client(0, **config), room.client(1, **config)
    room.connect(a)
    room.connect(b)
    return room, a, b


def kinds(room: Room, kind: type) -> int:
    return sum(1 for e in room.log if isinstance(e.data, kind))


def owing(room: Room, phase: str):
    for c in room.clients:
        if c.core.seat is not None and c.core.tracker.owes(c.core.seat) == phase:
            return c
    return None


def test_an_owed_reveal_refused_for_ten_minutes_is_still_retried_with_a_capped_back_off():
    room, a, b = seated(MatchOptions.single_game())
    rng = random.Random(3)
    room.play_until(lambda: owing(room, "decide") is not None, rng)
    roller = owing(room, "decide")
    other = b if roller is a else a
    reveals_before = len(other.sends(m.Reveal))
    # The roll is stored; then the store goes away: the opponent's reveal is owed and refused.
    room.effects(roller, roller.core.roll(room.now)[1])
    room.pump(limit=1)
    room.outage = True
    room.pump()
    assert other.core.tracker.owes(other.core.seat) == "reveal"
    room.advance(600)  # ten minutes of retry_later
    tries = other.sends(m.Reveal)[reveals_before:]
    times = [t for t, _ in tries]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert len(tries) > 200, len(tries)
    assert len({msg.seq for _, msg in tries}) == 1  # the same action, the same seq
    assert max(gaps) <= sc.RETRY_CAP * 1.5 + 0.06
    assert times[-1] >= room.now - sc.RETRY_CAP * 1.5  # still trying at the end
    room.outage = False
    room.advance(sc.RETRY_CAP * 1.5 + 0.1)
    assert isinstance(other.by_seq[tries[0][1].seq].reply, m.Ack)
    assert other.core.tracker.owes(roller.core.seat) == "move"
    room.play_until(lambda: room.state.is_over, rng, limit=5000)
    assert kinds(room, pe.Forfeit) == 0


def test_reconnecting_never_gives_up_and_stops_only_on_definitive_answers():
    _, a, _ = seated(MatchOptions.single_game())
    core = a.core
    pauses = []
    for i in range(2000):  # refused, reset, failed handshakes: hours of them
        (connect,) = [e for e in core.closed(None, float(i)) if isinstance(e, sc.Connect)]
        pauses.append(connect.at - i)
    assert core.ended is None
    assert max(pauses) <= sc.RECONNECT_CAP * 1.5 and pauses[-1] >= sc.RECONNECT_CAP * 0.5
    assert pauses[0] <= sc.RECONNECT_FIRST * 1.5
    # HTTP 5xx while a server starts: again; 4xx: definitive.
    assert isinstance(core.refused(503, 0.0)[0], sc.Connect)
    # Told of a restart: back within the spread, then at the steady restart pace.
    fresh = Room(MatchOptions.single_game(), 2).client(0)
    (first,) = fresh.core.closed(CloseCode.SERVICE_RESTART, 0.0)
    (second,) = fresh.core.closed(None, 1.0)
    assert first.at <= sc.RESTART_SPREAD and second.at - 1.0 <= sc.RESTART_RETRY * 1.5
    for code in (1000, 1001, 1006, 1011, 1012, 1013, 4002, 4008, 4999):
        c = Room(MatchOptions.single_game(), 2).client(0)
        assert isinstance(c.core.closed(code, 0.0)[0], sc.Connect), code
    definitive = {
        CloseCode.REPLACED: sc.EndReason.REPLACED,
        CloseCode.AUTH_FAILED: sc.EndReason.AUTH_FAILED,
        CloseCode.MATCH_NOT_FOUND: sc.EndReason.NOT_FOUND,
        CloseCode.UNSUPPORTED_VERSION: sc.EndReason.REFUSED,
        CloseCode.PROTOCOL_VIOLATION: sc.EndReason.REFUSED,
    }
    for code, reason in definitive.items():
        c = Room(MatchOptions.single_game(), 2).client(0)
        assert c.core.closed(code, 0.0)[0] == sc.Ended(reason, code)
    c = Room(MatchOptions.single_game(), 2).client(0)
    assert c.core.refused(403, 0.0)[0] == sc.Ended(sc.EndReason.REFUSED, None)


def test_a_close_after_the_match_is_over_ends_the_client_and_answers_what_was_pending():
    room, a, b = seated(MatchOptions.single_game())
    _, effects = a.core.act(m.Leave(0), room.now)
    room.effects(a, effects)
    room.pump()
    assert a.core.tracker.over is not None
    seq2, _ = b.core.act(m.Leave(0), room.now)  # never sent: the link goes first
    room.drop(b, CloseCode.NORMAL)
    assert b.ended == sc.Ended(sc.EndReason.MATCH_OVER, CloseCode.NORMAL)
    assert b.answers[seq2].local and b.answers[seq2].reply.code == ErrorCode.MATCH_OVER
    assert b.connect_at is None


def test_unanswered_actions_are_sent_again_after_the_welcome_with_the_same_seq():
    room, _, _ = seated(MatchOptions.single_game())
    rng = random.Random(4)
    room.play_until(lambda: owing(room, "move") is not None, rng)
    mover = owing(room, "move")
    seat = mover.core.seat
    # 1. The move is lost with the link: sent again on the next connection, same seq.
    room.drop_outgoing.add(seat)
    room.decide(mover, rng)
    move = mover.sends(m.Move)[-1][1]
    room.drop_outgoing.discard(seat)
    room.drop(mover)
    room.advance(3)
    again = mover.sends(m.Move)[-1][1]
    assert again == move and mover.core.welcomes == 2
    assert isinstance(mover.by_seq[move.seq].reply, m.Ack)
    # 2. Applied, but the ack is lost with the link: the welcome's seq answers it; no resend.
    room.play_until(lambda: owing(room, "move") is not None, rng)
    mover = owing(room, "move")
    room.lose_next_ack.add(mover.core.seat)
    room.decide(mover, rng)
    move = mover.sends(m.Move)[-1][1]
    assert move.seq not in mover.by_seq
    room.drop(mover)
    room.advance(3)
    assert mover.sends(m.Move)[-1][1] == move  # not sent again
    assert mover.by_seq[move.seq].reply == m.Ack(move.seq, room.state.version)


def test_automatic_actions_wait_for_the_catch_up_and_act_once_on_the_present():
    room, a, b = seated(MatchOptions.single_game())
    rng = random.Random(5)
    room.play_until(lambda: a.core.tracker.k > 4 and owing(room, "decide") is not None, rng)
    roller = owing(room, "decide")
    other = b if roller is a else a
    room.drop(other)
    other.connect_at = None
    room.effects(roller, roller.core.roll(room.now)[1])
    room.pump()
    # The opponent comes back on a fresh page that asks for the whole log (last_v 0): it
    # replays rolls, reveals owed long ago, and only then the reveal owed now.
    fresh = room.client(other.core.seat, first_last_v=0)
    fresh.secrets = other.secrets
    room.clients.remove(other)
    v, k = room.state.version, roller.core.tracker.k
    room.connect(fresh)
    assert v > 12 and fresh.sent_at_v[0] == 0  # the hello
    assert fresh.sent_at_v[1:] and min(fresh.sent_at_v[1:]) >= v  # nothing on the way
    reveals = fresh.sends(m.Reveal)
    assert len(reveals) == 1 and reveals[0][1].k == k
    assert roller.core.tracker.owes(roller.core.seat) == "move"


@pytest.mark.parametrize("options, rolls_alone", [
    (MatchOptions.single_game(), True),
    (MatchOptions.match(3), False),
])  # fmt: skip
def test_the_automatic_roll_only_when_the_decision_is_forced(options, rolls_alone):
    room, _, _ = seated(options, auto_roll=True)
    rng = random.Random(6)
    room.play_until(lambda: owing(room, "move") is not None, rng)  # the opening move
    rolled = kinds(room, pe.Dice)
    room.decide(owing(room, "move"), rng)
    room.advance(1)
    roller = owing(room, "decide")
    assert (roller is None) == rolls_alone
    if rolls_alone:
        assert kinds(room, pe.Dice) == rolled + 1  # the next roll came by itself
    else:
        assert roller.core.tracker.may_double(roller.core.seat)
        room.advance(5)
        assert kinds(room, pe.Dice) == rolled  # waits for the player's cube decision
        room.effects(roller, roller.core.roll(room.now)[1])
        room.pump()
        assert kinds(room, pe.Dice) == rolled + 1


def test_a_new_device_recommits_between_rolls_and_holds_its_roll_until_the_server_has_it():
    room, a, b = seated(MatchOptions.single_game(), 7)
    rng = random.Random(7)
    room.play_until(lambda: a.core.tracker.k > 4 and owing(room, "decide") is b, rng)
    # Bob's phone: the token, no secrets. It re-commits as soon as it is caught up.
    room.drop(b)
    b.connect_at = None
    room.clients.remove(b)
    phone = room.client(1)
    room.refuse_next.add(1)  # the re-commitment is refused once for now: the roll must wait
    room.connect(phone)
    recommit = phone.sends(m.Recommit)
    assert len(recommit) == 1 and phone.core.tracker.recommits[1] == 0
    seq, effects = phone.core.roll(room.now)
    room.effects(phone, effects)
    room.pump()
    assert not phone.sends(m.Roll)  # held back behind the refused-for-now re-commitment
    room.advance(1)
    order = [type(msg) for _, msg in phone.sent if isinstance(msg, m.Recommit | m.Roll)]
    assert order == [m.Recommit, m.Recommit, m.Roll]
    assert isinstance(phone.answers[seq].reply, m.Ack)
    assert phone.core.tracker.recommits[1] == 1
    room.play_until(lambda: room.state.is_over, rng, limit=5000)
    assert kinds(room, pe.Forfeit) == 0 and kinds(room, pe.Recommitted) == 1
    assert any(n.kind is sc.NoticeKind.CHAIN_RENEWED for n in phone.notices)


def test_an_action_answered_while_sending_holds_nothing_back():
    """A roll waiting for its chain is answered on the spot when the chain turns out missing
    (a device without the secret that does not re-commit by itself); the action asked for
    behind it goes in the same pass instead of waiting for ever."""
    room, _, b = seated(MatchOptions.single_game(), 7)
    room.play_until(lambda: owing(room, "decide") is b, random.Random(7))
    room.drop(b)
    b.connect_at = None
    room.clients.remove(b)
    phone = room.client(1, auto_reveal=False)
    loaded = phone.core.chain_ready
    asked: list[int] = []
    phone.core.chain_ready = lambda game, held, now: asked.append(game) or []  # type: ignore[method-assign]
    room.connect(phone)  # its chain is asked for; the answer comes later
    game = phone.core.tracker.game
    assert asked == [game]
    rolled, effects = phone.core.roll(room.now)
    room.effects(phone, effects)
    resigned, effects = phone.core.act(m.Resign(0, game, 1), room.now)
    room.effects(phone, effects)
    assert not phone.sends(m.Roll) and not phone.sends(m.Resign)  # behind the roll
    room.effects(phone, loaded(game, None, room.now))  # no chain on this device
    room.pump()
    assert phone.answers[rolled].local
    assert phone.answers[rolled].reply.code == ErrorCode.BAD_REVEAL  # type: ignore[union-attr]
    assert len(phone.sends(m.Resign)) == 1
    assert isinstance(phone.answers[resigned].reply, m.Ack)


def test_every_roll_is_verified_and_a_forged_one_raises_the_alarm():
    room, a, _ = seated(MatchOptions.single_game(), 8)
    rng = random.Random(8)
    room.play_until(lambda: room.state.is_over, rng, limit=5000)
    dice = [e for e in room.log if isinstance(e.data, pe.Dice)]
    assert len(a.core.checks) == len(dice) > 5
    assert all(v.ok for v in a.core.checks.values())
    # A spectator reading the same log with one roll's dice changed (reveals untouched).
    forged_at = dice[4]
    d = forged_at.data
    other = (d.d1 % 6 + 1, d.d2)
    forged = m.Event(forged_at.v, pe.Dice(d.game, d.k, d.kind, d.roller, d.reveal0, d.reveal1,
                                          *other), forged_at.next)  # fmt: skip
    w = sc.SeatCore(room.match_id)
    w.receive(m.Welcome("spectator", room.match_id, room.state.version, 0, None), 0.0)
    notices = []
    for e in room.log:
        out = w.receive(forged if e is forged_at else e, 0.0)
        notices += [n for n in out if isinstance(n, sc.Notice)]
    assert [n.kind for n in notices] == [sc.NoticeKind.DICE_ALARM] and notices[0].alarm
    assert w.checks[(d.game, d.k)].ok is False
    assert sum(1 for v in w.checks.values() if v.ok) == len(dice) - 1


def _reveal_refused(seed: int) -> tuple[Room, Client, Client, m.Reveal]:
    """A single game until a seat rolls; the other's reveal of that roll is answered
    retry_later (waiting to be sent again): ``(room, roller, other, reveal)``."""
    room, a, b = seated(MatchOptions.single_game(), seed)
    room.play_until(lambda: owing(room, "decide") is not None, random.Random(seed))
    roller = owing(room, "decide")
    other = b if roller is a else a
    room.refuse_next.add(other.core.seat)
    room.effects(roller, roller.core.roll(room.now)[1])
    room.pump()
    (reveal,) = other.sends(m.Reveal)[-1:]
    assert reveal[1].seq not in other.by_seq  # refused for now: waiting to be sent again
    return room, roller, other, reveal[1]


def test_an_automatic_action_no_longer_wanted_is_withdrawn_not_retried():
    room, roller, other, reveal = _reveal_refused(10)
    # Before the retry the roller leaves: the match is over, the reveal is not wanted.
    room.effects(roller, roller.core.act(m.Leave(0), room.now)[1])
    room.pump()
    assert other.by_seq[reveal.seq].local
    sent = len(other.sent)
    room.advance(10)
    assert len(other.sent) == sent and other.wake is None


def test_an_action_held_behind_a_withdrawn_one_is_sent():
    """One numbered action in flight: an action asked for while an automatic one waits for its
    retry is held behind it. When the automatic one is withdrawn (the match moved on without
    it), the held action goes at once and is answered. (A failover test once waited 30 s for
    a move held so: the withdrawal had not sent what it released, and no retry was left to.)"""
    room, roller, other, reveal = _reveal_refused(10)
    game = other.core.tracker.game
    ticket, effects = other.core.act(m.Resign(0, game, 1), room.now)
    room.effects(other, effects)
    assert other.sends(m.Resign) == []  # held behind the waiting reveal
    # The roller leaves before the retry: the reveal is withdrawn, the resignation goes.
    room.effects(roller, roller.core.act(m.Leave(0), room.now)[1])
    room.pump()
    assert other.by_seq[reveal.seq].local
    assert len(other.sends(m.Resign)) == 1
    answer = other.answers[ticket]
    assert not answer.local and isinstance(answer.reply, m.Reject)
    assert answer.reply.code == ErrorCode.MATCH_OVER


def test_one_numbered_action_in_flight_so_no_retry_is_overtaken():
    """A second action waits for the first one's answer: pipelined, a later seq could be
    applied while the earlier one is answered retry_later, and its retry refused as stale."""
    room, a, _ = seated(MatchOptions.single_game())
    room.play_until(lambda: a.core.tracker.game == 1 and a.core.caught_up, random.Random(7))
    game = a.core.tracker.game
    before = len(a.sends(m.Resign))
    room.effects(a, a.core.act(m.Resign(0, game, "single"), room.now)[1])
    room.effects(a, a.core.act(m.Resign(0, game, "gammon"), room.now)[1])
    assert len(a.sends(m.Resign)) == before + 1  # the second waits for the first's answer
    room.pump()
    sent = [msg for _, msg in a.sends(m.Resign)[before:]]
    assert [r.level for r in sent] == ["single", "gammon"]
    assert sent[0].seq < sent[1].seq


# ---------------------------------------------------------------- dead links


def _probed_room(seed: int) -> tuple[Room, ...]:
    room = Room(MatchOptions.single_game(), seed, clock_ms=600_000)
    room.probe_every = 2.0  # as the server does for every welcomed connection
    a = room.client(0, dead_link=sc.DEAD_LINK)
    b = room.client(1, dead_link=sc.DEAD_LINK)
    room.connect(a)
    room.connect(b)
    return room, a, b


def test_a_link_that_hears_the_probes_is_kept_for_ten_minutes():
    room, a, _ = _probed_room(41)
    welcomes = a.core.welcomes
    room.advance(600)
    assert a.online and a.core.welcomed and a.core.welcomes == welcomes  # never dropped
    assert a.watch is not None  # and still watching


def test_a_frozen_server_is_left_six_seconds_after_its_last_frame_and_rejoined_after():
    room, a, _ = _probed_room(42)
    room.advance(9)
    heard = a.core.heard
    assert heard is not None and room.now - heard < 2.1  # probes arrive
    hellos = len(a.sends(m.Hello))
    room.frozen = True
    while a.core.welcomed:
        room.advance(0.01)
    assert room.now - heard == pytest.approx(sc.DEAD_LINK, abs=0.02)
    # It reconnects at once; the frozen server does not answer the hello: dropped 6 s after
    # opening, and it connects again.
    room.advance(sc.DEAD_LINK + 1)
    opens = [t for t, _ in a.sends(m.Hello)[hellos:]]
    assert len(opens) == 2 and 0 < opens[0] - heard - sc.DEAD_LINK < sc.RECONNECT_CAP
    assert sc.DEAD_LINK < opens[1] - opens[0] < sc.DEAD_LINK + sc.RECONNECT_CAP
    assert a.online and not a.core.welcomed
    room.frozen = False
    room.advance(1)
    assert a.core.welcomed and a.core.welcomes == 2  # the server runs again: resumed


def test_the_check_decides_on_the_time_since_the_last_frame_not_on_late_timers():
    core = sc.SeatCore("00" * 16, "t", config=sc.Config(dead_link=6.0))
    assert sc.Watch(6.0) in core.opened(0.0)
    for now in range(2, 61, 2):
        core.receive(m.Probe(now), float(now))
    assert core.silent(60.0) == [sc.Watch(66.0)]  # fired 54 s late, but a frame just came
    assert core.silent(65.99) == [sc.Watch(66.0)]
    assert core.silent(66.0) == [sc.Drop()]
    assert core.silent(70.0) == []  # dropped: nothing left to watch
    assert sc.Watch(6.0) not in sc.SeatCore("00" * 16).opened(0.0)  # off by default
    assert sc.SeatCore("00" * 16).silent(1e9) == []
