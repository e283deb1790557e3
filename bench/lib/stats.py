"""Statistics of timed samples, one definition for every scenario."""
import statistics


def pct(xs, q):
    """Nearest-rank percentile q (0..100) of xs; NaN for no samples."""
    s = sorted(xs)
    if not s:
        return float("nan")
    return s[max(0, min(len(s) - 1, -(-len(s) * q // 100) - 1))]


def med(values):
    """Median of the values that are not None; None when there are none."""
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None
