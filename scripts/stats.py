# SPDX-License-Identifier: GPL-2.0
"""Statistics for the A/B benchmark report: mean, sample standard
deviation, Student-t 95% interval, Welch's t-test and the seeds' (I)/(R)
marks. Standard library only; the t distribution comes from the
regularized incomplete beta function."""

import math
from dataclasses import dataclass
from typing import Sequence

CONFIDENCE = 0.95


def mean(xs: Sequence[float]) -> float:
    if not xs:
        raise ValueError('no samples')
    return math.fsum(xs) / len(xs)


def stdev(xs: Sequence[float]) -> float:
    """Sample standard deviation (n - 1); 0 for a single sample."""
    if len(xs) < 2:
        return 0.0
    m = mean(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) *
                                                  (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def t_critical(df: float, confidence: float = CONFIDENCE) -> float:
    """The t with P(|T| <= t) = confidence, by bisection."""
    alpha = 1.0 - confidence
    lo, hi = 0.0, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_two_sided_p(mid, df) > alpha:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


@dataclass(frozen=True)
class Summary:
    n: int
    mean: float
    sd: float
    half_width: float       # of the 95% interval of the mean

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width


def summarize(xs: Sequence[float]) -> Summary:
    m, sd = mean(xs), stdev(xs)
    hw = t_critical(len(xs) - 1) * sd / math.sqrt(len(xs)) \
        if len(xs) > 1 else math.inf
    return Summary(len(xs), m, sd, hw)


def _welch_variance(a: Sequence[float], b: Sequence[float]) -> tuple:
    """(variance of mean(a) - mean(b), Welch-Satterthwaite degrees of
    freedom); the variance is 0 when neither sample varies."""
    sa, sb = summarize(a), summarize(b)
    va, vb = sa.sd ** 2 / sa.n, sb.sd ** 2 / sb.n
    if va + vb == 0.0:
        return 0.0, float(sa.n + sb.n - 2)
    return va + vb, (va + vb) ** 2 / (va ** 2 / (sa.n - 1) +
                                      vb ** 2 / (sb.n - 1))


def welch(a: Sequence[float], b: Sequence[float]) -> tuple:
    """Welch's t-test: (t, degrees of freedom, two-sided p)."""
    var, df = _welch_variance(a, b)
    diff = mean(a) - mean(b)
    if var == 0.0:
        return (0.0 if diff == 0 else math.inf, df,
                1.0 if diff == 0 else 0.0)
    t = diff / math.sqrt(var)
    return t, df, t_two_sided_p(t, df)


def difference_half_width(a: Sequence[float], b: Sequence[float]) -> float:
    """Half-width of the 95% Welch interval of mean(b) - mean(a)."""
    var, df = _welch_variance(a, b)
    return t_critical(df) * math.sqrt(var) if var else 0.0


@dataclass(frozen=True)
class Comparison:
    base: Summary
    patched: Summary
    change_pct: float       # (patched - base) / base, in percent
    p_value: float
    mark: str               # "(I)", "(R)" or ""
    change_hw_pct: float    # half-width of the change's 95% interval


def compare(base: Sequence[float], patched: Sequence[float],
            smaller_is_better: bool = True) -> Comparison:
    """The seeds' convention: (I) an improvement, (R) a regression, where
    the two 95% intervals do not overlap."""
    sb, sp = summarize(base), summarize(patched)
    change = (sp.mean - sb.mean) / sb.mean * 100.0 if sb.mean else math.nan
    mark = ''
    if sp.high < sb.low:
        mark = '(I)' if smaller_is_better else '(R)'
    elif sp.low > sb.high:
        mark = '(R)' if smaller_is_better else '(I)'
    hw = difference_half_width(base, patched) / sb.mean * 100.0 \
        if sb.mean else math.nan
    return Comparison(sb, sp, change, welch(base, patched)[2], mark, hw)
