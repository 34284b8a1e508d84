"""Plain checks shared by the Python tests (Debian has no pytest in this setup): count them,
print each failure, and exit non-zero if any failed."""

import sys

_counts = {"passed": 0, "failed": 0}


def check(cond, what):
    """Counts one check; prints `what` when `cond` is false."""
    if cond:
        _counts["passed"] += 1
    else:
        _counts["failed"] += 1
        print("FAILED:", what)


def finish():
    """Prints '<n> passed, <m> failed' and exits with 1 on any failure."""
    print(f"{_counts['passed']} passed, {_counts['failed']} failed")
    sys.exit(1 if _counts["failed"] else 0)


# A small, valid search file (as tests/cli/search.cmake's): the quadratic worst case under a
# fixed order, the differing batch searched at alpha = 4 (a few seconds).
SMALL_SEARCH = """[experiment]
seed = 1
trajectories = 2000
[model]
loss = "quadratic"
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 20
sensitivity = 4.0
[training]
scheme = "fixed_order"
eta = 0.05
batch_size = 2
epochs = 1
[noise]
sigma2 = 4.0
[bounds]
alphas = [4]
[estimate]
bootstrap = 0
[search]
objective = "renyi"
alpha = 4
budget = 4
params = [{key = "training.differing_batch", min = 0, max = 9, points = 2}]
"""
