"""Issue 11's figures: the same numbers however a run is spread, what resuming and
checkpointing cost, and how ranks compare with threads.

usage: /usr/bin/python3 python/studies/split_runs_study.py [--part equality|resume|scaling|all]
       [--nompi build/nompi/rdpaudit] [--out docs/studies/split_runs.md]

  equality  three experiment files (quickstart: quadratic; logistic_cor53: logistic, d = 6;
            blog_saturation: projected linear loss), each at a reduced trajectory count: the
            results of 1 rank (reference) against 2, 3, 4 MPI ranks (1 thread each), --part i/4
            + merge, and the build without MPI (--nompi), compared dataset by dataset
            (python/rdpaudit/compare.py).
  resume    a run of >= 60 s (W1 at 6 x 10^6 trajectories, estimation on) killed by SIGKILL at
            three random points, each time resumed (--resume): identical to the uninterrupted
            run; the same with SIGINT. Checkpoint cost: the run with --checkpoint-every 1 and
            with the default (300) against --checkpoint-every 0, medians of 3.
  scaling   W1 (bench/w1.toml): 2 MPI ranks x 1 thread against 1 rank x 2 threads (medians).
"""

import argparse
import os
import random
import signal
import statistics
import subprocess
import tempfile
import time

from rdpaudit.compare import differences

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CLI = os.path.join(ROOT, "build", "release", "rdpaudit")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
FILES = [("quickstart.toml", "quadratic, 1-D, 3 scenarios", 100000),
         ("logistic_cor53.toml", "logistic, d = 6", 20000),
         ("blog_saturation.toml", "projected linear, 18 scenarios", 20000)]


LAST_STDOUT = [""]


def sh(cmd, **kw):
    t = time.time()
    done = subprocess.run(cmd, capture_output=True, text=True, env=ENV, **kw)
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr[-2000:]}")
    LAST_STDOUT[0] = done.stdout
    return time.time() - t


def checkpoint_cost(stdout):
    """(checkpoints written, seconds they took) from run's last lines."""
    for line in stdout.splitlines():
        if line.startswith("checkpoints: "):
            words = line.split()
            return int(words[1]), float(words[-2])
    return 0, 0.0


def equality(work, nompi):
    lines = ["| experiment | trajectories | compared with 1 rank | identical |", "|---|---|---|---|"]
    for name, what, n in FILES:
        cfg = os.path.join(ROOT, "experiments", name)
        base = ["run", cfg, "--trajectories", str(n), "--threads", "1"]
        ref = os.path.join(work, f"{name}_r1.h5")
        sh([CLI, *base, "-o", ref])
        variants = []
        for r in (2, 3, 4):
            out = os.path.join(work, f"{name}_r{r}.h5")
            sh(["mpirun", "--oversubscribe", "-np", str(r), CLI, *base, "-o", out])
            variants.append((f"{r} MPI ranks", out))
        parts = []
        for i in (1, 2, 3, 4):
            parts.append(os.path.join(work, f"{name}_part{i}.h5"))
            sh([CLI, *base, "--part", f"{i}/4", "-o", parts[-1]])
        out = os.path.join(work, f"{name}_merged.h5")
        sh([CLI, "merge", *parts, "-o", out])
        variants.append(("--part i/4 + merge", out))
        if nompi:
            out = os.path.join(work, f"{name}_nompi.h5")
            sh([nompi, *base, "-o", out])
            variants.append(("build without MPI", out))
        for label, out in variants:
            diff = differences(ref, out)
            lines.append(f"| {name} ({what}) | {n} | {label} | "
                         f"{'yes' if not diff else 'NO: ' + '; '.join(diff[:3])} |")
            print(lines[-1], flush=True)
    return lines


SIGNALS = [signal.SIGKILL, signal.SIGINT]


