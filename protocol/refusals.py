"""What a player reads when the server refuses something they did: one sentence per code.

:data:`PLAYER_WORDS` is the one table of the refusals a player can cause with a page — a second
click that arrives after the first one moved the game on, an old tab, a link for another
match, a form — and the sentence the browser shows for each, never the code itself. These
are the English words; the browser keys them by code (``web-client/tools/make_catalog.py``
writes the codes, ``REFUSAL_CODES``, into ``web-client/src/generated/catalog.ts`` and these
words into the English catalogue, ``web-client/src/i18n/refusals.en.json``; the other
languages translate each ``refusal.<code>`` in their catalogue and ``src/net/refusals.ts`` picks
the page's language) and so is the table in docs/protocol.md ("What a player reads").

Every other code (:data:`NOT_FROM_A_PLAYER`) comes from a client that breaks the protocol, from
the server's own trouble or from an operator's setting: a page shows them as one general
sentence (the browser's ``refusalText``), still without the code.

>>> PLAYER_WORDS[ErrorCode.NOT_YOUR_TURN]
'It is not your turn: wait for your opponent.'
>>> set(PLAYER_WORDS).isdisjoint(NOT_FROM_A_PLAYER)
True
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.http_errors import ApiErrorCode, HttpCode

PLAYER_WORDS: dict[ApiErrorCode, str] = {
    # The game: a click that came too late, twice, or at the wrong moment
    ErrorCode.NOT_YOUR_TURN: "It is not your turn: wait for your opponent.",
    ErrorCode.WRONG_PHASE: "That is not possible at this point of the game.",
    ErrorCode.STALE: "The game has moved on since: look at the board again.",
    ErrorCode.TOO_LATE: "Too late: your time had run out before that arrived.",
    ErrorCode.ILLEGAL_PLAY: "That play breaks the rules: play the dice again.",
    ErrorCode.GAME_OVER: "This game is over.",
    ErrorCode.NO_GAME: "No game is being played right now.",
    ErrorCode.GAME_IN_PROGRESS: "That is only possible between games.",
    ErrorCode.MATCH_OVER: "This match is over.",
    ErrorCode.NOT_A_PLAYER: "Only the players can do that: you are watching.",
    # The cube and resignations
    ErrorCode.CUBE_UNAVAILABLE: "You cannot double now.",
    ErrorCode.NO_DOUBLE_PENDING: "There is no double to answer.",
    ErrorCode.BEAVER_UNAVAILABLE: "You cannot beaver this double.",
    ErrorCode.NO_RESIGNATION_PENDING: "There is no resignation to answer.",
    ErrorCode.BAD_RESIGNATION_LEVEL: "You cannot resign that much: the game can no longer end "
    "that badly for you.",
    ErrorCode.RESIGNATION_DECLINED: "Your opponent rejected that resignation: until play moves "
    "on you may only offer a higher one.",
    ErrorCode.NOT_MONEY: "Only a money session can be stopped.",
    # The dice: a seat moved to other devices again and again
    ErrorCode.BAD_COMMITMENT: "This browser's dice commitment was refused (a game allows three "
    "changes of device): reload the page.",
    # The connection: an old tab, a seat opened elsewhere, a wrong link
    ErrorCode.UNSUPPORTED_VERSION: "This page is out of date: reload it.",
    ErrorCode.AUTH_FAILED: "This seat's key is not accepted: open the match from the browser "
    "you joined with.",
    ErrorCode.REPLACED: "This seat is now open in another tab or device: this page stopped "
    "following the match.",
    ErrorCode.RATE_LIMITED: "Too many at once: wait a moment and try again.",
    ErrorCode.RETRY_LATER: "The server cannot store anything right now: try again in a moment.",
    # The lobby, links and forms
    ErrorCode.NOT_FOUND: "Not found: the link may be mistyped, or what it led to is gone.",
    ErrorCode.SEAT_TAKEN: "This match already has two players: you can still watch it.",
    ErrorCode.FORBIDDEN: "This link is not valid for this match.",
    ErrorCode.BAD_FIELD: "Something in what you sent is not accepted: check it and try again.",
    ErrorCode.BAD_OPTIONS: "Those match options are out of range.",
    ErrorCode.REMATCH_OFFERED: "A rematch of this match was already offered.",
    ErrorCode.TOO_MANY_OPEN: "You already have as many matches waiting for an opponent as "
    "allowed: wait until one starts or expires.",
    ErrorCode.NO_BOTS: "The computer opponent is not running on this server right now.",
    ErrorCode.HINTS_UNAVAILABLE: "Hints are only given in matches against the computer.",
    ErrorCode.NO_DECISION: "Nothing to decide right now.",
    # Accounts
    HttpCode.NEEDS_ACCOUNT: "This is a rated match: sign in to play it, or just watch.",
    HttpCode.SAME_ACCOUNT: "Your account already holds the other seat of this match.",
    HttpCode.BAD_USERNAME: "A username is 3 to 20 letters, digits, _ or -.",
    HttpCode.BAD_PASSWORD: "A password is 8 to 128 characters.",
    HttpCode.NAME_TAKEN: "This username is taken.",
    HttpCode.BAD_LOGIN: "Wrong username or password.",
    HttpCode.TOO_MANY_ATTEMPTS: "Too many attempts: wait a while and try again.",
    HttpCode.SIGNED_OUT: "You are not signed in.",
    # Quick pairing and tournaments
    HttpCode.BAD_SEEK: "Those pairing terms are not offered: choose another format or clock.",
    HttpCode.BAD_CONFIG: "Those tournament terms are out of range.",
    HttpCode.FULL: "This tournament has all the players it takes.",
    HttpCode.STARTED: "This tournament is under way: it takes no new players.",
    HttpCode.FINISHED: "This tournament is over.",
    HttpCode.TOO_MANY_TOURNAMENTS: "You already run as many tournaments still going on as allowed.",
    # The analysis board, rollouts and imports
    HttpCode.BAD_POSITION_ID: "That is not a Position ID.",
    HttpCode.BAD_MATCH_ID: "That is not a Match ID of a game being played.",
    HttpCode.BAD_XGID: "That is not an XGID.",
    HttpCode.BAD_PLAY: "That is not a legal play of those dice.",
    HttpCode.TOO_MANY_ROLLOUTS: "You have as many rollouts waiting as allowed: cancel one, or "
    "wait for one to finish.",
    HttpCode.BAD_MATCH_FILE: "That file is not a match this site can read.",
    # Correspondence
    HttpCode.TOO_MANY_GAMES: "You already play as many correspondence matches as allowed.",
    HttpCode.VACATION_USED: "That is more vacation than you have left this year.",
    HttpCode.BOT_POOL: "Bots are rated apart: a bot and a human play unrated matches only.",
    HttpCode.BOT_REFUSED: "This account has played rated matches against people: "
    "it cannot become a bot.",
    # Reports and moderators (docs/moderation.md)
    HttpCode.MUTED: "A moderator silenced your account: you cannot chat.",
    HttpCode.BANNED: "A moderator barred your account: you cannot play rated, chat or report.",
    HttpCode.RATING_SUSPENDED: "A moderator suspended your rating: you can only play unrated.",
    HttpCode.NOT_MODERATOR: "Only moderators see this.",
    HttpCode.SANCTION_CONFLICT: "That sanction is already in force, or is not: reload the page.",
}
"""The sentence a page shows for each refusal a player can cause."""

NOT_FROM_A_PLAYER: dict[ApiErrorCode, str] = {
    ErrorCode.BAD_FRAME: "a client that breaks the protocol",
    ErrorCode.TOO_LARGE: "a client that breaks the protocol (pages keep to the limits)",
    ErrorCode.UNSUPPORTED: "a client that breaks the protocol",
    ErrorCode.UNKNOWN_TYPE: "a client that breaks the protocol",
    ErrorCode.NOT_AUTHENTICATED: "a client that breaks the protocol (hello comes first)",
    ErrorCode.AUTH_TIMEOUT: "a client that never says hello",
    ErrorCode.FORBIDDEN_ORIGIN: "the operator's Origin allowlist",
    ErrorCode.DUPLICATE: "a client that reuses a sequence number",
    ErrorCode.BAD_SEAT: "a client that names no seat of the match",
    ErrorCode.BAD_DICE: "a server fault",
    ErrorCode.BAD_REVEAL: "a client that reveals out of turn (pages reveal by themselves)",
    ErrorCode.BAD_FORFEIT_REASON: "a server fault",
    ErrorCode.UNRESPONSIVE: "a client that does not echo probes (pages do, by themselves)",
    ErrorCode.INTERNAL: "a server fault",
    HttpCode.BAD_ORIGIN: "another site's page, or the operator's Origin allowlist",
    HttpCode.ANALYSIS_FAILED: "a fault of the analysis",
}
"""The other codes, each with who or what causes it."""
