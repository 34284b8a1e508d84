"""Statistics shared by the studies: exact (Clopper-Pearson) confidence bounds on a binomial
proportion, from k successes in n trials.

The one-sided bounds take `miss`, the probability that the bound is wrong (0.05 for a 95 %
bound), rather than a confidence: a two-sided interval splits its miss between both ends, and
passing the miss itself avoids computing 1 - (1 - a/2) in floating point.

Needs scipy (Debian: python3-scipy); the reader (rdpaudit.results) does not import this module.
"""

from scipy import stats


def clopper_pearson_lower(k, n, miss=0.05):
    """Lower confidence bound on the proportion: P(bound > p) <= miss. 0 when k = 0."""
    return 0.0 if k == 0 else float(stats.beta.ppf(miss, k, n - k + 1))


def clopper_pearson_upper(k, n, miss=0.05):
    """Upper confidence bound on the proportion: P(bound < p) <= miss. 1 when k = n."""
    return 1.0 if k == n else float(stats.beta.ppf(1 - miss, k + 1, n - k))


def clopper_pearson(k, n, confidence=0.95):
    """Two-sided exact interval (lower, upper) at the given confidence, the miss split evenly."""
    miss = (1 - confidence) / 2
    return clopper_pearson_lower(k, n, miss), clopper_pearson_upper(k, n, miss)
