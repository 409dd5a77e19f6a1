"""Two players under the same name (two nameless guests above all) can be told apart."""

from __future__ import annotations

from protocol.client import create_match, join_match
from protocol.client.lobby import get
from server.match.service import distinct_name


def test_distinct_name_only_changes_a_clash() -> None:
    assert distinct_name("Bob", "Ann") == "Bob"
    assert distinct_name("Bob", None) == "Bob"
    assert distinct_name("Guest", "Guest") == "Guest 2"
    assert distinct_name("ann", "Ann") == "ann 2"
    long = "x" * 24
    assert distinct_name(long, long) == "x" * 22 + " 2"


async def test_two_nameless_players_are_not_both_guest(server) -> None:
    created = await create_match(server.base, mode="single_game")
    await join_match(server.base, created["match"])
    info = await get(server.base, f"/api/matches/{created['match']}")
    assert info["names"] == ["Guest", "Guest 2"]
