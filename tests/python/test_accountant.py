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

from checks import check, finish  # this folder
from rdpaudit import load  # PYTHONPATH (tests/CMakeLists.txt) or installed

cli, source, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "accountants"))
experiments = os.path.join(source, "experiments")
script = os.path.join(experiments, "accountants", "sgm_rdp.py")


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True)


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

finish()
