"""Round trip: the C++ writer's file read back by the Python reader (run by ctest).

Usage: /usr/bin/python3 test_results_reader.py RDPAUDIT_CLI SOURCE_DIR WORKDIR
Prints '<n> passed, <m> failed' and exits non-zero on any failure.
"""

import os
import subprocess
import sys

import h5py
import numpy as np

from checks import check, finish  # this folder
from rdpaudit import FormatError, load  # PYTHONPATH (tests/CMakeLists.txt) or installed

cli, source, work = sys.argv[1:4]

os.makedirs(work, exist_ok=True)
config = os.path.join(work, "roundtrip.toml")
with open(config, "w") as f:
    f.write("""[experiment]
seed = 5
trajectories = 2000
[model]
loss = "quadratic"
dim = 2
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 10
sensitivity = 4.0
[training]
scheme = "shuffle_partition"
eta = 0.05
batch_size = 2
epochs = [1, 3]
[noise]
sigma2 = 1.0
[tally]
bins = 40
raw_samples = 50
pilot_trajectories = 500
""")
out = os.path.join(work, "roundtrip.h5")
subprocess.run([cli, "run", config, "-o", out, "--threads", "2"], check=True,
               stdout=subprocess.DEVNULL)



with load(out) as r:
    check(r.format_version[0] == 2, "major version 2")
    check(r.attrs["seed"] == 5 and r.attrs["trajectories"] == 2000, "run attributes")
    check("epochs = [1, 3]" in r.config_text, "verbatim config text")
    check(len(r.scenarios) == 2, "two scenarios")
    s = r.scenarios[1]
    check(s.sweep == {"training.epochs": 3.0}, f"sweep point {s.sweep}")
    check(s.attrs["steps"] == 15 and s.attrs["scheme"] == "shuffle_partition", "parameters")
    check(abs(s.attrs["step_std"] - np.sqrt(2 * 0.05 * 1.0)) < 1e-12, "noise equivalent")
    # Issue 13 item 8: the pair's relation and every bound's, written side by side.
    check(s.attrs["adjacency"] == "replace_one", f"scenario adjacency {s.attrs['adjacency']}")
    rel = s.bound_adjacency() or {}
    check(rel.get("mtz19_poisson_composition") == "add_remove"
          and rel.get("ys_thm4.2_shuffle_partition") == "replace_one", f"bounds/adjacency {rel}")
    counts, edges = s.histogram("D", with_flow=True)
    check(counts.sum() == 2000 and len(edges) == 41 and len(counts) == 42, "1-D histogram")
    jc, ex, ey = s.joint_histogram("Dprime", with_flow=True)
    check(jc.sum() == 2000, "2-D histogram total")
    check(s.samples("D").shape == (50, 2), "raw samples")
    check(s.covariance("D").shape == (2, 2), "covariance")
    check(r.format_version == (2, 7), f"format version {r.format_version}")
    check(str(r.attrs["generator"]).startswith("generator 7:"), "generator named")
    rows = s.estimates()
    check(len(rows) > 0, "estimates stored")
    methods = {x["method"] for x in rows}
    check("exact-quadrature" in methods, f"exact estimates for the quadratic loss ({methods})")
    check(all(any(m.endswith(k) for m in methods) for k in ("rigorous-cp", "rigorous-bernstein")),
          f"both rigorous bounds ({methods})")
    with h5py.File(out, "r") as f:
        # Since 2.1: the score cells every estimate was computed from, all trajectories in them.
        g = f["scenarios"]["0001"]
        names = [n.decode() if isinstance(n, bytes) else n for n in g["binning"].attrs["score_names"]]
        check(len(names) >= 1, f"score names {names}")
        for i in range(len(names)):
            for side in ("D", "Dprime"):
                c = g[side][f"score_counts_{i}"][()]
                check(c.sum() == 2000 and len(c) == len(g["binning"][f"score_edges_{i}"]) + 1,
                      f"score {names[i]} counts of {side}")
        est = f["scenarios"]["0001"]["estimates"].attrs
        stored = [m.decode() if isinstance(m, bytes) else m for m in est["methods"]]
        check(stored == ["histogram-plugin", "rigorous-cp", "rigorous-bernstein", "exact"],
              f"estimate.methods stored ({stored})")
        check(est["pilot_per_dataset"] >= 1000, "the selection phase's pilot size stored")
    # The audit as named rows: one per cell, the bound by name, the sweep point as report says.
    a = r.audit()
    table = a.table()
    check(len(table) == len(a) > 0, f"one row per cell ({len(table)} of {len(a)})")
    row = table[-1]
    check(row.scenario == 1 and row.sweep_point == "epochs=3", f"sweep point {row.sweep_point}")
    check(row.bound == a.bound_names[int(a.cells["bound"][-1])], f"bound by name {row.bound}")
    check(row.verdict == a.cells["verdict"][-1] and row.close == bool(a.cells["close"][-1])
          and row.direction == int(a.cells["direction"][-1]), "verdict, close, direction")
    check(all(np.isnan(x.margin) or (np.isinf(x.margin) if x.lower == 0
                                      else x.margin == x.bound_value / x.lower) for x in table),
          "margin = bound / lower")
    check({x.sweep_point for x in table} == {"epochs=1", "epochs=3"}, "both sweep points")
    exact = s.estimates(method="exact-quadrature", direction=0)
    check(all(x["informative"] and x["value"] >= 0 for x in exact), "exact values informative")
    check(abs(exact[0]["alpha"] - 1.1) < 1e-12, "dp_accounting grid starts at 1.1")

# A file of another major version is refused.
with h5py.File(out, "r+") as f:
    f.attrs["format_version"] = np.array([1, 3], dtype=np.int64)
try:
    load(out)
    check(False, "major version 1 refused")
except FormatError as e:
    check("supports major version 2" in str(e), "refusal names the version")

finish()
