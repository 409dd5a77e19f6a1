"""The doubling cube: values, ownership, offers, takes, drops and beavers."""

import pytest

from engine.cube import CENTRED, MAX_CUBE, Cube
from engine.errors import CubeError, ErrorCode


def test_centred_cube_doubles_for_either_seat_and_take_passes_ownership():
    assert Cube(1, None) == CENTRED
    assert CENTRED.centred and not CENTRED.pending
    for seat in (0, 1):
        offered = CENTRED.offer(seat)
        assert offered.pending and offered.offered_by == seat and offered.value == 1
        assert offered.offered_value == 2
        taken = offered.taken(1 - seat)
        assert taken == Cube(2, owner=1 - seat)
        # only the new owner may redouble
        assert taken.may_double(1 - seat) and not taken.may_double(seat)
        with pytest.raises(CubeError) as exc:
            taken.offer(seat)
        assert exc.value.code is ErrorCode.CUBE_UNAVAILABLE


def test_drop_wins_the_pre_double_value():
    cube = Cube(8, owner=1).offer(1)
    assert cube.dropped(0) == 8


def test_cube_never_goes_above_64():
    cube = CENTRED
    seat = 0
    while cube.may_double(seat):
        cube = cube.offer(seat).taken(1 - seat)
        seat = 1 - seat
    assert cube.value == MAX_CUBE == 64
    with pytest.raises(CubeError, match="above 64"):
        cube.offer(seat)


def test_answers_need_a_pending_offer_from_the_other_seat():
    with pytest.raises(CubeError) as exc:
        CENTRED.taken(0)
    assert exc.value.code is ErrorCode.NO_DOUBLE_PENDING
    offered = CENTRED.offer(0)
    for answer in (offered.taken, offered.dropped, offered.beavered):
        with pytest.raises(CubeError) as exc:
            answer(0)
        assert exc.value.code is ErrorCode.NOT_YOUR_TURN
    with pytest.raises(CubeError, match="already pending"):
        offered.offer(0)
    assert not offered.may_double(0) and not offered.may_double(1)


def test_beaver_doubles_now_keeps_the_cube_and_awaits_the_doubler():
    beavered = CENTRED.offer(0).beavered(1)
    # the beaver took at 2 and redoubled to 4, keeping ownership
    assert beavered == Cube(2, owner=1, offered_by=1, beaver=True)
    assert beavered.offered_value == 4
    # the original doubler takes: 4, still the beaver's cube
    assert beavered.taken(0) == Cube(4, owner=1)
    # or drops: the beaver wins 2
    assert beavered.dropped(0) == 2
    # no beaver of a beaver (no raccoons)
    assert not beavered.may_beaver(0)
    with pytest.raises(CubeError) as exc:
        beavered.beavered(0)
    assert exc.value.code is ErrorCode.BEAVER_UNAVAILABLE


def test_beaver_respects_the_cube_limit():
    assert Cube(16, owner=0).offer(0).may_beaver(1)  # 16 -> 32 -> 64
    high = Cube(32, owner=0).offer(0)  # 32 -> 64, a beaver would reach 128
    assert not high.may_beaver(1)
    with pytest.raises(CubeError) as exc:
        high.beavered(1)
    assert exc.value.code is ErrorCode.BEAVER_UNAVAILABLE
    assert high.taken(1) == Cube(64, owner=1)
