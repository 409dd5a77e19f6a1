"""The skill record's PR series (server.web.skill.series): each match's PR weighted by its
games' decisions, and the rolling PR over the last 25 games, not matches."""

from __future__ import annotations

from server.web.skill import ROLLING, series


def test_match_pr_and_the_rolling_25_games() -> None:
    assert ROLLING == 25
    # Ten matches of three games: the first five matches at PR 20, the last five at PR 5.
    matches = [[(20.0, 10)] * 3 for _ in range(5)] + [[(5.0, 10)] * 3 for _ in range(5)]
    out = series(matches)
    assert [pr for pr, _ in out] == [20.0] * 5 + [5.0] * 5
    assert out[0][1] == 20.0 and out[4][1] == 20.0
    # After match 6, 18 games so far: all of them. After match 9, 27: the last 25 games.
    assert out[5][1] == round((15 * 20 + 3 * 5) / 18, 2)
    assert out[8][1] == round((13 * 20 + 12 * 5) / 25, 2)
    # After the last: 15 games of PR 5 and the latest 10 of the PR-20 matches.
    assert out[9][1] == round((10 * 20 + 15 * 5) / 25, 2)
    # Games weigh by their decisions; a match without analysed games has no PR.
    assert series([[(10.0, 30), (40.0, 10)], []]) == [(17.5, 17.5), (None, 17.5)]
