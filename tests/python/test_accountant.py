"""Audit your own accountant (ctest): the three ways a [[bounds.custom]] bound takes an
accountant's values, and every bad input each can meet.

Usage: /usr/bin/python3 test_accountant.py RDPAUDIT_CLI SOURCE_DIR WORKDIR
- experiments/accountant_command.toml: the command's values equal the built-in
  mtz19_poisson_composition (1e-12 relative), `check` passes (the accountant valid (exact),
  the halved one violated) and fails once the halved one is expected to hold; the results
  file keeps the command, the SHA-256 of the script, its input and its output.
- experiments/accountant_values.toml and accountant_values_file.toml: `check` passes.
- bad input (a values list of the wrong length; a CSV with a missing, duplicated or
  non-numeric row or a missing column; a command that hangs, fails or prints garbage): exit 2
  at `validate` and at `run` naming the key or command, nothing written.
- consent: a command that would create a file creates nothing under `validate` (which lists it
  and its SHA-256), `run`, `bounds`, `search` and `run --part` without --allow-commands (exit 2,
  saying how to consent); `merge` of consented parts, without the flag, runs nothing and gives
  the unsplit run's numbers with the accountant recorded as `how = recorded`; SIGTERM to
  rdpaudit while a command runs kills the command's process group.
The runs above consent through RDPAUDIT_ALLOW_COMMANDS=1; the consent section does not.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

import h5py
import numpy as np

from checks import SMALL_SEARCH, check, finish  # this folder
from rdpaudit import load  # PYTHONPATH (tests/CMakeLists.txt) or installed
from rdpaudit.compare import differences

cli, source, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "accountants"))
experiments = os.path.join(source, "experiments")
script = os.path.join(experiments, "accountants", "sgm_rdp.py")


CONSENT = dict(os.environ, RDPAUDIT_ALLOW_COMMANDS="1")
NO_CONSENT = {k: v for k, v in os.environ.items() if k != "RDPAUDIT_ALLOW_COMMANDS"}


def run(*args, env=CONSENT):
    return subprocess.run([cli, *args], capture_output=True, text=True, env=env)


def copy_experiment(name, new_name, replace=()):
    """experiments/<name> into the work folder (beside a copy of accountants/), edited."""
    with open(os.path.join(experiments, name)) as f:
        text = f.read()
    for old, new in replace:
        check(old in text, f"{name} contains {old!r}")
        text = text.replace(old, new)
    path = os.path.join(work, new_name)
    with open(path, "w") as f:
        f.write(text)
    return path


for f in ("sgm_rdp.py", "sgm_rdp.csv"):
    shutil.copy(os.path.join(experiments, "accountants", f), os.path.join(work, "accountants"))

# ---- the command: valid, its halved copy violated, the record in the results file ----
out = os.path.join(work, "command.h5")
r = run("run", os.path.join(experiments, "accountant_command.toml"), "-o", out, "--threads", "2")
check(r.returncode == 0, f"run accountant_command: exit {r.returncode}: {r.stderr}")
r = run("check", out)
check(r.returncode == 0, f"check accountant_command: exit {r.returncode}\n{r.stdout}")
with h5py.File(out, "r") as h5:
    for k in h5["scenarios"]:
        g = h5["scenarios"][k]["bounds"]
        names = [n.decode() if isinstance(n, bytes) else n for n in g["names"][()]]
        values = g["values"][()]
        mtz = values[names.index("mtz19_poisson_composition")]
        mine = values[names.index("sgm_accountant")]
        halved = values[names.index("sgm_accountant_halved")]
        check(np.allclose(mine, mtz, rtol=1e-12, atol=0), f"scenario {k}: {mine} vs MTZ {mtz}")
        check(np.allclose(halved, mtz / 2, rtol=1e-12, atol=0), f"scenario {k}: halved {halved}")
    acc = h5["accountants"]
    check(sorted(acc.keys()) == ["0", "1"], f"accountants {list(acc.keys())}")
    a = acc["0"].attrs
    check(a["bound"] == "sgm_accountant", f"bound {a['bound']}")
    check(a["how"] == "ran", f"how {a['how']}")
    check(list(a["command"]) == ["/usr/bin/python3", "accountants/sgm_rdp.py"],
          f"command {a['command']}")
    with open(script, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    files = dict(zip(a["files"], a["files_sha256"]))
    check(files.get("accountants/sgm_rdp.py") == digest, f"script hash {files}")
    check("/usr/bin/python3" in files, f"the interpreter is hashed too: {files}")
    request = json.loads(a["input"])
    check(request["orders"] == [2, 4, 8, 16] and len(request["scenarios"]) == 2,
          f"input {request['orders']}")
    sc = request["scenarios"][1]
    check(sc["sweep"] == {"training.steps": 8} and sc["T"] == 8 and sc["q"] == 0.2 and
          sc["n"] == 50 and sc["adjacency"] == "add_remove" and sc["z"] is None and
          abs(sc["noise"]["step_noise_ratio"] - 1) < 1e-12, f"scenario input {sc}")
    # The stored output gives back the values, and the stored input the output.
    replay = subprocess.run(["/usr/bin/python3", script], input=a["input"], text=True,
                            capture_output=True, check=True).stdout
    check(replay == a["output"], "the stored input reproduces the stored output")
# The reader gives the same record (Results.accountants()).
with load(out) as r:
    accs = r.accountants()
    check([x.bound for x in accs] == ["sgm_accountant", "sgm_accountant_halved"],
          f"reader: bounds {[x.bound for x in accs]}")
    check(accs[0].command == ["/usr/bin/python3", "accountants/sgm_rdp.py"] and
          dict(zip(accs[0].files, accs[0].files_sha256)).get("accountants/sgm_rdp.py") == digest,
          f"reader: command {accs[0].command}, files {accs[0].files}")
    check(json.loads(accs[0].input)["orders"] == [2, 4, 8, 16] and accs[0].output == replay,
          "reader: input and output as stored")

# `check` fails when the halved accountant is expected to hold.
wrong = copy_experiment("accountant_command.toml", "halved_holds.toml",
                        [('expect = "violated"', 'expect = "holds"')])
out = os.path.join(work, "halved_holds.h5")
r = run("run", wrong, "-o", out, "--threads", "2")
check(r.returncode == 0, f"run halved_holds: {r.stderr}")
r = run("check", out)
check(r.returncode == 1 and "sgm_accountant_halved: expected holds, found violated" in r.stdout,
      f"check on the halved accountant expected to hold: exit {r.returncode}\n{r.stdout}")

# ---- values and values_file ----
for name in ("accountant_values.toml", "accountant_values_file.toml"):
    out = os.path.join(work, name.replace(".toml", ".h5"))
    r = run("run", os.path.join(experiments, name), "-o", out, "--threads", "2")
    check(r.returncode == 0, f"run {name}: {r.stderr}")
    r = run("check", out)
    check(r.returncode == 0, f"check {name}: exit {r.returncode}\n{r.stdout}")


# ---- bad input: exit 2 at validate and run, naming it, nothing written ----
def refused(path, *needles):
    r = run("validate", path)
    check(r.returncode == 2 and all(n in r.stderr for n in needles),
          f"validate {os.path.basename(path)}: exit {r.returncode}, {r.stderr!r} lacks {needles}")
    out = path + ".h5"
    r = run("run", path, "-o", out, "--threads", "1")
    check(r.returncode == 2 and not os.path.exists(out) and all(n in r.stderr for n in needles),
          f"run {os.path.basename(path)}: exit {r.returncode}, {r.stderr!r}")
    return r.stderr


refused(copy_experiment("accountant_values.toml", "short.toml",
                        [("values = [0.5317777512447774, ", "values = [")]),
        "bounds.custom[0].values", "has 3 values; one per bounds.alphas order (4)")


def csv_case(name, edit, *needles):
    with open(os.path.join(experiments, "accountants", "sgm_rdp.csv")) as f:
        text = f.read()
    text = edit(text)
    with open(os.path.join(work, "accountants", name + ".csv"), "w") as f:
        f.write(text)
    path = copy_experiment("accountant_values_file.toml", name + ".toml",
                           [("accountants/sgm_rdp.csv", f"accountants/{name}.csv")])
    refused(path, "bounds.custom[0].values_file", f"accountants/{name}.csv", *needles)


csv_case("missing_row", lambda t: t.replace("8,4,2.330584640534146\n", ""),
         "no row for training.steps = 8, alpha = 4 (scenario 1")
csv_case("duplicate_row", lambda t: t + "4,8,9\n", "line 11: a second row", "of line 5")
csv_case("non_numeric", lambda t: t.replace("4,16,25.13307012775991", "4,16,abc"),
         'line 6: value = "abc" is not a number')
csv_case("missing_column", lambda t: t.replace("training.steps,alpha,value", "steps,alpha,value"),
         'unknown column "steps"')

# An (eps, delta) claim from a table: columns the swept keys, delta, value.
claims_csv = "training.steps,delta,value\n4,1e-5,9.5\n4,0.001,6.5\n8,1e-5,12.5\n8,0.001,8.75\n"
with open(os.path.join(work, "accountants", "claims.csv"), "w") as f:
    f.write(claims_csv)
with open(os.path.join(work, "accountants", "claims_inf.csv"), "w") as f:
    f.write(claims_csv.replace("8.75", "inf"))
with open(os.path.join(work, "accountants", "claims_short.csv"), "w") as f:
    f.write(claims_csv.replace("8,0.001,8.75\n", ""))
claim = ("[profile]\ndeltas = [1e-5, 1e-3]\nepsilons = [0, 1, 2]\n"
         "[[profile.claims]]\nname = \"table\"\nvalues_file = \"accountants/claims.csv\"\n")
path = copy_experiment("accountant_values_file.toml", "claims.toml", [("[estimate]", claim + "[estimate]")])
out = os.path.join(work, "claims.h5")
r = run("run", path, "-o", out, "--threads", "2")
check(r.returncode == 0, f"run claims: {r.stderr}")
if r.returncode == 0:
    with h5py.File(out, "r") as h5:
        for k, want in (("0000", [9.5, 6.5]), ("0001", [12.5, 8.75])):
            g = h5["scenarios"][k]["claims"]
            names = [n.decode() if isinstance(n, bytes) else n for n in g["names"][()]]
            got = g["values"][()][names.index("table")]
            check(list(got) == want, f"scenario {k}: claimed eps {got}, want {want}")
for name, needle in (("claims_inf", 'line 5: value = "inf" is not a finite eps'),
                     ("claims_short", "no row for training.steps = 8, delta = 0.001 (scenario 1")):
    edited = copy_experiment("accountant_values_file.toml", name + ".toml",
                             [("[estimate]", claim.replace("claims.csv", name + ".csv") +
                               "[estimate]")])
    refused(edited, "profile.claims[0].values_file", needle)

with open(os.path.join(work, "accountants", "hang.py"), "w") as f:
    f.write("import sys, time\nsys.stderr.write('thinking\\n'); sys.stderr.flush()\n"
            "time.sleep(60)\n")
with open(os.path.join(work, "accountants", "fail.py"), "w") as f:
    f.write("import sys\nsys.stderr.write('Traceback: no scipy here\\nline two\\n')\n"
            "sys.exit(1)\n")
with open(os.path.join(work, "accountants", "garbage.py"), "w") as f:
    f.write("print('epsilon is about 1.3')\n")
with open(os.path.join(work, "accountants", "short_output.py"), "w") as f:
    f.write("import json, sys\njson.load(sys.stdin)\nprint(json.dumps({'values': [[1, 2]]}))\n")


def command_case(name, replace, *needles):
    path = copy_experiment("accountant_command.toml", name + ".toml", replace)
    start = time.monotonic()
    err = refused(path, "bounds.custom[0].command", *needles)
    return err, time.monotonic() - start


err, seconds = command_case(
    "hang", [('"accountants/sgm_rdp.py"]\ntimeout_s = 60', '"accountants/hang.py"]\ntimeout_s = 1')],
    '"accountants/hang.py"', "did not finish within bounds.custom[0].timeout_s = 1 s",
    "thinking")
check(seconds < 20, f"two time-outs of 1 s took {seconds:.1f} s")
command_case("fail", [('"accountants/sgm_rdp.py"]\ntimeout_s', '"accountants/fail.py"]\ntimeout_s')],
             "exited with status 1", "Traceback: no scipy here\nline two")
command_case("garbage",
             [('"accountants/sgm_rdp.py"]\ntimeout_s', '"accountants/garbage.py"]\ntimeout_s')],
             "its output is not", "not JSON", "epsilon is about 1.3")
command_case("short_output",
             [('"accountants/sgm_rdp.py"]\ntimeout_s', '"accountants/short_output.py"]\ntimeout_s')],
             '"values" is an array of 1; one array per scenario (2) is needed')
command_case("no_program",
             [('command = ["/usr/bin/python3", "accountants/sgm_rdp.py"]',
               'command = ["no-such-accountant"]')],
             "cannot be started", "No such file or directory")

# ---- consent: no program runs from a file without --allow-commands ----
marker = os.path.join(work, "created_by_command")
with open(os.path.join(work, "accountants", "touch.py"), "w") as f:
    f.write("import json, sys\nd = json.load(sys.stdin)\n"
            f"open({marker!r}, 'a').write('ran\\n')\n"
            "print(json.dumps({'values': [[1.0] * len(d['orders'])] * len(d['scenarios'])}))\n")
touch = copy_experiment("accountant_command.toml", "touch.toml",
                        [('"accountants/sgm_rdp.py"]', '"accountants/touch.py"]')])
with open(os.path.join(work, "accountants", "touch.py"), "rb") as f:
    touch_digest = hashlib.sha256(f.read()).hexdigest()
hint = "--allow-commands"
r = run("validate", touch, env=NO_CONSENT)
check(r.returncode == 0 and "not run" in r.stdout and touch_digest in r.stdout and
      "accountants/touch.py" in r.stdout, f"validate without consent lists: {r.stdout}{r.stderr}")
out = os.path.join(work, "touch.h5")
for args in (("run", touch, "-o", out), ("bounds", touch),
             ("run", touch, "--part", "1/2", "-o", out)):
    r = run(*args, env=NO_CONSENT)
    check(r.returncode == 2 and hint in r.stderr and "bounds.custom[0].command" in r.stderr,
          f"{' '.join(args[:1])} without consent: exit {r.returncode}, {r.stderr!r}")
    check(not os.path.exists(out), f"{args[0]} without consent wrote {out}")
search_file = os.path.join(work, "touch_search.toml")
with open(search_file, "w") as f:  # a search file as tests/cli/search.cmake's, with the command
    f.write(SMALL_SEARCH + """[[bounds.custom]]
