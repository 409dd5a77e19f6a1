"""The rematch: the one process that spans two matches, and the model for those to come
(tournaments, pairing pools).

A seat of finished match A offers a rematch; the other seat of A accepts it, or declines it.
The process keeps no state of its own: every step is a transition of A or of the new match B,
applied through the match service like any command (compare-and-set, logged, told to the
connections), or a pure derivation, so a retry after a crash anywhere finds what was done and
gives the same answer. What the two matches hold of it:

* A's state: ``rematch = (by, B)`` once offered, the ``rematch_offered`` event in A's log (at
  most once per match: the machine refuses a second offer with ``rematch_offered``);
* B's config: ``rematch_of = A`` and ``rematch_for``, the seat of A whose player alone may take
  B's seat 1 (B is never listed as open, and an ordinary join of B is refused);
* B's seats hash: seat 0's token hash, derived from the asker's token of A
  (:func:`~server.match.tokens.rematch_token`, so asking again yields the same token), the
  asker's account link; once accepted, seat 1's derived token hash, the other player's account
  link and the labels carried over from A (``labels``, given by the wiring: the bot's level of a
  match against the computer, ``server.work.botmatch.BOT_FIELD``).

**Offer** (:meth:`Rematches.offer`; ``POST /api/matches/{A}/rematch {token}``):

1. The asker's seat of A, from its token (a read; ``forbidden`` for any other token).
2. A, read fresh. An offer stands already: by the asker, it is answered again (its derived
   token; nothing is written); by the other seat, the asker accepts it (**Accept** below).
3. B's id is drawn, and A's machine is asked whether it takes the offer now (pure: nothing is
   created for an offer it would refuse, e.g. ``wrong_phase`` before A is over).
4. B is stored: its creation, with A's settings, the asker in seat 0 under its name in A.
   *Crash after 4*: B waits, unreachable: its id was told to nobody, A does not name it, no
   index lists it; it holds only its own keys. A retry draws another id.
5. The offer is recorded in A (``OfferRematch``: ``rematch_offered``, heard live by both seats
   and A's spectators). If another request's offer won the race (refused
   ``rematch_offered``), B is cancelled (its creator leaves it: ``match_over cancelled``) and
   the request starts again at 2, where it finds the winning offer.
   *Crash after 5*: the offer stands; the retry finds it at 2 and answers the same.
6. The answer: B, seat 0, the derived token.

**Accept** (:meth:`Rematches.accept`; ``POST /api/matches/{B}/join {rematch_token}``):

1. B, read fresh; the token's seat of A must be B's ``rematch_for`` (else ``forbidden``).
2. Seat 1 is taken with the derived token, under that player's name in A, with its account link
   and A's labels: the join and its seats-hash fields are one commit.
   *Crash after 2*: the retry finds seat 1's stored hash equal to its derived token and answers
   the same; any other token finds the seat taken (``seat_taken``).
3. The answer: B, seat 1, the derived token.

**Decline** (:meth:`Rematches.decline`; ``POST /api/matches/{B}/decline {rematch_token}``): as
accept's step 1, then B ends unplayed (``DeclineRematch``: ``match_over declined``), which the
offerer, waiting on B's page, hears at once. Declining again changes nothing; after the accept
it is refused (``wrong_phase``). The offerer leaving B also ends it (``cancelled``).

So a request can be repeated from the start whatever happened to the last one, with the same
answer; the only thing a crash can leave behind is an unreachable waiting B (offer steps 4-5).
A bot worker is a client like any player: seeing an offer, it accepts through the same route
with its token of A, and queues B's seat once (``bots/worker.py``, docs/bots.md).

A new cross-match process follows the same rules: its facts live in the matches (or in keys
under their tags), each step is one stored transition or a pure derivation, a retry finds the
step done (derived ids and tokens, ``NX`` writes, the machine refusing a second time), and it
listens for finished matches on the bus (:mod:`server.match.bus`) when it must act on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from protocol.errors import ErrorCode
from server.machine import core
from server.machine.commands import DeclineRematch, Join, Leave, OfferRematch
from server.machine.state import MatchState
from server.match.service import MatchService, Unavailable
from server.match.tokens import new_match_id, rematch_token, token_hash

ATTEMPTS = 4
"""How many offers one request may lose to concurrent ones before giving up (``retry_later``)."""


@dataclass(frozen=True, slots=True)
class Rematched:
    """A player's seat in the rematch of a finished match: ``created`` when this request made
    it; ``offered_by`` is the seat of the finished match that offered it."""

    match_id: str
    seat: int
    token: str
    offered_by: int
    created: bool


class Rematches:
    """The rematch process over ``matches``; ``labels``: the seats-hash fields a rematch takes
    over from its first match when its seat 1 is taken."""

    def __init__(self, matches: MatchService, labels: Sequence[str] = ()) -> None:
        self.matches = matches
        self.labels = tuple(labels)

    async def offer(self, match_id: str, token: str) -> Rematched:
        """Offer a rematch of finished match ``match_id`` as the seat holding ``token`` (or
        accept the other seat's offer): the steps above.

        Raises :class:`core.Rejected` (``forbidden``: not a seat token of the match;
        ``wrong_phase``: not over), :class:`~server.match.service.NotFound` or
        :class:`~server.match.service.Unavailable`.
        """
        matches = self.matches
        seat = await matches.seat_by_token(match_id, token)
        for _ in range(ATTEMPTS):
            state = await matches.load(match_id, fresh=True)
            offered = state.rematch
            if offered is not None:
                if offered.by == seat:
                    mine = rematch_token(token, offered.match, 0)
                    return Rematched(offered.match, 0, mine, seat, created=False)
                joined = await self.accept(offered.match, token)
                return Rematched(offered.match, 1, joined, offered.by, created=False)
            new_id = new_match_id()
            now = matches.now()
            core.apply(state, OfferRematch(seat, match=new_id), now)  # refused before creating
            config = replace(state.config, rematch_of=match_id, rematch_for=1 - seat)
            new_token = rematch_token(token, new_id, 0)
            fields = {"0": token_hash(new_token), **await self._carried(match_id, seat, 0)}
            await matches.begin(new_id, config, state.names[seat] or "Guest", fields, now)
            try:
                await matches.submit(match_id, OfferRematch(seat, match=new_id))
            except core.Rejected as exc:
                if exc.code != ErrorCode.REMATCH_OFFERED:
                    raise
                # Another request won the race: cancel this one's match and follow the offer.
                await matches.submit(new_id, Leave(0))
                continue
            return Rematched(new_id, 0, new_token, seat, created=True)
        raise Unavailable("too much contention on this match")

    async def accept(self, match_id: str, token: str) -> str:
        """Take seat 1 of rematch ``match_id`` with ``token``, the player's seat token of the
        finished match; returns the new seat token (the same one again on a retry).

        Only the token of the seat the rematch was offered to will do, private or not.
        Raises :class:`core.Rejected` (``forbidden``, ``seat_taken``, ``match_over``),
        :class:`~server.match.service.NotFound` or :class:`~server.match.service.Unavailable`.
        """
        matches = self.matches
        state = await self._invited(match_id, token)
        previous, invited = state.config.rematch_of, state.config.rematch_for
        assert previous is not None and invited is not None
        new_token = rematch_token(token, match_id, 1)
        if state.names[1] is None:
            carried = await self._carried(previous, invited, 1, self.labels)
            fields = {"1": token_hash(new_token), **carried}
            before = await matches.load(previous)
            name = before.names[invited] or "Guest"
            try:
                await matches.submit(match_id, Join(1, name=name), seat_fields=fields)
                return new_token
            except core.Rejected as exc:
                if exc.code != ErrorCode.SEAT_TAKEN:
                    raise
        if await matches.holds(match_id, "1", new_token):
            return new_token  # a retry: this player already took the seat
        raise core.Rejected(ErrorCode.SEAT_TAKEN, "this match already has two players")

    async def decline(self, match_id: str, token: str) -> None:
        """The player rematch ``match_id`` was offered to (``token``: its seat token of the
        finished match) declines it: the rematch ends unplayed (``match_over`` ``declined``),
        which the offerer, waiting on its page, hears at once. Declining again is a no-op.

        Raises :class:`core.Rejected` (``forbidden``; ``wrong_phase``: already accepted),
        :class:`~server.match.service.NotFound` or :class:`~server.match.service.Unavailable`.
        """
        state = await self._invited(match_id, token)
        if state.is_over and state.names[1] is None:
            return  # declined (or cancelled by the offerer) already
        await self.matches.submit(match_id, DeclineRematch(1))

    async def _invited(self, match_id: str, token: str) -> MatchState:
        """Rematch ``match_id``, once ``token`` shows its holder is the player it is for."""
        state = await self.matches.load(match_id, fresh=True)
        previous, invited = state.config.rematch_of, state.config.rematch_for
        if previous is None or invited is None:
            raise core.Rejected(ErrorCode.FORBIDDEN, "this match is not a rematch")
        if await self.matches.seat_by_token(previous, token) != invited:
            raise core.Rejected(ErrorCode.FORBIDDEN, "this rematch is offered to the other player")
        return state

    async def _carried(
        self, match_id: str, seat: int, new_seat: int, labels: Sequence[str] = ()
    ) -> dict[str, bytes]:
        """What ``new_seat`` of the rematch takes over from ``seat`` of ``match_id``: its
        account link (server.players.profiles: a rematch goes into both players' histories; it
        is never rated), and ``labels`` of the match."""
        values = await self.matches.store.seat_fields(match_id, [f"a{seat}", *labels])
        names = [f"a{new_seat}", *labels]
        return {name: value for name, value in zip(names, values, strict=True) if value}
