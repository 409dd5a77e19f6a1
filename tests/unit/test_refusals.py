"""Every refusal code is either one a player can cause, with the sentence a page shows for it,
or one that no player's page causes (with who does): one table of words
(``protocol.refusals.PLAYER_WORDS``), never a code on the screen."""

from __future__ import annotations

import re

from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from protocol.refusals import NOT_FROM_A_PLAYER, PLAYER_WORDS


def test_every_code_is_in_exactly_one_table() -> None:
    every = [*ErrorCode, *HttpCode]
    assert sorted(PLAYER_WORDS.keys() | NOT_FROM_A_PLAYER.keys()) == sorted(every)
    assert not PLAYER_WORDS.keys() & NOT_FROM_A_PLAYER.keys()


def test_the_words_are_sentences_without_a_code() -> None:
    codes = {c.value for c in [*ErrorCode, *HttpCode]}
    for code, words in PLAYER_WORDS.items():
        assert re.fullmatch(r"[A-Z].*[.]", words), (code, words)
        assert not any(re.search(rf"\b{c}\b", words) for c in codes if "_" in c), (code, words)
        assert "_" not in words.replace(" _ ", ""), (code, words)
    assert len(set(PLAYER_WORDS.values())) == len(PLAYER_WORDS)  # each says its own thing


def test_the_refusals_a_page_meets_in_play_have_words() -> None:
    # A second click, an old tab, a cube or resignation out of turn: what issue #26 saw.
    for code in (ErrorCode.NOT_YOUR_TURN, ErrorCode.WRONG_PHASE, ErrorCode.STALE,
                 ErrorCode.CUBE_UNAVAILABLE, ErrorCode.RESIGNATION_DECLINED,
                 ErrorCode.UNSUPPORTED_VERSION, ErrorCode.REPLACED, ErrorCode.SEAT_TAKEN):
        assert code in PLAYER_WORDS
