"""kRedis's split of a budget among tenants (symbiosis.kredis)."""

import itertools

import numpy as np
import pytest

from symbiosis import _native
from symbiosis.kredis import TenantCurve, allocate, choose_k, merge_over_k, predicted_cost

MIB = 1 << 20


def tenant(name, sizes, miss, rate=1000.0, latency=1e-3, weight=1.0):
    return TenantCurve(name, np.asarray(sizes, dtype=np.uint64), np.asarray(miss, dtype=float),
                       rate, latency, weight)


def test_merging_takes_the_lowest_miss_ratio():
    sizes, miss = merge_over_k({5: ([1, 2, 3], [0.5, 0.3, 0.2]),
                                1: ([1, 2, 3], [0.6, 0.3, 0.1]),
                                16: ([1, 2, 3], [0.4, 0.35, 0.1])})
    assert list(sizes) == [1, 2, 3]
    assert list(miss) == [0.4, 0.3, 0.1]
    with pytest.raises(_native.InputError, match="other sizes"):
        merge_over_k({1: ([1, 2], [0.5, 0.4]), 5: ([1, 3], [0.5, 0.4])})
    with pytest.raises(_native.InputError, match="at least one"):
        merge_over_k({})


def test_k_choice_keeps_the_k_in_place_within_the_margin():
    curves = {1: ([100, 200], [0.50, 0.30]),
              5: ([100, 200], [0.49, 0.30]),
              16: ([100, 200], [0.45, 0.30])}
    # The lowest at 100 bytes is K = 16's.
    assert choose_k(curves, 100) == 16
    # K = 5 in place: 0.49 is not within 2% of 0.45 (0.0098 of 0.49).
    assert choose_k(curves, 100, present=5, margin=0.02) == 16
    # ... but within 10%: it stays, and no K flips on noise.
    assert choose_k(curves, 100, present=5, margin=0.10) == 5
    # Between points, interpolated: at 150 bytes K = 16's 0.375 beats K = 1's 0.40.
    assert choose_k(curves, 150, present=1, margin=0.02) == 16
    # Ties with nothing in place go to Redis's default 5, else the smallest.
    assert choose_k(curves, 200) == 5
    assert choose_k({16: curves[16][:], 3: ([100, 200], [0.45, 0.30])}, 100) == 3
    # A K in place that has no curve is no K in place.
    assert choose_k(curves, 200, present=10, margin=0.5) == 5
    with pytest.raises(_native.InputError, match="at least one"):
        choose_k({}, 100)
    with pytest.raises(_native.InputError, match="margin"):
        choose_k(curves, 100, margin=-0.1)


def test_a_costly_cliff_gets_its_memory():
    """A tenant whose misses cost 2 ms and whose curve falls to 0 at 30 MiB
    gets 30 MiB; the cheap, gently falling one gets the rest."""
    remote = tenant("remote", [10 * MIB, 30 * MIB, 100 * MIB], [0.9, 0.0, 0.0], latency=2e-3)
    local = tenant("local", [10 * MIB, 50 * MIB, 100 * MIB], [0.6, 0.4, 0.2], latency=2e-4)
    sizes = allocate([remote, local], 100 * MIB, MIB, [MIB, MIB])
    assert sizes == [30 * MIB, 70 * MIB]
    equal = [50 * MIB, 50 * MIB]
    assert predicted_cost([remote, local], sizes) < predicted_cost([remote, local], equal)


def test_the_program_finds_the_grids_best_split():
    rng = np.random.default_rng(5)
    grid = 1 * MIB
    for _ in range(20):
        ts = []
        for i in range(3):
            sizes = np.sort(rng.choice(np.arange(1, 21), 5, replace=False)) * grid
            miss = np.sort(rng.random(5))[::-1]
            ts.append(tenant(f"t{i}", sizes, miss, rate=rng.uniform(100, 1000),
                             latency=rng.uniform(1e-4, 2e-3)))
        for objective in ("latency", "hit-throughput"):
            got = allocate(ts, 20 * grid, grid, [grid] * 3, objective)
            assert sum(got) == 20 * grid
            brute = min(predicted_cost(ts, [a * grid, b * grid, (20 - a - b) * grid], objective)
                        for a, b in itertools.product(range(1, 19), repeat=2) if a + b <= 19)
            assert predicted_cost(ts, got, objective) == pytest.approx(brute, rel=1e-9, abs=1e-12)


def test_floors_hold_and_bad_input_is_one_error():
    flat = tenant("flat", [MIB], [0.5])
    steep = tenant("steep", [10 * MIB], [0.0], latency=1.0)
    sizes = allocate([flat, steep], 10 * MIB, MIB, [3 * MIB, 0])
    assert sizes[0] >= 3 * MIB and sum(sizes) == 10 * MIB
    with pytest.raises(_native.InputError, match="floors add up"):
        allocate([flat, steep], 10 * MIB, MIB, [6 * MIB, 6 * MIB])
    with pytest.raises(_native.InputError, match="unknown objective"):
        allocate([flat], 10 * MIB, MIB, [0], "throughput")
    with pytest.raises(_native.InputError, match="granularity of at least"):
        allocate([flat], 1 << 40, 1, [0])
