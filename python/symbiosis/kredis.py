"""kRedis's decision: how to split one memory budget among the tenants of a
Redis cache, each its own redis-server, from their miss-ratio curves
(the KRR paper, section 4: Equations 6 and 7, Algorithm 3).

Each tenant has curves for several maxmemory-samples K. They are merged
over K: at each size the lowest miss ratio (`merge_over_k`); the K to
run at a tenant's size is the one that gives it, unless the K in place is
within a margin of it (`choose_k`). The split minimises the total
expected miss latency, sum over tenants of miss_ratio(size) x request
rate x miss latency (Equation 6), or maximises the hits per second, sum
of (1 - miss_ratio) x request rate (Equation 7), subject to the sizes
adding up to the budget and each tenant keeping a floor (`allocate`). A
dynamic program over a grid of `granularity` bytes solves it exactly on
the grid, whatever the curves' shape (a miss-ratio curve need not be
convex: a cliff is common), in O(tenants x cells^2).

Pure functions of numbers: the arbiter (reading the servers, applying the
sizes) sits above this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

import numpy as np

from symbiosis import _native

OBJECTIVES = ("latency", "hit-throughput")
# The grid's cells at most: the program holds cells^2 costs a tenant.
MAX_CELLS = 4096


def _interpolate(sizes: Sequence[float], miss_ratios: Sequence[float], size) -> np.ndarray:
    """A curve's miss ratio at `size` bytes: linear between its points, 1
    at 0 bytes, flat beyond the last point."""
    xs = np.concatenate([[0.0], np.asarray(sizes, dtype=float)])
    ys = np.concatenate([[1.0], np.asarray(miss_ratios, dtype=float)])
    return np.interp(np.asarray(size, dtype=float), xs, ys)


@dataclass
class TenantCurve:
    """One tenant's merged curve and what a miss costs it.

    sizes: bytes, ascending, each > 0; miss_ratios: one per size, the
    miss ratio of a cache of that size; rate: requests per second;
    miss_latency: seconds a miss costs beyond a hit; weight: a multiplier
    on its cost (default 1)."""
    name: str
    sizes: np.ndarray
    miss_ratios: np.ndarray
    rate: float
    miss_latency: float
    weight: float = 1.0

    def miss_ratio_at(self, size: np.ndarray) -> np.ndarray:
        """Miss ratio at `size` bytes (see `_interpolate`)."""
        return _interpolate(self.sizes, self.miss_ratios, size)


def merge_over_k(curves: Dict[int, Tuple[Sequence[int], Sequence[float]]]
                 ) -> Tuple[np.ndarray, np.ndarray]:
    """Curves per K, each (sizes, miss ratios) at the same sizes, merged:
    (sizes, the lowest miss ratio at each); `choose_k` says which K to run.
    Raises InputError for no curves or curves at different sizes."""
    if not curves:
        raise _native.InputError("no curves to merge; a tenant needs at least one K's curve")
    ks = sorted(curves)
    sizes = np.asarray(curves[ks[0]][0], dtype=np.uint64)
    table = []
    for k in ks:
        s, m = curves[k]
        if len(s) != len(sizes) or np.any(np.asarray(s, dtype=np.uint64) != sizes):
            raise _native.InputError(f"the curve of K={k} is at other sizes than K={ks[0]}'s; "
                                     "merge curves built at the same sizes")
        table.append(np.asarray(m, dtype=float))
    return sizes, np.vstack(table).min(axis=0)


# Redis's own maxmemory-samples: where no K is in place, ties go to it.
DEFAULT_K = 5


def choose_k(curves: Dict[int, Tuple[Sequence[int], Sequence[float]]], size: float,
             present: int = 0, margin: float = 0.0) -> int:
    """The maxmemory-samples K to run at `size` bytes, from curves per K:
    the one with the lowest miss ratio there, unless the K in place
    (`present`, 0 for none) is within `margin` of that miss ratio (a share
    of the present K's: a change of K is a move, and KRR's curves for
    different K differ by less than their sampling error over much of
    their range), in which case it stays. Among equals with none in
    place, Redis's default 5 if offered, else the smallest K
    (docs/decisions/redis-k-choice.md). Raises InputError for no curves or
    a negative margin."""
    if not curves:
        raise _native.InputError("no curves to choose K from; a tenant needs at least one K's curve")
    if margin < 0:
        raise _native.InputError(f"the K margin {margin} must be at least 0")
    at = {k: float(_interpolate(c[0], c[1], size)) for k, c in curves.items()}
    lowest = min(at.values())
    if present in at and at[present] <= lowest + margin * at[present]:
        return present
    equals = sorted(k for k, m in at.items() if m == lowest)
    return DEFAULT_K if DEFAULT_K in equals else equals[0]


def tenant_costs(t: TenantCurve, cells: int, granularity: int, objective: str) -> np.ndarray:
    """The cost of giving `t` 0..cells cells of `granularity` bytes, per
    second: expected miss latency (latency), or minus the hits
    (hit-throughput), times its weight."""
    mr = t.miss_ratio_at(np.arange(cells + 1) * float(granularity))
    if objective == "latency":
        return t.weight * t.rate * t.miss_latency * mr
    return -t.weight * t.rate * (1.0 - mr)


def allocate(tenants: Sequence[TenantCurve], memory: int, granularity: int,
             floors: Sequence[int], objective: str = "latency") -> List[int]:
    """Bytes per tenant: a multiple of `granularity` at least its floor
    (rounded up to the grid), adding up to at most `memory`, that
    minimises the objective (the paper's Equation 6, or 7 for
    hit-throughput). Memory the curves give no use goes to the first
    tenants whose curves are flat there, so the whole grid is handed out.
    Raises InputError for an unknown objective, a granularity of 0, or
    floors that add up to more than `memory`."""
    if objective not in OBJECTIVES:
        raise _native.InputError(f"unknown objective '{objective}'; use latency or hit-throughput")
    if granularity <= 0:
        raise _native.InputError("the granularity must be at least one byte")
    if len(floors) != len(tenants):
        raise _native.InputError("give one floor per tenant")
    cells = memory // granularity
    if cells > MAX_CELLS:
        raise _native.InputError(
            f"{memory} bytes in cells of {granularity} are {cells} cells, more than the "
            f"{MAX_CELLS} the split is searched over; give a granularity of at least "
            f"{-(-memory // MAX_CELLS)} bytes")
    floor_cells = [-(-int(f) // granularity) for f in floors]
    if sum(floor_cells) > cells:
        raise _native.InputError(
            f"the tenants' floors add up to {sum(floor_cells) * granularity} bytes on the grid, "
            f"more than the {cells * granularity} bytes to split; lower the floors or give more "
            "memory")
    inf = float("inf")
    # best[j]: the least cost of the tenants so far holding exactly j cells.
    best = np.full(cells + 1, inf)
    best[0] = 0.0
    choices = []
    for t, low in zip(tenants, floor_cells):
        cost = tenant_costs(t, cells, granularity, objective)
        cost[:low] = inf
        # total[j, c] = best[j - c] + cost[c] for c <= j.
        j = np.arange(cells + 1)[:, None]
        c = np.arange(cells + 1)[None, :]
        prior = np.where(c <= j, best[np.clip(j - c, 0, cells)], inf)
        total = prior + cost[None, :]
        pick = np.argmin(total, axis=1)  # the fewest cells among equals
        best = total[np.arange(cells + 1), pick]
        choices.append(pick)
    # The most cells whose cost is the least (ties: hand the memory out).
    least = np.min(best)
    j = int(np.flatnonzero(best <= least + 1e-12 * max(1.0, abs(least)))[-1])
    out = []
    for pick in reversed(choices):
        c = int(pick[j])
        out.append(c)
        j -= c
    return [c * granularity for c in reversed(out)]


def predicted_cost(tenants: Sequence[TenantCurve], sizes: Sequence[int],
                   objective: str = "latency") -> float:
    """The objective's value at `sizes` (seconds of miss latency per second,
    or minus the hits per second)."""
    total = 0.0
    for t, s in zip(tenants, sizes):
        mr = float(t.miss_ratio_at(s))
        total += (t.weight * t.rate * t.miss_latency * mr if objective == "latency"
                  else -t.weight * t.rate * (1.0 - mr))
    return total
