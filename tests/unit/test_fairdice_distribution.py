"""10^6 derived rolls: chi-square on faces, unordered pairs and ordered pairs.

Deterministic (fixed reveals, k = 1 .. 10^6), so it either always passes or always fails. The
same blocks read without rejection sampling (plain ``byte % 6``) must fail, which shows the test
has the power to see the bias the scheme avoids.
"""

import hashlib
import itertools
from collections import Counter

import pytest

from protocol.fairdice import GameId, dice_block, roll_seed, sample_dice
from protocol.fairdice.stats import chi2_sf, chi_square

ROLLS = 1_000_000
GAME = GameId(hashlib.sha256(b"distribution match").digest()[:16], 1)
REVEAL0 = hashlib.sha256(b"distribution seat 0").digest()
REVEAL1 = hashlib.sha256(b"distribution seat 1").digest()
P_MIN = 0.001


def derive_all():
    faces, pairs, ordered, plain = Counter(), Counter(), Counter(), Counter()
    for k in range(1, ROLLS + 1):
        seed = roll_seed(GAME, k, REVEAL0, REVEAL1)
        block0 = dice_block(seed, 0)
        later = (dice_block(seed, c) for c in itertools.count(1))
        d1, d2 = sample_dice(itertools.chain([block0], later))
        faces[d1] += 1
        faces[d2] += 1
        pairs[(min(d1, d2), max(d1, d2))] += 1
        ordered[(d1, d2)] += 1
        plain[block0[0] % 6 + 1] += 1  # the biased way, for comparison
    return faces, pairs, ordered, plain


pytestmark = pytest.mark.slow  # about 7 s on one core: 2 * 10^6 SHA-256


@pytest.fixture(scope="module")
def counts():
    return derive_all()


def p_value(counter, cells, probabilities):
    observed = [counter[c] for c in cells]
    total = sum(observed)
    expected = [p * total for p in probabilities]
    return chi2_sf(chi_square(observed, expected), len(cells) - 1)


def test_all_faces_occur_on_both_dice(counts):
    faces, _, ordered, _ = counts
    assert sorted(faces) == [1, 2, 3, 4, 5, 6]
    assert (
        sorted({d1 for d1, _ in ordered}) == sorted({d2 for _, d2 in ordered}) == list(range(1, 7))
    )
    assert sum(faces.values()) == 2 * ROLLS


def test_faces_are_uniform(counts):
    faces = counts[0]
    assert p_value(faces, range(1, 7), [1 / 6] * 6) > P_MIN


def test_unordered_pairs_have_backgammon_odds(counts):
    pairs = counts[1]
    cells = [(a, b) for a in range(1, 7) for b in range(a, 7)]
    assert len(cells) == 21
    probabilities = [(1 if a == b else 2) / 36 for a, b in cells]
    assert p_value(pairs, cells, probabilities) > P_MIN
    doubles = sum(pairs[(a, a)] for a in range(1, 7)) / ROLLS
    assert abs(doubles - 1 / 6) < 0.002


def test_ordered_pairs_are_independent(counts):
    ordered = counts[2]
    cells = [(a, b) for a in range(1, 7) for b in range(1, 7)]
    assert p_value(ordered, cells, [1 / 36] * 36) > P_MIN


def test_the_test_sees_the_modulo_bias_that_rejection_sampling_removes(counts):
    plain = counts[3]
    # 256 = 6 * 42 + 4: plain byte % 6 gives faces 1-4 a 43/256 chance and 5-6 only 42/256.
    assert p_value(plain, range(1, 7), [1 / 6] * 6) < 1e-6
    exact = [43 / 256] * 4 + [42 / 256] * 2
    assert p_value(plain, range(1, 7), exact) > P_MIN
