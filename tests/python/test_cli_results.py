"""Results files through the command line (issue 13, items 4, 8, 14 and 17).

usage: /usr/bin/python3 test_cli_results.py RDPAUDIT SOURCE_DIR WORK_DIR

Every damaged copy of a good results file makes `check`, `report` and `plot` exit 2 with a
one-line message naming the file (1 means "a bound is not as expected" to CI, so malformed
input must never give 1), and `plot` prints no Python traceback. A run stopped by SIGINT or
SIGTERM writes its checkpoint and leaves neither its results file nor its `.tmp` behind. `report` shows the estimate and
the lower bound of one direction, the larger; check and report say when a bound assumes
another neighbouring relation than the audited pair.
"""

import os
import shutil
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

cli, source, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)  # no checkpoint of an earlier test run
os.makedirs(work, exist_ok=True)
good = os.path.join(work, "good.h5")
cfg = os.path.join(source, "tests", "data", "close_call.toml")
subprocess.run([cli, "run", cfg, "-o", good, "--trajectories", "4000"], check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def replace(group, name, values):
    del group[name]
    group[name] = values


def retype(obj, name, value):
    """Replaces an attribute with one of another type (attrs.modify would keep the type)."""
    del obj.attrs[name]
    obj.attrs[name] = value


def damage(name, edit):
    path = os.path.join(work, f"damaged_{name}.h5")
    shutil.copy(good, path)
    with h5py.File(path, "r+") as f:
        edit(f)
    return path


def truncated():
    path = os.path.join(work, "damaged_truncated.h5")
    data = open(good, "rb").read()
    open(path, "wb").write(data[: len(data) // 2])
    return path


cells = lambda f: f["audit/cells"]  # noqa: E731
variants = {
    "scenario_count_text": damage("scenario_count_text",
                                  lambda f: retype(f, "scenario_count", "1")),
    "scenario_count_negative": damage("scenario_count_negative",
                                      lambda f: f.attrs.modify("scenario_count", np.int64(-1))),
    "level_text": damage("level_text", lambda f: retype(f["audit"], "level", "0.05")),
    "ragged_cells": damage("ragged_cells",
                           lambda f: replace(cells(f), "p_holm", cells(f)["p_holm"][:-1])),
    "scenario_negative": damage("scenario_negative",
                                lambda f: replace(cells(f), "scenario",
                                                  np.full(len(cells(f)["scenario"]), -5,
                                                          dtype=np.int64))),
    "p_values_nan": damage("p_values_nan",
                           lambda f: replace(cells(f), "p_value",
                                             np.full(len(cells(f)["p_value"]), np.nan))),
    "old_verdict_word": damage("old_verdict_word",
                               lambda f: replace(cells(f), "verdict",
                                                 np.array([b"holds"] * len(cells(f)["verdict"])))),
    "verdict_missing": damage("verdict_missing", lambda f: cells(f).__delitem__("verdict")),
    "note_numbers": damage("note_numbers",
                           lambda f: replace(cells(f), "note",
                                             np.zeros(len(cells(f)["note"])))),
    "bound_row_outside": damage("bound_row_outside",
                                lambda f: replace(cells(f), "bound",
                                                  np.full(len(cells(f)["bound"]), 7,
                                                          dtype=np.int64))),
    "truncated": truncated(),
}

for name, path in variants.items():
    for command in (["check"], ["report"], ["plot", "--out", os.path.join(work, "plots")]):
        done = subprocess.run([cli, command[0], path] + command[1:], capture_output=True,
                              text=True)
        what = f"{command[0]} on {name}"
        check(done.returncode == 2, f"{what}: exit {done.returncode}, expected 2 "
              f"({done.stderr.strip()[:300]})")
        check(os.path.basename(path) in done.stderr, f"{what}: the message names the file "
              f"({done.stderr.strip()[:300]})")
        check("Traceback" not in done.stderr, f"{what}: no Python traceback")

# The good file itself passes all three.
for command in (["check"], ["report"], ["plot", "--out", os.path.join(work, "plots")]):
    done = subprocess.run([cli, command[0], good] + command[1:], capture_output=True, text=True)
    check(done.returncode == 0, f"{command[0]} on the good file: exit {done.returncode} "
          f"({done.stderr.strip()[:300]})")

# report: the estimate and the lower bound of an order come from the same direction, the one
# with the larger estimate (issue 13, item 4). The quickstart's laws are asymmetric.
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
# pair (issue 13, item 8): the Poisson baseline is add/remove, the worst-case pair replace-one.
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

# Interrupts (issue 11): SIGINT or SIGTERM stops the counting, writes the checkpoint and ends
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

finish()
