"""The work queue's lease rules (work/lease.py), pure, with a clock the test moves: taking
entries up to the capacity, the beat that renews them, a lease lost to another worker, a
take-over once a dead worker's entry has been idle long enough, finishing; where a worker looks
for work; and the stored form of every kind's job (bot seats, analyses), which workers of other
versions read."""

from __future__ import annotations

import pytest

from bots.catalog import Level
from bots.queue import SEATS, BotSeat
from server.work.analysis_queue import DEEPER, GAMES, DeepAnalysis, GameAnalysis
from work.lease import Claim, Entry, Leases, Read, Timing, plan

BOTS = Timing(claim_idle_ms=5000, renews=True)
ANALYSIS = Timing(claim_idle_ms=60_000)


def entry(n: int, stream: str = "fg:bots:jobs") -> Entry:
    return Entry(stream, f"{n}-0".encode())


def test_a_worker_takes_entries_up_to_its_capacity_once_each() -> None:
    leases = Leases(capacity=2, beat_ms=1000, now=0)
    assert leases.room == 2
    assert leases.take(entry(1), BOTS, now=0)
    # Delivered again (its own entry claimed back after its renewals lapsed): still one job.
    assert not leases.take(entry(1), BOTS, now=10)
    assert (leases.room, len(leases)) == (1, 1)
    assert leases.take(entry(2), BOTS, now=20)
    assert leases.room == 0
    # The same id on another stream is another entry.
    assert Entry("fg:analysis:deep", b"1-0") not in leases and entry(1) in leases


def test_the_beat_renews_the_leases_of_kinds_that_renew_and_pushes_their_lapse_back() -> None:
    leases = Leases(capacity=10, beat_ms=1000, now=0)
    assert leases.beat_due(0)  # the first beat comes at once
    assert leases.beat(now=0) == ()
    leases.take(entry(1), BOTS, now=100)
    leases.take(entry(2, "fg:analysis:jobs"), ANALYSIS, now=100)
    assert leases.lapses_at(entry(1)) == 5100
    assert leases.lapses_at(entry(2, "fg:analysis:jobs")) == 60_100
    # Not before the beat is due; a read may wait until then, and never "for ever" (0).
    assert not leases.beat_due(999) and leases.wait_ms(400) == 600
    assert leases.wait_ms(1000) == 1 and leases.wait_ms(5000) == 1
    assert leases.beat_due(1000)
    # Only the renewing kind is checked and renewed.
    assert leases.to_check() == (entry(1),)
    assert leases.beat(now=1000) == (entry(1),)
    assert leases.lapses_at(entry(1)) == 6000
    assert leases.lapses_at(entry(2, "fg:analysis:jobs")) == 60_100
    assert not leases.beat_due(1999) and leases.beat_due(2000)
    # Beat after beat the lease never lapses while the worker lives.
    for now in range(2000, 60_000, 1000):
        assert leases.beat(now) == (entry(1),)
        assert not leases.lapsed(entry(1), now + 999)
    assert leases.lapses_at(entry(1)) == 59_000 + 5000


def test_a_lease_is_lost_when_the_group_counts_the_entry_as_another_workers() -> None:
    leases = Leases(capacity=3, beat_ms=1000, now=0)
    for n in (1, 2, 3):
        leases.take(entry(n), BOTS, now=0)
    assert leases.room == 0
    # At the beat the group lists entries 1 and 3 as ours: 2 was taken over.
    assert leases.lost(owned={entry(1), entry(3), entry(9)}) == (entry(2),)
    assert entry(2) not in leases and leases.room == 1
    assert leases.beat(now=1000) == (entry(1), entry(3))  # the lost one is not renewed
    assert leases.lost(owned={entry(1), entry(3)}) == ()
    # A kind that never renews is never checked: it cannot be "lost" this way.
    leases.take(entry(4, "fg:analysis:jobs"), ANALYSIS, now=1000)
    assert leases.lost(owned=set()) == (entry(1), entry(3))
    assert entry(4, "fg:analysis:jobs") in leases


