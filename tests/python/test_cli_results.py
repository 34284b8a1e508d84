"""Results, checkpoints and part files through the command line.

usage: /usr/bin/python3 test_cli_results.py RDPAUDIT SOURCE_DIR WORK_DIR

Every damaged copy of a good file is refused with status 2 and a message naming the file (1
means "a bound is not as expected" to CI, so malformed input must never give 1, and 0 would
use the damage): results files (the audit, the root, every scenario's counts, edges, moments
and estimates, byte damage; tests/python/damage.py) by `check`, `report` and `plot` (no
Python traceback), part files by `merge`, checkpoints by `run --resume`. A run stopped by
SIGINT or SIGTERM writes its checkpoint and leaves neither its results file nor its `.tmp`
behind. `report` shows the estimate and the lower bound of one direction, the larger, and
`report --csv` one row per cell; check and report say when a bound assumes another
neighbouring relation than the audited pair.
"""

import csv
import io
import os
import shutil
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

import damage  # this folder
from checks import check, finish

cli, source, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)  # no checkpoint of an earlier test run
os.makedirs(work, exist_ok=True)
good = os.path.join(work, "good.h5")
cfg = os.path.join(source, "tests", "data", "close_call.toml")
subprocess.run([cli, "run", cfg, "-o", good, "--trajectories", "4000"], check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


two_d = os.path.join(work, "two_d.toml")
open(two_d, "w").write(open(cfg).read().replace("dim = 1", "dim = 2"))
good_2d = os.path.join(work, "good_2d.h5")
subprocess.run([cli, "run", two_d, "-o", good_2d, "--trajectories", "4000"], check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def refused(what, done, path, extra=""):
    """Exit 2, the damaged file named, no traceback, nothing used."""
    err = done.stderr.strip()
    check(done.returncode == 2, f"{what}: exit {done.returncode}, expected 2 ({err[:300]})")
    check(os.path.basename(path) in err, f"{what}: the message names the file ({err[:300]})")
    check("Traceback" not in err, f"{what}: no Python traceback")
    check(extra in err, f"{what}: says '{extra}' ({err[:300]})")


# The per-scenario tables of a run with [profile] and claims (the profile brackets, the
# claims and the bound table) are damaged too: delta 7, NaN, a reversed grid, lower above
# upper, ...
good_profile = os.path.join(work, "good_profile.h5")
subprocess.run([cli, "run", os.path.join(source, "experiments", "profile_cases.toml"), "-o",
                good_profile, "--trajectories", "4000"], check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
results = damage.results_variants(good, good_2d, work)
results.update(damage.profile_variants(good_profile, work))
for name, path in results.items():
    figures = os.path.join(work, f"plots_{name}")  # a folder of its own: nothing drawn
    for command in (["check"], ["report"], ["plot", "--out", figures]):
        done = subprocess.run([cli, command[0], path] + command[1:], capture_output=True,
                              text=True, timeout=60)
        refused(f"{command[0]} on {name}", done, path)
    drawn = os.listdir(figures) if os.path.isdir(figures) else []
    check(not drawn, f"plot on {name}: no figure drawn from damaged data ({drawn[:3]})")

# check and report print the last iterate's exact eps(delta) beside the claims, with what it
# covers; the number is the file's exact profile (the audit cell's exact value).
with h5py.File(good_profile, "r") as f:
    c = f["audit/cells"]
    quantity = [q.decode() if isinstance(q, bytes) else q for q in c["quantity"][()]]
    row = [i for i, q in enumerate(quantity) if q == "eps_delta" and c["scenario"][i] == 0
           and c["delta"][i] == 1e-5 and c["direction"][i] == 0][0]
    exact_eps = float(c["exact"][row])
for command in (["check"], ["report"]):
    done = subprocess.run([cli, command[0], good_profile], capture_output=True, text=True)
    check(done.returncode in (0, 1) and "damaged" not in done.stderr,
          f"{command[0]} on the good profile file: exit {done.returncode} "
          f"({done.stderr.strip()[:300]})")
    lines = [ln.split() for ln in done.stdout.splitlines()
             if ln.split()[:1] == ["0"] and "1e-05" in ln.split()]
    shown = float(lines[0][lines[0].index("1e-05") + 1]) if len(lines) == 1 else float("nan")
    check(abs(shown / exact_eps - 1) < 1e-5
          and "claims (eps)" in done.stdout and "last iterate theta_T alone" in done.stdout,
          f"{command[0]}: the last iterate's exact eps(1e-5) {exact_eps:.6g} beside the claims "
          f"({lines[:1]})")

# The good file itself passes all three.
for command in (["check"], ["report"], ["plot", "--out", os.path.join(work, "plots")]):
    done = subprocess.run([cli, command[0], good] + command[1:], capture_output=True, text=True)
    check(done.returncode == 0, f"{command[0]} on the good file: exit {done.returncode} "
          f"({done.stderr.strip()[:300]})")

# plot --out naming a regular file: exit 2 naming --out, no traceback, the file untouched.
occupied = os.path.join(work, "occupied")
open(occupied, "w").write("kept\n")
done = subprocess.run([cli, "plot", good, "--out", occupied], capture_output=True, text=True)
check(done.returncode == 2 and "--out" in done.stderr and "Traceback" not in done.stderr
      and open(occupied).read() == "kept\n",
      f"plot --out at a file: exit {done.returncode} ({done.stderr.strip()[:300]})")

# report: the estimate and the lower bound of an order come from the same direction, the one
# with the larger estimate. The quickstart's laws are asymmetric.
quick = os.path.join(work, "quick.h5")
subprocess.run([cli, "run", os.path.join(source, "experiments", "quickstart.toml"), "-o", quick,
                "--trajectories", "20000"], check=True, stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL)
report = subprocess.run([cli, "report", quick], capture_output=True, text=True, check=True).stdout
with h5py.File(quick, "r") as f:
    c = f["audit/cells"]
    scen, alpha, direction = c["scenario"][:], c["alpha"][:], c["direction"][:]
    est, low = c["estimate"][:], c["lower"][:]
shown = 0
for line in report.splitlines():
    fields = line.split()
    if not fields or not fields[0].isdigit() or "a=" not in line:
        continue
    index = int(fields[0])
    for part in line.split("  a=")[1:]:
        a_text, rest = part.split(":", 1)
        value, bracket, mark = rest.split()
        d = 0 if mark == ">" else 1
        sel = (scen == index) & (np.abs(alpha - float(a_text)) < 1e-9)
        e = {k: np.nanmax(np.where(sel & (direction == k), est, np.nan)) for k in (0, 1)}
        lo = np.max(np.where(sel & (direction == d), low, 0.0))
        check(e[d] >= e[1 - d] or np.isnan(e[1 - d]), f"report {index} a={a_text}: the larger "
              f"direction is marked ({mark}; estimates {e[0]:.4g}, {e[1]:.4g})")
        check(abs(float(value) - e[d]) <= 1e-3 * abs(e[d]), f"report {index} a={a_text}: "
              f"estimate {value} is direction {d}'s {e[d]:.4g}")
        check(abs(float(bracket.strip("[]")) - lo) <= 1e-2 * abs(lo) + 1e-300,
              f"report {index} a={a_text}: lower {bracket} is direction {d}'s {lo:.3g}")
        shown += 1
check(shown >= 8, f"report shows the orders ({shown})")

# check and report say when a bound assumes another neighbouring relation than the audited
# pair: the Poisson baseline is add/remove, the worst-case pair replace-one.
text = open(os.path.join(source, "experiments", "quickstart.toml")).read()
poisson_cfg = os.path.join(work, "poisson.toml")
open(poisson_cfg, "w").write(text.replace('scheme = "shuffle_partition"', 'scheme = "poisson"'))
poisson = os.path.join(work, "poisson.h5")
subprocess.run([cli, "run", poisson_cfg, "-o", poisson, "--trajectories", "5000"], check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for command in ("check", "report"):
    out = subprocess.run([cli, command, poisson], capture_output=True, text=True).stdout
    check("note: mtz19_poisson_composition assumes add_remove neighbours, the audited pair is "
          "replace_one" in out, f"{command} names the relation the Poisson baseline assumes")
    check("note: gaussian_composition" not in out, f"{command}: no note where they agree")

# Interrupts: SIGINT or SIGTERM stops the counting, writes the checkpoint and ends
# with status 130 and the command that resumes; the unfinished .tmp is removed and nothing is
# left at the output path.
for sig in (signal.SIGINT, signal.SIGTERM):
    out = os.path.join(work, f"interrupted_{sig.name}.h5")
    proc = subprocess.Popen([cli, "run", cfg, "-o", out, "--trajectories", "200000000",
                             "--threads", "1"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not os.path.exists(out + ".tmp") and time.time() < deadline:
        time.sleep(0.05)
    check(os.path.exists(out + ".tmp"), f"{sig.name}: the run writes {out}.tmp while it runs")
    time.sleep(0.3)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    check(proc.returncode == 130, f"{sig.name}: the run stops with status 130 "
          f"(return code {proc.returncode})")
    check(not os.path.exists(out + ".tmp") and not os.path.exists(out),
          f"{sig.name}: no results file, no .tmp")
    check(os.path.exists(out + ".ckpt"), f"{sig.name}: the checkpoint is written")
    check("interrupted" in err and "--resume" in err,
          f"{sig.name}: says it was interrupted and how to resume ({err.strip()[:300]})")
    # A new run over the checkpoint (without --resume) would lose it: refused.
    again = subprocess.run([cli, "run", cfg, "-o", out, "--trajectories", "1000"],
                           capture_output=True, text=True)
    check(again.returncode == 2 and "--resume" in again.stderr and os.path.exists(out + ".ckpt")
          and not os.path.exists(out), f"{sig.name}: a new run over the checkpoint is refused "
          f"({again.returncode}, {again.stderr.strip()[:200]})")

# Part files: every damaged copy of part 1/2 is refused by merge, naming it; no results file.
parts = []
for i in (1, 2):
    part = os.path.join(work, f"part{i}.h5")
    subprocess.run([cli, "run", cfg, "-o", part, "--trajectories", "4000", "--part", f"{i}/2",
                    "--threads", "1"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    parts.append(part)
done = subprocess.run([cli, "merge", parts[0], parts[1], "-o", os.path.join(work, "merged.h5")],
                      capture_output=True, text=True)
check(done.returncode == 0, f"merge of the good parts: exit {done.returncode} ({done.stderr})")
state_damage = damage.state_variants(parts[0], work, "part")
for name, path in state_damage.items():
    out = os.path.join(work, f"merged_{name}.h5")
    done = subprocess.run([cli, "merge", path, parts[1], "-o", out], capture_output=True,
                          text=True, timeout=60)
    refused(f"merge of {name}", done, path)
    check(not os.path.exists(out) and not os.path.exists(out + ".tmp"),
          f"merge of {name}: no results file")

# Checkpoints: every damaged copy of the SIGINT run's checkpoint is refused by --resume,
# naming it, before anything is counted; no results file.
counting = os.path.join(work, "counting.h5")
proc = subprocess.Popen([cli, "run", cfg, "-o", counting, "--trajectories", "200000000",
                         "--threads", "1", "--checkpoint-every", "0.2"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def holds_counts(path):
    """Whether the checkpoint at `path` is past the pilot (the first ones may be in it)."""
    try:
        with h5py.File(path, "r") as f:
            return len(f["0000/D_ints"]) > 0
    except (OSError, KeyError):
        return False  # not there yet, or replaced while being read


deadline = time.time() + 120
while not holds_counts(counting + ".ckpt") and time.time() < deadline:
    time.sleep(0.05)
proc.send_signal(signal.SIGINT)  # the checkpoint written on the way out holds counts
proc.wait(timeout=60)
ckpt = counting + ".ckpt"
with h5py.File(ckpt, "r") as f:
    check(len(f["0000/D_ints"]) > 0, "the checkpoint holds counts of scenario 0")
# The control: an intact copy resumes (it counts until interrupted, then checkpoints again).
control = os.path.join(work, "resumed_intact.h5")
shutil.copy(ckpt, control + ".ckpt")
proc = subprocess.Popen([cli, "run", cfg, "-o", control, "--trajectories", "200000000",
                         "--threads", "1", "--checkpoint-every", "0.2", "--resume"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
time.sleep(3)
proc.send_signal(signal.SIGINT)
_, err = proc.communicate(timeout=60)
check(proc.returncode == 130, f"an intact checkpoint resumes ({proc.returncode}: {err[-200:]})")
ckpt_damage = damage.state_variants(ckpt, work, "checkpoint")
for name, path in ckpt_damage.items():
    out = os.path.join(work, f"resumed_{name}.h5")
    shutil.copy(path, out + ".ckpt")
    try:
        done = subprocess.run([cli, "run", cfg, "-o", out, "--trajectories", "200000000",
                               "--threads", "1", "--checkpoint-every", "0.2", "--resume"],
                              capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        check(False, f"resume of {name}: still counting after 60 s (the damage was not seen)")
        continue
    refused(f"resume of {name}", done, out + ".ckpt", "start again without it or delete it")
    check(not os.path.exists(out) and not os.path.exists(out + ".tmp"),
          f"resume of {name}: no results file")
total = len(results) + len(state_damage) + len(ckpt_damage)
print(f"{len(results)} damaged results files x check, report, plot; {len(state_damage)} damaged "
      f"parts x merge; {len(ckpt_damage)} damaged checkpoints x resume: {total} variants")
check(total >= 60, f"at least 60 damaged variants ({total})")

# report --csv: one row per cell of /audit, the numbers to full precision.
rows = list(csv.DictReader(io.StringIO(subprocess.run(
    [cli, "report", quick, "--csv"], capture_output=True, text=True, check=True).stdout)))
with h5py.File(quick, "r") as f:
    cells_n = len(f["audit/cells/verdict"])
    lower = f["audit/cells/lower"][:]
check(len(rows) == cells_n, f"report --csv: one row per cell ({len(rows)} of {cells_n})")
check(all(float(r["lower"] or "nan") == x or (r["lower"] == "" and np.isnan(x))
          for r, x in zip(rows, lower)), "report --csv: lower as stored, to the last digit")

finish()
