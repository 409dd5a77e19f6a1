"""Quick pairing's rules (server/competition/seeks.py) and the vectors its Redis script will be
held to (server/competition/seek_vectors.json).

The vectors are checked twice: the file must be what the generator writes now, and every case
must agree with the rules restated here in another form — the pairs as "repeatedly, the
fitting pair of unpaired seeks that comes first in queue order (older seek, then younger)",
not the module's loop — so neither a generator bug nor a rules bug hides behind the other.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.competition import make_vectors, seeks
from server.competition.errors import Refused
from server.competition.seeks import Seek

VECTORS = json.loads(
    (Path(__file__).parents[2] / "server" / "competition" / "seek_vectors.json").read_text()
)


def plain_fits(a: dict[str, Any], b: dict[str, Any], now: int, rules: dict[str, int]) -> bool:
    def widest(s: dict[str, Any]) -> int | None:
        if s["range"] is None:
            return None
        steps = max(0, now - s["since"]) // rules["widen_every_ms"]  # a seek "from the future"
        # (another process's clock a little ahead) has waited 0
        return s["range"] + rules["widen_points"] * steps

    same_terms = all(a[k] == b[k] for k in ("mode", "length", "clock", "rated"))
    same_person = a["browser"] == b["browser"] or (
        a["account"] is not None and a["account"] == b["account"]
    )
    if a["id"] == b["id"] or not same_terms or same_person:
        return False
    if a["rated"] and (a["rating"] is None or b["rating"] is None):
        return False
    bot_and_human = [s for s in (a, b) if s["bot"]] and [s for s in (a, b) if not s["bot"]]
    if bot_and_human and (a["rated"] or not all(s["bots"] for s in (a, b) if not s["bot"])):
        return False  # bots are rated apart; a human meets one only when asking to, unrated
    for me, other in ((a, b), (b, a)):
        gap = widest(me)
        if gap is not None and (
            other["rating"] is None or abs(me["rating"] - other["rating"]) > gap
        ):
            return False
    return True


def plain_pairs(pool: list[dict[str, Any]], now: int, rules: dict[str, int]) -> list[list[str]]:
    alive = [s for s in pool if now - s["since"] < rules["seek_ttl_ms"]]
    key = {s["id"]: (s["since"], s["id"]) for s in alive}
    pairs: list[list[str]] = []
    while True:
        fitting = [
            sorted((a["id"], b["id"]), key=key.__getitem__)
            for a in alive
            for b in alive
            if key[a["id"]] < key[b["id"]] and plain_fits(a, b, now, rules)
        ]
        if not fitting:
            return pairs
        first = min(fitting, key=lambda p: (key[p[0]], key[p[1]]))
        pairs.append(first)
        alive = [s for s in alive if s["id"] not in first]


def test_the_vectors_file_is_what_the_generator_writes() -> None:
    assert make_vectors.main(["--check"]) == 0, "run: python -m server.competition.make_vectors"
    rules = VECTORS["rules"]
    assert rules == {
        "widen_points": seeks.WIDEN_POINTS,
        "widen_every_ms": seeks.WIDEN_EVERY_MS,
        "seek_ttl_ms": seeks.SEEK_TTL_MS,
        "computer_after_ms": seeks.COMPUTER_AFTER_MS,
    }


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda c: c["name"])
def test_every_case_agrees_with_the_rules_restated(case: dict[str, Any]) -> None:
    rules, now, pool = VECTORS["rules"], case["now"], case["pool"]
    assert case["pairs"] == plain_pairs(pool, now, rules)
    assert case["expired"] == [s["id"] for s in pool if now - s["since"] >= rules["seek_ttl_ms"]]
    offered = []
    for s in pool:
        others = [
            o
            for o in pool
            if all(o[k] == s[k] for k in ("mode", "length", "clock", "rated"))
            and o["browser"] != s["browser"]
            and (s["account"] is None or o["account"] != s["account"])
            and now - o["since"] < rules["seek_ttl_ms"]
        ]
        if now - s["since"] >= rules["computer_after_ms"] and not others:
            offered.append(s["id"])
    assert case["computer"] == offered
    paired = [x for pair in case["pairs"] for x in pair]
    assert len(paired) == len(set(paired)), "nobody twice"


def test_the_named_cases_say_what_their_names_say() -> None:
    by_name = {c["name"]: c for c in VECTORS["cases"]}

    def pairs(name: str) -> list[list[str]]:
        return by_name[name]["pairs"]

    assert pairs("two guests, same terms") == [["a", "b"]]
    assert pairs("different terms never pair") == []
    assert pairs("the same browser is the same person") == []
    assert pairs("the same account on two browsers") == []
    assert pairs("oldest fitting seek first") == [["a", "b"]]
    assert pairs("equal times: the smaller id is older") == [["x", "y"]]
    assert pairs("range: a gap of exactly the range fits") == [["a", "b"]]
    assert pairs("range: one point over does not") == []
    assert pairs("range widens by 50 after 5 s") == [["a", "b"]]
    assert pairs("range: 1 ms short of the widening") == []
    assert pairs("both ranges must hold") == []
    assert pairs("a range skips the oldest seek for a closer one") == [["a", "c"]]
    assert pairs("an unrated range needs the other's rating") == []
    assert pairs("unrated, no range: a guest meets an account") == [["a", "b"]]
    assert pairs("a human's seek excludes bots by default") == []
    assert pairs("a human who accepts bots meets one, unrated") == [["a", "b"]]
    assert pairs("rated: a bot never meets a human") == []
    assert pairs("two bots pair, skipping a human") == [["a", "c"]]
    assert pairs("a seek 10 minutes old is gone") == [["b", "c"]]
    assert by_name["a seek 10 minutes old is gone"]["expired"] == ["a"]
    assert by_name["alone for 5 s: offered the computer"]["computer"] == ["a", "b"]
    assert pairs("a seek stamped ahead of now has waited 0") == [["b", "a"]]
    assert pairs("four in a row pair 1-2 and 3-4") == [["a", "b"], ["c", "d"]]
    drawn = [c for c in VECTORS["cases"] if c["name"].startswith("drawn")]
    assert sum(len(c["pairs"]) for c in drawn) >= 50 and sum(len(c["expired"]) for c in drawn) >= 20


SEEKS = st.builds(
    Seek,
    id=st.text("abcdefgh", min_size=1, max_size=3),
    mode=st.sampled_from(["single_game", "match"]),
    length=st.sampled_from([0, 5]),
    clock=st.just(30),
    rated=st.booleans(),
    browser=st.sampled_from(["b1", "b2", "b3", "b4"]),
    since=st.integers(0, 700_000),
    account=st.sampled_from([None, "ann", "bob", "cat"]),
    rating=st.integers(1000, 2200),
    range=st.one_of(st.none(), st.integers(0, 400)),
    bot=st.booleans(),
    bots=st.booleans(),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(SEEKS, max_size=14, unique_by=lambda s: s.id), st.integers(0, 800_000))
def test_the_pool_pairs_fitting_seeks_once_and_leaves_no_fitting_pair(pool, now) -> None:
    pool = [s if s.account is not None else _guest(s) for s in pool]
    pool = [s for s in pool if not s.rated or s.rating is not None]
    pairs = seeks.pair_pool(pool, now)
    by_id = {s.id: s for s in pool}
    paired = [x for pair in pairs for x in pair]
    assert len(paired) == len(set(paired))
    for a, b in pairs:
        sa, sb = by_id[a], by_id[b]
        assert seeks.fits(sa, sb, now) and seeks.queue_order(sa) < seeks.queue_order(sb)
        assert sa.browser != sb.browser and (sa.account is None or sa.account != sb.account)
        assert not seeks.expired(sa, now) and not seeks.expired(sb, now)
    left = [s for s in pool if s.id not in paired and not seeks.expired(s, now)]
    assert not any(seeks.fits(a, b, now) for a in left for b in left)
    assert [list(p) for p in pairs] == plain_pairs([_plain(s) for s in pool], now, VECTORS["rules"])


def _guest(seek: Seek) -> Seek:
    return Seek(seek.id, seek.mode, seek.length, seek.clock, False, seek.browser, seek.since)


def _plain(seek: Seek) -> dict[str, Any]:
    return {name: getattr(seek, name) for name in Seek.__slots__}  # type: ignore[attr-defined]


def test_the_range_only_widens_and_by_the_formula() -> None:
    seek = Seek("a", "match", 5, 60, True, "b1", 1_000, "ann", 1500, 80)
    gaps = [seeks.allowed_gap(seek, 1_000 + t) for t in range(0, 60_000, 250)]
    assert gaps == sorted(gaps) and gaps[0] == 80 and gaps[-1] == 80 + 50 * 11
    assert seeks.allowed_gap(seek, 0) == 80  # a clock a little behind never narrows it
    assert seeks.allowed_gap(Seek("b", "match", 5, 60, False, "b2", 0), 10**9) is None


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"id": ""}, "id"),
        ({"mode": "blitz"}, "mode"),
        ({"length": -1}, "length"),
        ({"clock": 1.5}, "clock"),
        ({"rated": 1}, "rated"),
        ({"account": None, "rating": None}, "rated play needs"),
        ({"rated": False, "account": None, "rating": None, "range": 100}, "range needs"),
        ({"range": 2001}, "range is"),
        ({"account": None}, "only an account"),
        ({"account": ""}, "account"),
    ],
)
def test_a_seek_the_rules_cannot_read_is_refused_by_name(changes: dict, words: str) -> None:
    good = {
        "id": "s1", "mode": "match", "length": 5, "clock": 60, "rated": True,
        "browser": "b1", "since": 0, "account": "ann", "rating": 1500, "range": 100,
    }  # fmt: skip
    assert seeks.check(Seek(**good)) == Seek(**good)
    with pytest.raises(Refused) as caught:
        seeks.check(Seek(**(good | changes)))
    assert caught.value.code == "bad_seek" and words in caught.value.message


def test_the_lobby_counts_who_is_looking_for_what() -> None:
    pool = [
        Seek("a", "single_game", 0, 30, False, "b1", 0),
        Seek("b", "single_game", 0, 30, False, "b2", 0),
        Seek("c", "match", 5, 60, False, "b3", 0),
        Seek("d", "match", 5, 60, False, "b4", -seeks.SEEK_TTL_MS),
    ]
    assert seeks.looking(pool, now=1_000) == {
        ("single_game", 0, 30, False): 2,
        ("match", 5, 60, False): 1,
    }