def test_a_dead_workers_entry_lapses_after_the_idle_time_and_its_new_holder_keeps_it() -> None:
    """Worker A beats until 3000 and then stalls (or dies); its lease lapses at 3000 + 5000,
    when worker B may claim it (B's plan claims entries idle that long). When A comes back, its
    beat finds the entry gone from its own and stops its work; B renews it from then on."""
    a = Leases(capacity=5, beat_ms=1000, now=0)
    b = Leases(capacity=5, beat_ms=1000, now=0)
    a.take(entry(1), BOTS, now=0)
    for now in (1000, 2000, 3000):
        a.beat(now)
    assert a.lapses_at(entry(1)) == 8000
    assert not a.lapsed(entry(1), 7999) and a.lapsed(entry(1), 8000)
    assert plan([("fg:bots:jobs", BOTS)])[0] == Claim("fg:bots:jobs", min_idle_ms=5000)
    assert b.take(entry(1), BOTS, now=8000)  # XAUTOCLAIM gave it to B
    assert a.beat_due(9000)
    assert a.lost(owned=set()) == (entry(1),)
    assert a.beat(9000) == () and a.room == 5
    assert b.beat(9000) == (entry(1),) and b.lapses_at(entry(1)) == 14_000


def test_a_kind_that_never_renews_lapses_when_a_job_outlasts_the_idle_time() -> None:
    leases = Leases(capacity=1, beat_ms=1000, now=0)
    leases.take(entry(1, "fg:analysis:jobs"), ANALYSIS, now=500)
    for now in range(1000, 61_000, 1000):
        assert leases.beat(now) == ()
    assert not leases.lapsed(entry(1, "fg:analysis:jobs"), 60_499)
    assert leases.lapsed(entry(1, "fg:analysis:jobs"), 60_500)


def test_finishing_or_letting_go_frees_the_room_and_ends_the_renewals() -> None:
    leases = Leases(capacity=1, beat_ms=1000, now=0)
    leases.take(entry(1), BOTS, now=0)
    assert leases.room == 0
    leases.release(entry(1))  # acknowledged and deleted, or left pending to lapse
    assert leases.room == 1 and entry(1) not in leases
    assert leases.beat(1000) == ()
    leases.release(entry(1))  # twice is harmless
    with pytest.raises(KeyError):
        leases.lapses_at(entry(1))


def test_a_worker_looks_for_dead_workers_entries_first_and_streams_by_priority() -> None:
    analysis = plan([("fg:analysis:jobs", ANALYSIS), ("fg:analysis:deep", ANALYSIS)])
    assert analysis == (
        Claim("fg:analysis:jobs", 60_000), Read("fg:analysis:jobs"),
        Claim("fg:analysis:deep", 60_000), Read("fg:analysis:deep"),
        Read("fg:analysis:jobs", waits=True),  # waits on the first stream only
    )
    assert plan([("fg:bots:jobs", BOTS)]) == (
        Claim("fg:bots:jobs", 5000), Read("fg:bots:jobs", waits=True))
    with pytest.raises(ValueError):
        plan([])
    with pytest.raises(ValueError):
        Leases(capacity=0, beat_ms=1000, now=0)


def test_the_stored_form_of_every_kind_of_job_is_the_one_workers_of_other_versions_read() -> None:
    """Exactly the streams, groups, field names and values written before the work queue was
    one module (a deploy lets old and new workers meet on them)."""
    seat = BotSeat("ab" * 16, 1, "tok-en", Level.EXPERT)
    assert (SEATS.stream, SEATS.group) == ("fg:bots:jobs", "bots")
    assert seat.fields() == {"match": "ab" * 16, "seat": "1", "token": "tok-en",
                             "level": "expert"}
    stored = {k.encode(): v.encode() for k, v in seat.fields().items()}
    assert SEATS.parse(stored) == seat
    assert (GAMES.stream, GAMES.group) == ("fg:analysis:jobs", "analysers")
    assert (DEEPER.stream, DEEPER.group) == ("fg:analysis:deep", "analysers")
    for kind, job_type in ((GAMES, GameAnalysis), (DEEPER, DeepAnalysis)):
        job = job_type("cd" * 16, 3)
        assert job.fields() == {"match": "cd" * 16, "game": "3"}
        parsed = kind.parse({b"match": b"cd" * 16, b"game": b"3"})
        assert parsed == job and type(parsed) is job_type
    # An entry that is no job of its kind is refused (the runner drops it).
    for kind, fields in ((SEATS, {b"junk": b"1"}), (SEATS, {**stored, b"level": b"godlike"}),
                         (SEATS, {**stored, b"seat": b"one"}), (GAMES, {b"match": b"x"}),
                         (DEEPER, {b"match": b"x", b"game": b"two"})):
        with pytest.raises((KeyError, ValueError)):
            kind.parse(fields)
