"""What the selection phase's pilot size buys (issue 12, third round): whether the default pilot
(a quarter of the counted trajectories) could be smaller at large counts without losing power.

usage: /usr/bin/python3 python/studies/pilot_size_study.py [--trajectories 1000000]
       [--seeds 6] [--pilots 250000,100000]

Paper setting of streaming_study.py (1-D quadratic, n = 50, b = 2, shuffle and partition), K = 50
and K = 1, the given trajectories per dataset, each pilot size (estimate.pilot) over seeds 1 ..
--seeds: the simultaneous lower bound / exact R_alpha at alpha = 2, 4, 8, 16, both directions
(/audit/cells/lower of gaussian_composition), median and worst. Prints the table.
"""
import argparse
import os
import statistics
import tempfile

import streaming_study as S  # the setting, the runner and the ratios (the script's own folder)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trajectories", type=int, default=10**6)
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--pilots", default="250000,100000")
    args = ap.parse_args()
    pilots = [int(x) for x in args.pilots.split(",")]
    work = tempfile.mkdtemp(prefix="rdpaudit_pilot_")
    print("| K | pilot | alpha | median lower / exact | worst |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for epochs in (50, 1):
        per = {p: {a: [] for a in S.ALPHAS} for p in pilots}
        for seed in range(1, args.seeds + 1):
            for p in pilots:
                text = S.PAPER.format(dim=1, name="pilot", seed=seed, trajectories=args.trajectories,
                                      epochs=epochs, audit='"gaussian_composition"', custom="")
                text = text.replace("[estimate]\n", f"[estimate]\npilot = {p}\n")
                cfg = S.write(os.path.join(work, f"p_{epochs}_{seed}_{p}.toml"), text)
                out = os.path.join(work, f"p_{epochs}_{seed}_{p}.h5")
                S.run(cfg, out)
                for (a, _), r in S.ratios(out).items():
                    per[p][a].append(r)
        for p in pilots:
            for a in S.ALPHAS:
                print(f"| {epochs} | {p} | {a} | {statistics.median(per[p][a]):.3f} | "
                      f"{min(per[p][a]):.3f} |", flush=True)


if __name__ == "__main__":
    main()