def resume(work, trajectories, timing):
    cfg = os.path.join(ROOT, "bench", "w1.toml")
    # bench/w1.toml turns estimation off; the resume study runs the whole pipeline.
    text = open(cfg).read().replace("enabled = false", "enabled = true")
    cfg2 = os.path.join(work, "w1_estimation.toml")
    open(cfg2, "w").write(text)
    base = [CLI, "run", cfg2, "--trajectories", str(trajectories), "--threads", "2"]
    ref = os.path.join(work, "w1_ref.h5")
    runs = {"0": [], "300": [], "1": []} if timing else {"0": []}
    written = []  # (checkpoints, their seconds, the run's wall) of the runs at every 1 s
    for k in range(3 if timing else 1):  # interleaved: load drifts hit every setting alike
        for every in runs:
            out = ref if every == "0" and k == 0 else os.path.join(work, "w1_timing.h5")
            runs[every].append(sh([*base, "-o", out, "--checkpoint-every", every]))
            if every == "1":
                written.append((*checkpoint_cost(LAST_STDOUT[0]), runs[every][-1]))
    times = {every: statistics.median(t) for every, t in runs.items()}
    print(f"checkpoint timings: {runs}", flush=True)
    total = times["0"]
    if not timing:
        runs = {}
    rng = random.Random(11)
    lines = [f"Uninterrupted run: {total:.1f} s ({'median of 3, ' if timing else ''}--checkpoint-every 0).", "",
             "| signal | stopped at (s after start) | status | resumed: identical |",
             "|---|---|---|---|"]
    for sig in SIGNALS:
        for trial in range(3):
            out = os.path.join(work, f"w1_{sig.name}_{trial}.h5")
            for f in (out, out + ".ckpt"):
                if os.path.exists(f):
                    os.remove(f)
            at = rng.uniform(0.1, 0.9) * total
            proc = subprocess.Popen([*base, "-o", out, "--checkpoint-every", "5"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(at)
            proc.send_signal(sig)
            proc.wait()
            status = proc.returncode
            if status == 0:  # the interrupt came after the counting: the run finished
                status = "0 (finished)"
            else:
                sh([*base, "-o", out, "--checkpoint-every", "5", "--resume"])
            diff = differences(ref, out)
            lines.append(f"| {sig.name} | {at:.1f} | {status} | "
                         f"{'yes' if not diff else 'NO: ' + '; '.join(diff[:3])} |")
            print(lines[-1], flush=True)
    if not timing:
        return lines
    lines += ["", "| --checkpoint-every | wall (median of 3) | / every 0 |", "|---|---|---|"]
    for every in ("0", "300", "1"):
        lines.append(f"| {every} | {times[every]:.2f} s | {times[every] / total:.3f} |")
    lines += ["", "Time spent writing checkpoints at --checkpoint-every 1 (the run's own count):",
              "", "| checkpoints | seconds writing | run wall | share |", "|---|---|---|---|"]
    for n, secs, wall in written:
        lines.append(f"| {n} | {secs:.3f} | {wall:.1f} s | {secs / wall:.2%} |")
    return lines


def scaling(work):
    cfg = os.path.join(ROOT, "bench", "w1.toml")
    out = os.path.join(work, "w1.h5")
    t_threads, t_ranks = [], []
    for _ in range(3):
        t_threads.append(sh([CLI, "run", cfg, "--threads", "2", "-o", out]))
        t_ranks.append(sh(["mpirun", "--oversubscribe", "-np", "2", CLI, "run", cfg,
                           "--threads", "1", "-o", out]))
    a, b = statistics.median(t_threads), statistics.median(t_ranks)
    return ["| W1 (2 x 10^6 trajectories x 1250 steps) | wall (median of 3) |", "|---|---|",
            f"| 1 rank x 2 threads | {a:.2f} s ({t_threads}) |",
            f"| 2 MPI ranks x 1 thread | {b:.2f} s ({t_ranks}) |",
            f"| ratio ranks / threads | {b / a:.3f} |"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", default="all")
    ap.add_argument("--nompi", default="")
    ap.add_argument("--out", default="")
    ap.add_argument("--signals", default="KILL,INT", help="resume: which signals (KILL,INT)")
    ap.add_argument("--trajectories", type=int, default=6000000, help="resume: run size")
    ap.add_argument("--no-timing", action="store_true", help="resume: skip the timing runs")
    a = ap.parse_args()
    SIGNALS[:] = [getattr(signal, "SIG" + x) for x in a.signals.split(",")]
    work = tempfile.mkdtemp(prefix="rdpaudit_split_")
    report = [f"Measured {time.strftime('%Y-%m-%d %H:%M')} (`uptime`: "
              f"{os.getloadavg()[0]:.1f} load), command: "
              f"`/usr/bin/python3 python/studies/split_runs_study.py --part {a.part}"
              f"{' --nompi ' + a.nompi if a.nompi else ''}`", ""]
    if a.part in ("equality", "all"):
        report += ["## Equality", ""] + equality(work, a.nompi) + [""]
    if a.part in ("resume", "all"):
        report += ["## Resume and checkpoint cost", ""] + resume(
            work, a.trajectories, not a.no_timing) + [""]
    if a.part in ("scaling", "all"):
        report += ["## Ranks against threads", ""] + scaling(work) + [""]
    text = "\n".join(report)
    print(text)
    if a.out:
        open(a.out, "a").write(text + "\n")


if __name__ == "__main__":
    main()
