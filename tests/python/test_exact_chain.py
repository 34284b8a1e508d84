"""A projected 1-D run end to end with the exact chain (run by ctest): its exact-chain rows
bracket the closed form, the audit decides from the bracket, `check` and `report` show
bound / exact (tests/data/exact_chain.toml says what the run is).

Usage: /usr/bin/python3 test_exact_chain.py RDPAUDIT_CLI SOURCE_DIR WORKDIR
Prints '<n> passed, <m> failed' and exits non-zero on any failure.
"""

import os
import subprocess
import sys

import numpy as np

from checks import check, finish  # this folder
from rdpaudit import load  # PYTHONPATH (tests/CMakeLists.txt) or installed

cli, source, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
config = os.path.join(source, "tests", "data", "exact_chain.toml")
out = os.path.join(work, "exact_chain.h5")
subprocess.run([cli, "run", config, "-o", out, "--threads", "2"], check=True,
               stdout=subprocess.DEVNULL)

with load(out) as r:
    check(r.format_version == (2, 7), f"format version {r.format_version}")
    s = r.scenarios[0]
    rows = s.estimates(method="exact-chain")
    alphas = s.group["estimates"]["alpha_grid"][()]
    check(len(rows) == 2 * len(alphas), f"exact-chain rows at every order ({len(rows)})")
    known = [x for x in rows if x["alpha"] <= 6]  # where the projection moves nothing
    covered = [x["lower"] <= 2 * x["alpha"] <= x["upper"] for x in known]
    check(len(known) > 80 and all(covered),
          f"every bracket at alpha <= 6 holds 2 alpha ({covered.count(False)} of {len(known)} do not)")
    widths = [(x["upper"] - x["lower"]) / (2 * x["alpha"]) for x in known]
    check(max(widths) < 1e-4, f"relative bracket width at alpha <= 6 below 1e-4 ({max(widths):.2g})")
    check(all(x["value"] == 0.5 * (x["lower"] + x["upper"]) for x in rows
              if np.isfinite(x["upper"])), "value = the bracket's midpoint")
    a = r.audit()
    table = a.table()
    verdicts = {(x.bound, x.alpha, x.direction): x for x in table}
    for (bound, alpha, d), x in verdicts.items():
        what = f"{bound} at alpha {alpha:g}, direction {d}"
        check(x.exact_method == "exact-chain" and abs(x.exact - 2 * alpha) < 1e-3 * alpha,
              f"{what}: exact from the chain ({x.exact_method}, {x.exact})")
        want = {"half": "violated (exact)", "double": "valid (exact)"}.get(bound)
        if want:
            check(x.verdict == want and not x.within_exact_bracket, f"{what}: {x.verdict}")
        else:
            check(x.within_exact_bracket and x.verdict in ("not rejected", "violated"),
                  f"{what}: within the bracket, decided by the samples ({x.verdict})")
    notes = [str(n) for n in a.cells["note"]]
    check(any("within the exact bracket [" in n and "(exact chain)" in n for n in notes),
          "the note names the bracket and the exact chain")

done = subprocess.run([cli, "check", out], capture_output=True, text=True)
check(done.returncode == 0, f"check passes: {done.returncode} {done.stdout[-400:]}")
check("bound/exact" in done.stdout and "0.5" in done.stdout and "2 " in done.stdout,
      "check prints bound / exact (half: 0.5, double: 2)")
done = subprocess.run([cli, "report", out], capture_output=True, text=True)
check(done.returncode == 0 and "bound/exact" in done.stdout, "report prints bound / exact")
with load(out) as r:
    mixture = str(r.scenarios[0].group["estimates"].attrs["mixture"])
    check(mixture.startswith("exact chain (h = s/40"), f"the exact law described ({mixture})")

finish()
