"""The chi-square survival function against closed forms and textbook critical values."""

import math

import pytest

from protocol.fairdice.stats import chi2_sf, chi_square


@pytest.mark.parametrize(
    ("x", "df", "p"),
    [
        (3.841459, 1, 0.05),
        (6.634897, 1, 0.01),
        (5.991465, 2, 0.05),
        (7.814728, 3, 0.05),
        (15.086272, 5, 0.01),
        (20.515006, 5, 0.001),
        (31.410433, 20, 0.05),
        (45.314747, 20, 0.001),
        (49.801850, 35, 0.05),
        (66.619, 35, 0.001),
    ],
)
def test_critical_values(x, df, p):
    assert chi2_sf(x, df) == pytest.approx(p, rel=2e-4)


def test_closed_forms_and_limits():
    for x in (0.1, 1.0, 7.5, 40.0):
        assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2))
        assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)))
    assert chi2_sf(0.0, 5) == 1.0
    assert chi2_sf(1e6, 20) == 0.0
    for df in (1, 4, 5, 20, 35):
        previous = 1.0
        for x in range(1, 200, 3):
            assert 0.0 <= chi2_sf(float(x), df) <= previous
            previous = chi2_sf(float(x), df)
    with pytest.raises(ValueError):
        chi2_sf(1.0, 0)


def test_chi_square_statistic():
    assert chi_square([25, 25], [25.0, 25.0]) == 0.0
    assert chi_square([30, 20], [25.0, 25.0]) == pytest.approx(2.0)
    with pytest.raises(ValueError):
        chi_square([1], [1.0, 2.0])
