"""The rules against rating farming (server/players/farming.py, pure), at their edges."""

from __future__ import annotations

from server.players.farming import Facts, Rules, Verdict, assess

RULES = Rules(min_plays=3, pair_daily=3)


def test_a_match_thrown_before_each_player_made_three_plays_is_abandoned():
    for plays in ((0, 0), (2, 9), (9, 2)):
        assert assess(Facts(plays, 0, ()), RULES) == Verdict(False, False, "early", ())
    assert assess(Facts((3, 3), 0, ()), RULES) == Verdict(True, True, None, ())


def test_only_the_first_matches_of_a_pair_in_a_day_are_rated_and_the_rest_are_flagged():
    assert assess(Facts((5, 5), 2, ()), RULES).rated is True
    assert assess(Facts((5, 5), 3, ()), RULES) == Verdict(True, False, "repeat", ("repeat_pair",))
    # An abandoned match is abandoned whatever the count (it never counts itself).
    assert assess(Facts((1, 5), 7, ()), RULES).void == "early"


def test_one_address_flags_without_changing_the_score():
    verdict = assess(Facts((5, 5), 0, ("203.0.113.9",)), RULES)
    assert verdict == Verdict(True, True, None, ("same_address",))


def test_zero_turns_a_rule_off():
    off = Rules(min_plays=0, pair_daily=0)
    assert assess(Facts((0, 0), 50, ()), off) == Verdict(True, True, None, ())
