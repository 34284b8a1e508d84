#!/usr/bin/python3
"""Speed of rdpaudit's simulator, every ratio taken within one run (bench/README.md).

Workload W1 (../shared/bench/README.md) through `rdpaudit run` against the RNG limit
(`rng_limit`: the fastest scalar N(0,1) generator here, one normal per step) and the
hand-written probe `w1_probe`, with estimation off and on; the NumPy and PyTorch peers; the
batch schemes at the paper's Figure 2 setting; the logistic_cor53 setting and the blog's
projected linear loss, optionally against an older rdpaudit binary (--baseline).

  /usr/bin/python3 bench/run_bench.py [--repeats 3] [--threads 2] [--peer-trajectories 200000]
                                      [--baseline OLD/rdpaudit] [--shared ../shared/bench]

Wall-clock rates (trajectory-steps per second, both datasets, pilot runs not counted) are
medians over the repeats; the programs of one repeat run back to back, so a ratio compares
programs under the same load. Process CPU time (user + sys) is printed beside rdpaudit and the
probe as a check that is less sensitive to other processes on a shared machine.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
W1_STEPS = 1250  # K = 50 epochs x 25 batches


def run(cmd, env=None, cwd=None):
    """Runs cmd, returns (stdout, wall seconds, CPU seconds of the child)."""
    before = os.times()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    wall = time.perf_counter() - t0
    after = os.times()
    if proc.returncode != 0:
        sys.exit(f"run_bench: {' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stdout}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return proc.stdout, wall, cpu


def with_trajectories(text, m):
    return re.sub(r"(?m)^trajectories = \d+", f"trajectories = {m}", text)


def toml_value(text, key):
    return int(re.search(rf"(?m)^{key} = (\d+)", text).group(1))


def find_shared(arg):
    for candidate in [arg, ROOT / ".." / "shared" / "bench", ROOT / ".." / ".." / "shared" / "bench"]:
        if candidate and (Path(candidate) / "rng_limit.cpp").exists():
            return Path(candidate).resolve()
    sys.exit("run_bench: ../shared/bench not found (pass --shared)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--peer-trajectories", type=int, default=200000,
                    help="M of the NumPy/PyTorch peers (their rate does not depend on M)")
    ap.add_argument("--scheme-trajectories", type=int, default=200000)
    ap.add_argument("--cli", default=str(ROOT / "build" / "release" / "rdpaudit"))
    ap.add_argument("--baseline", help="an older rdpaudit binary for the before/after rows")
    ap.add_argument("--shared", help="the shared bench folder (default ../shared/bench)")
    args = ap.parse_args()
    threads = args.threads
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))

    work = Path(tempfile.mkdtemp(prefix="rdpaudit_bench_"))
    yard = work / "yard"
    shutil.copytree(find_shared(args.shared), yard)  # never build inside ../shared
    run(["make", "-s", "-C", str(yard)])
    out_h5 = str(work / "out.h5")

    w1 = (ROOT / "bench" / "w1.toml").read_text()
    w1_m = toml_value(w1, "trajectories")
    (work / "w1.toml").write_text(w1)
    (work / "w1_estimate.toml").write_text(re.sub(r"\[estimate\]\nenabled = false\n", "", w1))
    schemes = ["shuffle_partition", "shuffle_each_epoch", "sample_without_replacement"]
    for s in schemes:
        text = with_trajectories(w1, args.scheme_trajectories).replace(
            'scheme = "shuffle_partition"', f'scheme = "{s}"')
        (work / f"{s}.toml").write_text(text)

    def rdpaudit(cli, toml, steps_per_dataset_trajectory, m):
        _, wall, cpu = run([cli, "run", str(toml), "-o", out_h5, "--threads", str(threads)], env=env)
        steps = 2.0 * m * steps_per_dataset_trajectory
        return steps / wall, steps / cpu

    rows = {k: [] for k in ["limit", "probe", "probe_cpu", "run", "run_cpu", "run_est"]}
    for r in range(args.repeats):
        text, _, _ = run([str(yard / "rng_limit"), "1e8", str(threads), "1"], env=env)
        ns = float(re.search(r"xoshiro256\+ \+ ziggurat256 \(inline\)\s+([\d.]+)", text).group(1))
        rows["limit"].append(threads / (ns * 1e-9))  # one normal per step, per core x cores
        text, _, cpu = run([str(yard / "w1_probe"), str(w1_m)], env=env)
        rows["probe"].append(float(re.search(r"traj_steps/s=([\d.e+]+)", text).group(1)))
        rows["probe_cpu"].append(2.0 * w1_m * W1_STEPS / cpu)
        rate, rate_cpu = rdpaudit(args.cli, work / "w1.toml", W1_STEPS, w1_m)
        rows["run"].append(rate)
        rows["run_cpu"].append(rate_cpu)
        rows["run_est"].append(rdpaudit(args.cli, work / "w1_estimate.toml", W1_STEPS, w1_m)[0])
        print(f"repeat {r + 1}: " + ", ".join(f"{k} {v[-1]:.3g}" for k, v in rows.items()), flush=True)

    peers = {}
    pm = args.peer_trajectories
    text, _, _ = run(["/usr/bin/python3", str(yard / "peer_numpy.py"), str(pm)])
    peers["NumPy (peer_numpy.py)"] = float(re.search(r"traj_steps/s=([\d.e+]+)", text).group(1))
    try:
        text, _, _ = run(["/usr/bin/python3", str(yard / "peer_torch.py"), str(pm), "1", "-", "float32"], env=env)
        peers[f"PyTorch float32 (peer_torch.py, {threads} threads)"] = float(
            re.search(r"traj_steps/s=([\d.e+]+)", text).group(1))
    except SystemExit as e:  # python3-torch missing
        print(f"(PyTorch peer skipped: {str(e).splitlines()[0]})")
    peer_run = rdpaudit(args.cli, work / "w1.toml", W1_STEPS, w1_m)[0]  # same run as the peers

    scheme_rates = {s: [] for s in schemes}
    scheme_before = {s: [] for s in schemes}
    for _ in range(args.repeats):
        for s in schemes:
            scheme_rates[s].append(rdpaudit(args.cli, work / f"{s}.toml", W1_STEPS, args.scheme_trajectories)[0])
            if args.baseline:  # right after, under the same load
                scheme_before[s].append(
                    rdpaudit(args.baseline, work / f"{s}.toml", W1_STEPS, args.scheme_trajectories)[0])

    losses = {"logistic_cor53 setting (d = 6)": ROOT / "bench" / "logistic.toml",
              "blog projected linear loss": ROOT / "bench" / "blog_linear.toml"}
    loss_rates = {}
    for name, path in losses.items():
        text = path.read_text()
        m = toml_value(text, "trajectories")
        steps = toml_value(text, "steps") if re.search(r"(?m)^steps = ", text) else None
        if steps is None:  # epochs x floor(n / b)
            steps = toml_value(text, "epochs") * (toml_value(text, "n") // toml_value(text, "batch_size"))
        before, after = [], []
        for _ in range(args.repeats):  # interleaved, so that both see the same load
            after.append(rdpaudit(args.cli, path, steps, m)[0])
            if args.baseline:
                before.append(rdpaudit(args.baseline, path, steps, m)[0])
        loss_rates[name] = (before, after)

    med = {k: statistics.median(v) for k, v in rows.items()}
    print()
    print(f"W1 (2 x {w1_m} trajectories x {W1_STEPS} steps), {threads} thread(s), medians of "
          f"{args.repeats} repeats, trajectory-steps per second (wall clock)")
    print()
    print("| program | steps/s | ratio |")
    print("| --- | ---: | ---: |")
    print(f"| RNG limit (rng_limit: xoshiro256+ + ziggurat, x {threads} threads) | {med['limit']:.3e} | 1 |")
    print(f"| w1_probe (hand-written, xoshiro256+) | {med['probe']:.3e} | {med['probe'] / med['limit']:.2f} of the limit |")
    print(f"| `rdpaudit run`, estimation off | {med['run']:.3e} | {med['run'] / med['limit']:.2f} of the limit, "
          f"{med['run'] / med['probe']:.2f} x the probe |")
    print(f"| `rdpaudit run`, estimation on (defaults) | {med['run_est']:.3e} | "
          f"{med['run_est'] / med['limit']:.2f} of the limit, {med['run_est'] / med['run']:.2f} x "
          f"estimation off |")
    print(f"| (process CPU time: rdpaudit / probe) | {med['run_cpu']:.3e} / {med['probe_cpu']:.3e} | "
          f"{med['run_cpu'] / med['probe_cpu']:.2f} |")
    print()
    print(f"Peers (M = {pm}; rdpaudit W1 in the same run: {peer_run:.3e} steps/s)")
    print()
    print("| peer | steps/s | rdpaudit speed-up |")
    print("| --- | ---: | ---: |")
    for name, rate in peers.items():
        print(f"| {name} | {rate:.3e} | {peer_run / rate:.1f} x |")
    print()
    base = statistics.median(scheme_rates["shuffle_partition"])
    print(f"Batch schemes at the Figure 2 setting (n = 50, b = 2, K = 50, {args.scheme_trajectories} "
          f"trajectories, estimation off)")
    print()
    if args.baseline:
        base_before = statistics.median(scheme_before["shuffle_partition"])
        print("| scheme | steps/s | / shuffle and partition | before (--baseline) | / its shuffle and "
              "partition | speed-up |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
    else:
        print("| scheme | steps/s | / shuffle and partition |")
        print("| --- | ---: | ---: |")
    for s in schemes:
        rate = statistics.median(scheme_rates[s])
        row = f"| {s} | {rate:.3e} | {rate / base:.2f} |"
        if args.baseline:
            b = statistics.median(scheme_before[s])
            row += f" {b:.3e} | {b / base_before:.2f} | {rate / b:.2f} x |"
        print(row)
    print()
    print("Other losses (estimation off)")
    print()
    print("| setting | before (--baseline) | after | speed-up |")
    print("| --- | ---: | ---: | ---: |")
    for name, (before, after) in loss_rates.items():
        a = statistics.median(after)
        if before:
            b = statistics.median(before)
            print(f"| {name} | {b:.3e} | {a:.3e} | {a / b:.2f} x |")
        else:
            print(f"| {name} | - | {a:.3e} | - |")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
