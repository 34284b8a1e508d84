"""Census of the verdicts of results files: cells per verdict, and the close cells.

usage: /usr/bin/python3 python/studies/verdict_census.py [RESULTS.h5 ...] [--markdown]

Default: every results/*.h5 except the untracked quickstart output. Prints, per file, the
count of cells in each verdict and every close cell (not rejected with bound / certified
lower bound below the file's close_margin, or a point estimate above the bound), smallest
margin first, as plain text or as the Markdown tables of results/README.md.
"""

import glob
import os
import sys

import numpy as np

from rdpaudit import load

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

VERDICTS = ("violated (exact)", "violated", "not rejected", "valid (exact)", "inconclusive",
            "not applicable")


def census(path):
    with load(path) as r:
        a = r.audit()
        c = a.cells
        counts = {v: int((c["verdict"] == v).sum()) for v in VERDICTS}
        close = np.nonzero(c["close"] != 0)[0]
        close = close[np.argsort(c["tightness_lower"][close], kind="stable")]
        names = a.bound_names
        sweep = {s.index: ", ".join(f"{k.rsplit('.', 1)[-1]}={t}"
                                    for k, t in zip(s.attrs.get("sweep_keys", []),
                                                    s.attrs.get("sweep_text", [])))
                 for s in r.scenarios}
        rows = [(int(c["scenario"][i]), sweep.get(int(c["scenario"][i]), ""),
                 names[int(c["bound"][i])], float(c["alpha"][i]), int(c["direction"][i]),
                 float(c["bound_value"][i]), float(c["lower"][i]), float(c["estimate"][i]),
                 float(c["tightness_lower"][i])) for i in close]
        return counts, rows, float(a.attrs.get("close_margin", 1.2))


def main(argv):
    markdown = "--markdown" in argv
    files = [a for a in argv if not a.startswith("--")] or sorted(
        f for f in glob.glob(os.path.join(ROOT, "results", "*.h5"))
        if not os.path.basename(f).startswith("quickstart"))
    if markdown:
        print("| file | " + " | ".join(VERDICTS) + " | close |")
        print("| --- |" + " ---: |" * (len(VERDICTS) + 1))
    details = []
    for f in files:
        counts, rows, margin = census(f)
        name = os.path.basename(f)
        if markdown:
            print(f"| `{name}` | " + " | ".join(str(counts[v]) for v in VERDICTS)
                  + f" | {len(rows)} |")
        else:
            print(f"{name}: " + ", ".join(f"{counts[v]} {v}" for v in VERDICTS)
                  + f"; {len(rows)} close")
        details.append((name, rows, margin))
    for name, rows, margin in details:
        if not rows:
            continue
        print()
        if markdown:
            print(f"Close cells of `{name}` (not rejected; margin = bound ÷ certified lower "
                  f"bound < {margin:g}, or the point estimate above the bound):\n")
            print("| scenario | sweep point | bound | α | direction | bound | lower | "
                  "estimate | margin |")
            print("| ---: | --- | --- | ---: | --- | ---: | ---: | ---: | ---: |")
        else:
            print(f"close cells of {name}:")
        for s, sw, b, al, d, bv, lo, est, m in rows:
            direction = "P‖P'" if d == 0 else "P'‖P"
            if markdown:
                print(f"| {s} | {sw} | `{b}` | {al:g} | {direction} | {bv:.4g} | {lo:.4g} | "
                      f"{est:.4g} | {m:.3g} |")
            else:
                print(f"  {s:>4} {sw:<28} {b:<34} {al:>5g} {direction} bound {bv:.4g} "
                      f"lower {lo:.4g} estimate {est:.4g} margin {m:.3g}")


if __name__ == "__main__":
    main(sys.argv[1:])
