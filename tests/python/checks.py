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