name = "touching"
command = ["/usr/bin/python3", "accountants/touch.py"]
""")
found = os.path.join(work, "touch_found.toml")
r = run("search", search_file, "-o", found, env=NO_CONSENT)
check(r.returncode == 2 and hint in r.stderr and "bounds.custom[0].command" in r.stderr and
      not os.path.exists(found), f"search without consent: exit {r.returncode}, {r.stderr!r}")
check(not os.path.exists(marker), "a command ran without consent")

# Consented parts merged without consent: nothing runs (the script is gone by then), the
# numbers are the unsplit run's.
os.makedirs(os.path.join(work, "split", "accountants"))
shutil.copy(script, os.path.join(work, "split", "accountants"))
split = os.path.join(work, "split", "acct.toml")
shutil.copy(os.path.join(experiments, "accountant_command.toml"), split)
whole = os.path.join(work, "whole.h5")
r = run("run", split, "-o", whole, "--threads", "1")
check(r.returncode == 0, f"whole run: {r.stderr}")
parts = []
for i in (1, 2):
    parts.append(os.path.join(work, f"part{i}.h5"))
    r = run("run", split, "--part", f"{i}/2", "-o", parts[-1], "--threads", "1")
    check(r.returncode == 0, f"part {i}: {r.stderr}")
os.remove(os.path.join(work, "split", "accountants", "sgm_rdp.py"))
merged = os.path.join(work, "merged.h5")
r = run("merge", *parts, "-o", merged, env=NO_CONSENT)
check(r.returncode == 0, f"merge without consent: exit {r.returncode}, {r.stderr}")
if r.returncode == 0 and os.path.exists(whole):
    with h5py.File(whole, "r") as a, h5py.File(merged, "r") as b:
        check(b["accountants"]["0"].attrs["how"] == "recorded",
              f"merged how {b['accountants']['0'].attrs['how']}")
        check(a["accountants"]["0"].attrs["output"] == b["accountants"]["0"].attrs["output"],
              "merged accountant output as recorded")
    diff = [d for d in differences(whole, merged) if "@how:" not in d]
    check(diff == [], f"merged differs from the whole run: {diff[:5]}")
    r1, r2 = run("check", whole), run("check", merged)
    check(r1.returncode == r2.returncode == 0, f"check whole {r1.returncode}, merged {r2.returncode}")

# SIGTERM while a command runs: the command's whole process group dies with rdpaudit.
pidfile = os.path.join(work, "sleeper.pid")
with open(os.path.join(work, "accountants", "sleeper.py"), "w") as f:
    f.write("import os, subprocess, sys, time\n"
            "child = subprocess.Popen(['sleep', '120'])\n"
            f"open({pidfile!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
            "time.sleep(120)\n")
sleeper = copy_experiment("accountant_command.toml", "sleeper.toml",
                          [('"accountants/sgm_rdp.py"]\ntimeout_s = 60',
                            '"accountants/sleeper.py"]\ntimeout_s = 300')])
proc = subprocess.Popen([cli, "run", sleeper, "-o", os.path.join(work, "sleeper.h5")],
                        env=CONSENT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
deadline = time.monotonic() + 60
while not os.path.exists(pidfile) and time.monotonic() < deadline:
    time.sleep(0.1)
time.sleep(0.3)
proc.terminate()
proc.wait(timeout=30)
check(proc.returncode != 0, f"rdpaudit ended with {proc.returncode} after SIGTERM")
pids = [int(x) for x in open(pidfile).read().split()] if os.path.exists(pidfile) else []
check(len(pids) == 2, f"the sleeper wrote its pids: {pids}")
time.sleep(0.5)
for pid in pids:
    alive = True
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as f:
            alive = f.read().split()[2] != "Z"
    except (ProcessLookupError, FileNotFoundError):
        alive = False
    check(not alive, f"process {pid} of the command outlived rdpaudit")
    if alive:
        os.kill(pid, 9)

finish()
