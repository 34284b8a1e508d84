"""Privacy profiles and (eps, delta) claims read back by the Python reader and drawn (ctest).

Usage: /usr/bin/python3 test_profile_reader.py RDPAUDIT_CLI SOURCE_DIR WORKDIR
Runs tests/data/profile_claims.toml small, then checks estimates/profile and claims/ against
the Gaussian pair's closed form (Balle & Wang 2018, Theorem 8) and that
<experiment>_profile.png is drawn.
"""

import math
import os
import subprocess
import sys

import numpy as np

from checks import check, finish  # this folder
from rdpaudit import load  # PYTHONPATH (tests/CMakeLists.txt) or installed

cli, source, work = sys.argv[1:4]

os.makedirs(work, exist_ok=True)
out = os.path.join(work, "profile_claims.h5")
subprocess.run([cli, "run", os.path.join(source, "tests/data/profile_claims.toml"), "-o", out,
                "--trajectories", "20000", "--threads", "1"], check=True,
               stdout=subprocess.DEVNULL)


def phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


with load(out) as r:
    s = r.scenarios[0]
    p = s.profile()
    check(p is not None, "estimates/profile is read")
    check(list(p.epsilons) == [0, 0.5, 1, 1.5, 2, 3, 4], f"epsilons {p.epsilons}")
    check(list(p.deltas) == [1e-5, 1e-3], f"deltas {p.deltas}")
    methods = sorted({(row["method"], row["direction"]) for row in p.rows})
    check(methods == [("exact-profile", 0), ("exact-profile", 1), ("profile-cp", 0),
                      ("profile-cp", 1)], f"rows {methods}")
    for row in p.rows:
        if row["method"] == "exact-profile":
            # mu / s = 1: delta(eps) = Phi(1/2 - eps) - e^eps Phi(-1/2 - eps).
            truth = [phi(0.5 - e) - math.exp(e) * phi(-0.5 - e) for e in p.epsilons]
            check(np.allclose(row["delta_value"], truth, rtol=1e-8, atol=1e-15),
                  f"exact profile {row['delta_value']} against {truth}")
            check(np.allclose(row["epsilon_value"], [4.377178095681, 3.138670548583],
                              rtol=1e-9), f"exact eps(delta) {row['epsilon_value']}")
        else:
            check(np.all(np.isinf(row["delta_upper"])), "certified rows are one-sided")
            check(np.all(row["epsilon_lower"] <= [4.3771781, 3.1386706]),
                  f"certified eps(delta) {row['epsilon_lower']} below the truth")
            check(np.all(np.diff(row["delta_lower"]) <= 0), "delta_lo(eps) non-increasing")
    c = s.claims()
    check(c.names == ["gaussian_composition (eps, delta)", "half_truth", "truth"],
          f"claims {c.names}")
    check(c.kinds == ["conversion", "claim", "claim"], f"kinds {c.kinds}")
    check(c.values.shape == (3, 2) and c.values[1, 1] == 1.5693353, f"values {c.values}")
    check(np.all(np.isnan(c.mu)), f"no Gaussian-DP claim: mu all NaN ({c.mu})")
    # Since 2.5: the pair's Gaussian-DP mu, exactly 1 here (a Gaussian pair, gap / sd = 1),
    # certified below it by the profile family.
    g = s.gdp()
    check(g is not None and g.epsilon_grid_max == 64, "estimates/gdp is read")
    got = sorted((row["method"], row["direction"]) for row in g.rows)
    check(got == methods, f"gdp rows {got}")
    for row in g.rows:
        if row["method"] == "exact-profile":
            check(abs(row["value"] - 1) < 1e-12 and row["lower"] == row["upper"] == row["value"],
                  f"exact mu {row}")
        else:
            check(0.8 < row["lower"] < 1 and row["upper"] == math.inf, f"certified mu {row}")
    a = r.audit()
    check(set(a.cells["quantity"]) == {"renyi", "eps_delta"}, "cell quantities")
    claim_cells = ~np.isnan(a.cells["delta"])
    check(claim_cells.sum() == 12, f"{claim_cells.sum()} claim cells, expected 3 x 2 x 2")
    check(np.all(np.isnan(a.cells["alpha"][claim_cells])), "claim cells have no order")

# Since 2.6: a built-in privacy-profile bound, a row of kind "profile theorem" in claims/ and
# /audit/bounds, decided by the exact profile of the last iterate (valid (exact)).
bound_out = os.path.join(work, "profile_bound.h5")
subprocess.run([cli, "run", os.path.join(source, "tests/data/profile_bound.toml"), "-o", bound_out,
                "--threads", "1"], check=True, stdout=subprocess.DEVNULL)
with load(bound_out) as r:
    check(r.format_version >= (2, 6), f"format version {r.format_version}")
    c = r.scenarios[0].claims()
    check(c.names == ["gaussian_composition (eps, delta)", "fs25_thm4.1_random_allocation"],
          f"claims {c.names}")
    check(c.kinds == ["conversion", "profile theorem"], f"kinds {c.kinds}")
    eps = c.values[1]
    # one allocation, mu = 1/(z sqrt(t)) = 0.01 for the last iterate: the theorem (for the
    # whole transcript) lies above the exact eps(delta) and decreases in delta
    check(eps[0] > eps[1] > 0 and eps[0] < 0.1, f"Theorem 4.1's eps(delta) {eps}")
    a = r.audit()
    names = list(a.bounds["name"])
    row = names.index("fs25_thm4.1_random_allocation")
    check(a.bounds["kind"][row] == "profile theorem", f"kind {a.bounds['kind'][row]}")
    check(a.bounds["outcome"][row] == "valid (exact)", f"outcome {a.bounds['outcome'][row]}")
    cells = a.cells["bound"] == row
    check(cells.sum() == 4 and set(a.cells["quantity"][cells]) == {"eps_delta"},
          "its cells are (eps, delta) cells")
checked = subprocess.run([cli, "check", bound_out], capture_output=True, text=True)
check(checked.returncode == 0 and "profile theorem" in checked.stdout,
      f"check: exit {checked.returncode}: {checked.stdout[-2000:]}")

plots = subprocess.run([cli, "plot", out, "--out", work], capture_output=True, text=True)
check(plots.returncode == 0, f"plot: exit {plots.returncode}: {plots.stderr}")
png = os.path.join(work, "profile_claims_profile.png")
check(os.path.exists(png) and os.path.getsize(png) > 10000, "the profile figure is drawn")
finish()
