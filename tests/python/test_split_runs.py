"""Issue 11: a run split any way gives the numbers of one run.

For three small experiments (1-D quadratic with raw samples across the part boundaries, 2-D
logistic with Poisson sampling: projection and 2-D cells, the blog's projected linear loss
without replacement), every dataset and attribute of the results file except the run's
metadata (python/rdpaudit/compare.py) must be identical for: 1 and 2 threads; 2 and 3 MPI
ranks (when built with MPI and mpirun exists); --part i/3 + merge (parts given in any order);
a run stopped by SIGINT and resumed (checkpoint); a run killed by SIGKILL and resumed from its
last periodic checkpoint. Bad arguments (--part, --resume, merge of foreign, missing or
duplicated parts) exit 2 and write nothing.

usage: test_split_runs.py RDPAUDIT SOURCE_DIR WORK_DIR [MPIRUN]
"""
import os
import shutil
import signal
import subprocess
import sys
import time

import h5py

from checks import check, finish  # this folder
from rdpaudit.compare import differences  # PYTHONPATH (tests/CMakeLists.txt) or installed

cli, source, work = sys.argv[1], sys.argv[2], sys.argv[3]
mpirun = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None  # MPI build only

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

EXPERIMENTS = {
    "quadratic": """
[experiment]
name = "split_quadratic"
seed = 11
trajectories = 9000
[model]
loss = "quadratic"
dim = 1
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 20
sensitivity = 4.0
[training]
scheme = "shuffle_partition"
eta = 0.05
batch_size = 2
epochs = [1, 3]
[noise]
sigma2 = 4.0
[estimate]
pilot = 20000
[tally]
raw_samples = 7000
""",
    "logistic": """
[experiment]
name = "split_logistic"
seed = 12
trajectories = 6000
[model]
loss = "logistic"
features = 2
classes = 2
lambda = 0.1
feature_clip = 2.0
clip_norm = 0.5
[data]
preset = "logistic_synthetic"
n = 20
[training]
scheme = "poisson"
eta = 0.2
batch_size = 4
epochs = 2
projection_diameter = 3.0
[noise]
noise_multiplier = 1.0
[estimate]
pilot = 20000
[tally]
raw_samples = 100
""",
    "linear": """
[experiment]
name = "split_linear"
seed = 13
trajectories = 6000
[model]
loss = "linear"
dim = 1
[data]
preset = "linear_worst_case"
n = 10
lipschitz = 1.0
[training]
scheme = "sample_without_replacement"
eta = 0.04
batch_size = 2
steps = [3, 30]
projection_diameter = 2.0
[noise]
blog_sigma = 1.0
[estimate]
pilot = 20000
# the exact chain's rows must agree across splits, not be fine: a coarse grid (1/16 the work)
exact_cells_per_sd = 10
""",
}


def run(*args, ok=True, **kw):
    done = subprocess.run([cli, *args], capture_output=True, text=True, **kw)
    if ok:
        check(done.returncode == 0, f"rdpaudit {' '.join(args)}: exit {done.returncode} "
              f"{done.stderr.strip()[-400:]}")
    return done


def same(a, b, what):
    diff = differences(a, b) if os.path.exists(a) and os.path.exists(b) else ["missing file"]
    check(not diff, f"{what}: {diff[:5]}")


# Root (CI) needs Open MPI's consent; in the sanitizer build, Open MPI's own allocations (in
# components it unloads, so no suppression can name them) would fail LeakSanitizer at exit:
# leaks are not checked under mpirun, every other memory error still is.
env_mpi = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", ASAN_OPTIONS="detect_leaks=0")

for name, text in EXPERIMENTS.items():
    cfg = os.path.join(work, f"{name}.toml")
    open(cfg, "w").write(text)
    ref = os.path.join(work, f"{name}_t1.h5")
    run("run", cfg, "-o", ref, "--threads", "1")
    out = os.path.join(work, f"{name}_t2.h5")
    run("run", cfg, "-o", out, "--threads", "2")
    same(ref, out, f"{name}: 2 threads")
    if mpirun:
        for ranks in (2, 3):
            out = os.path.join(work, f"{name}_r{ranks}.h5")
            done = subprocess.run([mpirun, "--oversubscribe", "-np", str(ranks), cli, "run", cfg,
                                   "-o", out, "--threads", "1"], capture_output=True, text=True,
                                  env=env_mpi)
            check(done.returncode == 0 and f"x {ranks} MPI ranks" in done.stdout,
                  f"{name}: {ranks} MPI ranks: exit {done.returncode} {done.stderr[-400:]}")
            same(ref, out, f"{name}: {ranks} MPI ranks")
    parts = []
    for i in (3, 1, 2):
        parts.append(os.path.join(work, f"{name}_part{i}.h5"))
        run("run", cfg, "-o", parts[-1], "--part", f"{i}/3")
    out = os.path.join(work, f"{name}_merged.h5")
    run("merge", *parts, "-o", out)
    same(ref, out, f"{name}: --part i/3 + merge")

# Interrupted and resumed: a longer run of the quadratic experiment, stopped by SIGINT (it
# writes the checkpoint and exits 130) or killed by SIGKILL (the last periodic checkpoint,
# every second, survives), then --resume: the numbers of the uninterrupted run.
cfg = os.path.join(work, "long.toml")
open(cfg, "w").write(EXPERIMENTS["quadratic"].replace("epochs = [1, 3]", "epochs = 12")
                     .replace("n = 20", "n = 50"))
