"""Confidence intervals for match results, numpy only.

* ``wilson(k, n)``: the Wilson score interval of a win rate (95% by default);
  it stays inside [0, 1] and behaves at 0 and n wins, where the normal
  approximation does not.
* ``mean_interval(x)``: a mean with its Student-t interval.
* ``ratio_interval(sums, counts)``: a mean per unit (points per hand) when the
  units come in clusters (the hands of one game, the games of one deal): the
  ratio estimator with a cluster-robust (linearised) standard error, so
  correlated hands of one game are not counted as independent evidence.
* ``clustered_win_rate(wins, games)``: a win rate over clusters of games (the
  seatings of one duplicate deal) with its design effect and interval.

>>> lo, hi = wilson(8, 10)
>>> round(lo, 4), round(hi, 4)
(0.4902, 0.9433)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""


@dataclass(frozen=True)
class Estimate:
    """A value with its interval [lo, hi] and the number of units behind it."""

    value: float
    lo: float
    hi: float
    n: int

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2

    def to_dict(self) -> dict:
        return asdict(self)


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval (lo, hi) for ``successes`` of ``n`` (ties may count 0.5)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return lo, hi


def win_rate(successes: float, n: int, z: float = Z95) -> Estimate:
    """The rate ``successes / n`` with its Wilson interval."""
    lo, hi = wilson(successes, n, z)
    return Estimate(successes / n if n else float("nan"), lo, hi, int(n))


def t_quantile(dof: int, z: float = Z95) -> float:
    """Student-t quantile matching the normal quantile ``z`` (Cornish-Fisher series).

    Within 0.2% of the exact value from 3 degrees of freedom up.
    """
    if dof <= 0:
        return float("inf")
    if dof == 1:
        return 12.706204736174704 if abs(z - Z95) < 1e-9 else float("inf")
    if dof == 2:
        return 4.302652729749464 if abs(z - Z95) < 1e-9 else float("inf")
    v = float(dof)
    z2 = z * z
    return (
        z
        + (z2 + 1) * z / (4 * v)
        + ((5 * z2 + 16) * z2 + 3) * z / (96 * v * v)
        + (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / (384 * v**3)
        + ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / (92160 * v**4)
    )


def mean_interval(values, z: float = Z95) -> Estimate:
    """Mean of ``values`` with the Student-t interval (nan bounds below 2 values)."""
    x = np.asarray(values, dtype=np.float64).ravel()
    n = x.size
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    mean = float(x.mean())
    if n < 2:
        return Estimate(mean, float("nan"), float("nan"), 1)
    half = t_quantile(n - 1, z) * float(x.std(ddof=1)) / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n)


def ratio_interval(sums, counts, z: float = Z95) -> Estimate:
    """Mean per unit, sum(sums) / sum(counts), over clusters, with a cluster-robust interval.

    ``sums[i]`` is the total over the ``counts[i]`` units of cluster i (say the
    points of one agent over the hands of one game). The standard error is the
    linearised (delta-method) one, with the small-sample factor G / (G - 1).
    ``n`` of the result is the number of units.
    """
    s = np.asarray(sums, dtype=np.float64).ravel()
    c = np.asarray(counts, dtype=np.float64).ravel()
    keep = c > 0
    s, c = s[keep], c[keep]
    g = s.size
    total = float(c.sum())
    if g == 0 or total == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    ratio = float(s.sum() / total)
    if g < 2:
        return Estimate(ratio, float("nan"), float("nan"), int(total))
    resid = s - ratio * c
    var = g / (g - 1) * float((resid**2).sum()) / total**2
    half = t_quantile(g - 1, z) * math.sqrt(var)
    return Estimate(ratio, ratio - half, ratio + half, int(total))


def clustered_win_rate(successes, trials, z: float = Z95) -> tuple[Estimate, float]:
    """(rate with interval, design effect) when games come in clusters (duplicate deals).

    ``successes[i]`` wins in the ``trials[i]`` games of cluster i. The design
    effect is the cluster-robust variance of the rate over the variance of as
    many independent games (below 1: the clusters cancel luck). The interval is
    Wilson's with the effective number of games n / deff. The design effect is
    floored at 1 / (games per cluster), so one cluster never counts for more than
    (games per cluster)^2 independent games, which keeps the interval from
    collapsing when every cluster ends alike.
    """
    s = np.asarray(successes, dtype=np.float64).ravel()
    c = np.asarray(trials, dtype=np.float64).ravel()
    keep = c > 0
    s, c = s[keep], c[keep]
    n = float(c.sum())
    if s.size < 2 or n == 0:
        est = win_rate(float(s.sum()), int(n), z)
        return est, 1.0
    p = float(s.sum() / n)
    g = s.size
    var_cluster = g / (g - 1) * float(((s - p * c) ** 2).sum()) / n**2
    var_plain = p * (1 - p) / n
    floor = g / n  # 1 / (mean games per cluster)
    deff = max(var_cluster / var_plain, floor) if var_plain > 0 else 1.0
    n_eff = n / deff
    lo, hi = wilson(p * n_eff, n_eff, z) if n_eff >= 1 else (0.0, 1.0)
    return Estimate(p, lo, hi, int(n)), deff
