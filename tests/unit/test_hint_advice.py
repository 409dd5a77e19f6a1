"""The hint's advice (:func:`server.web.hints.advise`) on real match states: plays in the move
record's notation, and facing a double the figures of the player who must decide."""

from __future__ import annotations

from engine.match import Match, MatchOptions
from engine.movegen import legal_plays
from engine.notation import play_text
from server.machine.state import Config, MatchState, Phase
from server.web.hints import advise


def _state(match: Match) -> MatchState:
    return MatchState("0" * 32, Config(match.options), 0, ("Ann", "Bob"), match,
                      phase=Phase.PLAY)


def test_plays_in_notation_and_the_taker_s_figures() -> None:
    m, _ = Match.new(MatchOptions.money()).start_game()
    m, _ = m.roll_off(6, 1)  # seat 0 plays 61 first
    assert m.game is not None
    body = advise(_state(m), 0)
    assert body["phase"] == "move"
    before = m.game.position(0)
    legal = {p.moves for p in legal_plays(before, 6, 1)}
    assert body["plays"] and all(tuple(map(tuple, p["moves"])) in legal for p in body["plays"])
    assert [p["play"] for p in body["plays"]] == [
        play_text(before, tuple(map(tuple, p["moves"]))) for p in body["plays"]]
    assert body["plays"][0]["play"] == "13/7 8/7"  # the opening 61: make the bar point

    m, _ = m.move(0, tuple(map(tuple, body["plays"][0]["moves"])))
    m, _ = m.double(1)  # Bob doubles before his roll: Ann must decide
    body = advise(_state(m), 0)
    assert body["phase"] == "take"
    cube = body["cube"]
    # Ann's own figures: taking is worth minus what the double/take gives Bob, passing −1.
    assert cube["take"] == -cube["double_take"] and cube["pass"] == -cube["double_pass"]
    assert cube["pass"] == -1.0
    assert cube["action"] in ("take", "beaver") and cube["take"] > cube["pass"]
    assert 0.5 < cube["win"] < 0.7  # Ann's chance, after her good opening
    # On the doubler's side of the same decision the taker's figures are not given.
    m2, _ = Match.new(MatchOptions.money()).start_game()
    m2, _ = m2.roll_off(6, 1)
    m2, _ = m2.move(0, tuple(map(tuple, advise(_state(m2), 0)["plays"][0]["moves"])))
    body = advise(_state(m2), 1)
    assert body["phase"] == "decide" and body["cube"]["take"] is None