base = ["run", cfg, "--trajectories", "4000000", "--threads", "2", "--checkpoint-every", "1"]
ref = os.path.join(work, "long_ref.h5")
run(*base, "-o", ref)
for sig, delays in ((signal.SIGINT, (0.5,)), (signal.SIGKILL, (0.3, 1.5))):
    out = os.path.join(work, f"long_{sig.name}.h5")
    stops = 0
    for delay in delays:  # SIGKILL twice: the resumed run is killed again
        resume = ["--resume"] if stops else []
        stamp = os.path.getmtime(out + ".ckpt") if stops else 0
        proc = subprocess.Popen([cli, *base, "-o", out, *resume], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        # Counting has begun once this run wrote a checkpoint (every second of counting).
        deadline = time.time() + 60
        while (not os.path.exists(out + ".ckpt") or os.path.getmtime(out + ".ckpt") == stamp) \
                and proc.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(delay)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        if proc.returncode == 0:
            break  # finished before the signal (a fast machine): nothing left to resume
        stops += 1
        expected = 130 if sig == signal.SIGINT else -signal.SIGKILL
        check(proc.returncode == expected, f"{sig.name}: status {proc.returncode} ({err[-300:]})")
        check(os.path.exists(out + ".ckpt"), f"{sig.name}: a checkpoint exists")
    check(stops > 0, f"{sig.name}: the run was stopped at least once")
    if proc.returncode != 0:
        run(*base, "-o", out, "--resume")
    same(ref, out, f"{sig.name} then --resume")
    check(not os.path.exists(out + ".ckpt"), f"{sig.name}: the finished run removes its checkpoint")

# Interrupted in the pilot: a pilot of 3e6 trajectories per dataset made in slabs, the first
# checkpoint (after a second) falls in it. SIGINT keeps the pilot's rows made so far (the
# checkpoint holds them, the resume says so), as does SIGKILL after a periodic checkpoint; the
# resumed run gives the numbers of the uninterrupted one.
cfg = os.path.join(work, "pilot.toml")
open(cfg, "w").write(EXPERIMENTS["quadratic"].replace("epochs = [1, 3]", "epochs = 12")
                     .replace("n = 20", "n = 50").replace("pilot = 20000", "pilot = 3000000")
                     .replace("trajectories = 9000", "trajectories = 20000"))
base = ["run", cfg, "--threads", "2", "--checkpoint-every", "1"]
ref = os.path.join(work, "pilot_ref.h5")
run(*base, "-o", ref)
for sig in (signal.SIGINT, signal.SIGKILL):
    out = os.path.join(work, f"pilot_{sig.name}.h5")
    proc = subprocess.Popen([cli, *base, "-o", out], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not os.path.exists(out + ".ckpt") and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    expected = 130 if sig == signal.SIGINT else -signal.SIGKILL
    check(proc.returncode == expected, f"pilot {sig.name}: status {proc.returncode} ({err[-300:]})")
    if sig == signal.SIGINT:
        check("the work so far (pilot and counts) is in" in err, f"pilot SIGINT message: {err!r}")
    with h5py.File(out + ".ckpt", "r") as f:
        kept = sum(f[g][k].shape[0] for g in f for k in f[g] if k.endswith("_pilot"))
        counted = sum(int(f[g][k][0]) for g in f for k in f[g] if k.endswith("_ints")
                      and f[g][k].shape[0] > 0)
    check(kept > 0 and counted == 0,
          f"pilot {sig.name}: the checkpoint keeps {kept} pilot rows, {counted} counted")
    done = run(*base, "-o", out, "--resume")
    check(f"{kept} pilot and 0 counted trajectories kept" in done.stderr,
          f"pilot {sig.name}: the resume says what it kept: {done.stderr.strip()[:300]}")
    same(ref, out, f"pilot {sig.name} then --resume")

# Bad input: exit 2, a message naming the argument, nothing written.
bad = os.path.join(work, "bad.h5")
for args, key in ((["--part", "0/4"], "--part"), (["--part", "5/4"], "--part"),
                  (["--part", "1/0"], "--part"), (["--part", "x"], "--part"),
                  (["--resume"], "--resume"), (["--checkpoint-every", "-1"], "--checkpoint-every")):
    done = run("run", os.path.join(work, "linear.toml"), "-o", bad, *args, ok=False)
    check(done.returncode == 2 and key in done.stderr and not os.path.exists(bad),
          f"run {' '.join(args)}: exit {done.returncode}, {done.stderr.strip()[:200]}")
# A checkpoint of another run (the linear experiment's file under the quadratic's name).
shutil.copy(os.path.join(work, "quadratic_part1.h5"), bad + ".ckpt")
done = run("run", os.path.join(work, "linear.toml"), "-o", bad, "--resume", ok=False)
check(done.returncode == 2 and "--resume" in done.stderr and not os.path.exists(bad),
      f"resume of another run's file: exit {done.returncode}, {done.stderr.strip()[:200]}")
os.remove(bad + ".ckpt")
q = [os.path.join(work, f"quadratic_part{i}.h5") for i in (1, 2, 3)]
lin = os.path.join(work, "linear_part2.h5")
for files, what in ((q[:2], "missing"), (q + [q[0]], "again"), ([q[0], lin, q[2]], "another run")):
    done = run("merge", *files, "-o", bad, ok=False)
    check(done.returncode == 2 and what in done.stderr and not os.path.exists(bad),
          f"merge ({what}): exit {done.returncode}, {done.stderr.strip()[:200]}")
# merge -o naming a directory: refused before any work, like run's -o.
done = run("merge", *q, "-o", work, ok=False)
check(done.returncode == 2 and "-o" in done.stderr and "directory" in done.stderr,
      f"merge -o DIR: exit {done.returncode}, {done.stderr.strip()[:200]}")

finish()
