#!/usr/bin/python3
"""Fuzz study of the experiment-file checks: mutated copies of experiments/*.toml through
`rdpaudit validate` and, when validate accepts them, a tiny `rdpaudit run`.

    /usr/bin/python3 python/studies/fuzz_experiments.py [--files 1000] [--seed 1] [--jobs 2] \\
        [--binary build/release/rdpaudit] [--timeout 30] [--keep DIR] [--out docs/studies/fuzz.md]

Each base file is first made tiny (experiment.trajectories = 300, tally.pilot_trajectories =
200, swept lists cut to their first, middle and last value; nothing else changes), then mutated at the text level, one to three mutations per file,
all drawn from one seeded random.Random(--seed) so the same arguments give the same files:
values replaced by extremes (0, negatives, 1e308, NaN, inf, huge integers), by the wrong type
or by a list; numbers scaled by powers of ten; keys deleted, renamed, duplicated, moved to
another table or added (documented keys with random values, custom bounds with odd formulas);
table headers deleted; sometimes odd command-line options (--seed, --scale, --trajectories,
-o naming a directory).

Every outcome is classified:
  crash                    killed by a signal (or exit status other than 0, 1, 2)
  failed (exit 1)          an internal failure ("rdpaudit: failed: ...")
  validate rejected        validate exits 2: the intended answer to bad input
  run rejected: decidable  validate accepted, run exited 2 for a reason the file decides
  run rejected: runtime    validate accepted, run exited 2 for a reason only the simulation
                           can reveal (RUNTIME_ONLY below: the iterates left the floating-point range)
  exit 0, non-finite       run exited 0 but the results file holds NaN or inf where
                           docs/results-format.md does not allow them
  timeout                  validate or run exceeded --timeout seconds
  ok                       run exited 0 with a clean file
and, across all outcomes, every error message is checked for a key path the user never
wrote (neither a documented key nor one in the file; INTERNAL_NAMES lists the names the
library uses inside) and for echoed values longer than MAX_ECHO characters.

Writes the table to --out (docs/studies/fuzz.md) and the per-file log (JSON lines) next to the
mutated files when --keep is given. Needs h5py and numpy (Debian's /usr/bin/python3).
"""
import argparse
import collections
import datetime
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from rdpaudit import FormatError, load

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_ECHO = 100  # characters of the value a message echoes; longer means an uncapped value

# Keys documented in docs/experiments.md (table.key); custom-bound keys as bounds.custom.*.
DOCUMENTED = {
    "experiment": ["name", "description", "seed", "trajectories", "sweep"],
    "model": ["loss", "dim", "lambda", "features", "classes", "feature_clip", "clip_norm"],
    "data": ["preset", "n", "sensitivity", "lipschitz", "differing_index", "jitter", "seed",
             "points", "replacement", "labels", "replacement_label", "adjacency", "gradient",
             "gradient_formula"],
    "training": ["scheme", "eta", "batch_size", "epochs", "steps", "differing_batch",
                 "sampling_rate", "projection_diameter", "projection_center"],
    "noise": ["sigma", "sigma2", "noise_multiplier", "paper_noise_multiplier", "blog_sigma",
              "step_std"],
    "init": ["mean", "std"],
    "tally": ["bins", "bins_2d", "range", "pilot_trajectories", "raw_samples"],
    "bounds": ["alphas", "lambda", "beta", "S_g", "L", "D", "eps_norm", "audit",
               "expect_violated", "expect_valid_exact", "expect_holds", "exact_verdicts"],
    "bounds.custom": ["name", "formula", "conditions", "expect"],
    "estimate": ["enabled", "alphas", "confidence", "pilot", "samples", "selection_fraction",
                 "variational_selection_fraction", "methods", "patterns", "bootstrap",
                 "exact_cells_per_sd", "exact_max_work", "exact_max_memory"],
    "profile": ["enabled", "epsilons", "deltas", "conversions", "expect_violated"],
    "profile.claims": ["name", "epsilon", "formula", "expect"],
}
# (and `search`: a search file's table, which `run` refuses by name)
DOCUMENTED_PATHS = ({f"{t}.{k}" for t, ks in DOCUMENTED.items() for k in ks} | set(DOCUMENTED)
                    | {"search"})

# Names the library uses internally (estimators, bounds, binning); a message naming one of
# them speaks of something the user never wrote.
INTERNAL_NAMES = [
    "samples.rows", "samples.dim", "samples.scores", "samples.variational", "bounds.b",
    "bounds.n", "bounds.K", "bounds.T", "bounds.j0", "bounds.alpha", "bounds.name", "binning.",
    "exact.", "tally.edges", "rigorous.", "cells_from_", "scores.dim", "kde.", "loss.family",
    "thin_counts", "audit level", "logistic =", "histogram.", "mixture.",
]

# Run-time rejections that no check of the file can decide: the simulated iterates left the
# floating-point range although every value is finite and in range (e.g. a logistic model
# whose step size is too large for its curvature only shows it by diverging).
RUNTIME_ONLY = [r"non-finite", r"diverg", r"overflow"]

VALUE_POOL = ["0", "-1", "1", "2", "-0.0", "0.5", "3", "1e-300", "1e-9", "1e300", "1e308",
              "-1e308", "5e307", "nan", "inf", "-inf", "9223372036854775807",
              "-9223372036854775808", "4294967297", "2147483648", "1000000", "100000000",
              "1e9", '"x"', '""', "true", "[]", "[1, 2]", "[[1.0]]", "{}", '"quadratic"',
              '"poisson"', '"full_batch"', '"logistic"', "[1e308, 1e308]", "[-1e308, 1e308]",
              "[0, 0]", "[2, 1]", "[1.5, 2, 1e6]", '["exact"]', "1.0000000001", "0.999999"]

FORMULA_POOL = ["alpha = 3", "step_std = 1", "alpha*eta", "1/0", "sqrt(-1)", "alpha^1e6",
                "ln(-1)", "0/0", "-1/0", "d",
                "-1", "alpha*foo", "(alpha", "alpha > 2 ? 1 : 2", "alpha += 1", "eta=eta",
                "alpha, eta", "rnd()", "sum(alpha, 1)", "alpha == 2", "alpha >= 2 = 1", "0",
                "nan", "inf", "_pi*alpha", "alpha;1"]

CLI_POOL = [["--seed", "18446744073709551615"], ["--seed", "-1"], ["--scale", "1e-9"],
            ["--scale", "1e6"], ["--trajectories", "9223372036854775807", "--scale", "10"],
            ["--trajectories", "0"], ["--seed", "1e3"], ["--scale", "nan"], ["-o", "@DIR@"],
            ["--threads", "0"], ["--trajectories", "100", "--scale", "0.5"],
            ["--until-decided", "--max-trajectories", "1200"], ["--until-decided"],
            ["--until-decided", "--max-trajectories", "600", "--decided-margin", "nan"],
            ["--part", "2/3"], ["--part", "4/3"], ["--checkpoint-every", "-1"], ["--resume"]]

LINE_RE = re.compile(r"^(\s*)([A-Za-z0-9_\"'.-]+)(\s*=\s*)(.*?)(\s*#.*)?$")
HEADER_RE = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.]+)\s*\]\]?\s*$")


# ---------------------------------------------------------------- the corpus

def shorter_sweeps(text):
    """Swept lists of more than 3 numbers keep their first, middle and last value (the
    committed files sweep up to 9 values; a few scenarios per file keep each run short)."""
    def keep3(m):
        items = [x.strip() for x in m.group(2).split(",")]
        if m.group(1).split("=")[0].strip() in ("alphas", "audit", "expect_violated", "conditions") or \
                len(items) <= 3 or any(not re.fullmatch(r"[-+0-9.eE]+", x) for x in items):
            return m.group(0)
        return f"{m.group(1)}[{items[0]}, {items[len(items) // 2]}, {items[-1]}]"
    return re.sub(r"(?m)^(\w+\s*=\s*)\[([^\[\]\n]*)\]", keep3, text)


def tiny(text):
    """The base file with few trajectories, a small pilot and at most 3 values per swept list
    (nothing else changes)."""
    text = shorter_sweeps(text)
    text = re.sub(r"(?m)^trajectories\s*=.*$", "trajectories = 300", text)
    if re.search(r"(?m)^pilot_trajectories\s*=", text):
        text = re.sub(r"(?m)^pilot_trajectories\s*=.*$", "pilot_trajectories = 200", text)
    elif re.search(r"(?m)^\[tally\]", text):
        text = re.sub(r"(?m)^\[tally\]\s*$", "[tally]\npilot_trajectories = 200", text)
    else:
        text = text.rstrip("\n") + "\n\n[tally]\npilot_trajectories = 200\n"
    return text


def join_continuations(lines):
    """Folds a multi-line array value into one line, so every assignment is one line."""
    out, buf, depth = [], "", 0
    for line in lines:
        code = line.split("#", 1)[0] if '"' not in line else line
        if depth == 0:
            buf = line
        else:
            buf += " " + line.strip()
        depth += code.count("[") - code.count("]") if not HEADER_RE.match(line) else 0
        if depth <= 0:
            out.append(buf)
            buf, depth = "", 0
    if buf:
        out.append(buf)
    return out


def assignments(lines):
    """(line index, table, key) of every `key = value` line."""
    table, out = "", []
    for i, line in enumerate(lines):
        h = HEADER_RE.match(line)
        if h:
            table = h.group(1)
            continue
        m = LINE_RE.match(line)
        if m and not line.lstrip().startswith("#"):
            out.append((i, table, m.group(2)))
    return out


# ---------------------------------------------------------------- mutations

def scaled(value, rng):
    try:
        x = float(value)
    except ValueError:
        return None
    k = rng.choice([-300, -12, -6, -3, -2, -1, 1, 2, 3, 6, 12, 300])
    y = x * 10.0 ** k if abs(k) < 300 else (x or 1.0) * (1e300 if k > 0 else 1e-300)
    return repr(y) if isinstance(y, float) else str(y)


def pick(lines, rng):
    """A random `key = value` line: (index, table, key, match), or None."""
    entries = assignments(lines)
    if not entries:
        return None
    i, table, key = rng.choice(entries)
    return i, table, key, LINE_RE.match(lines[i])


def mutate_value(lines, rng, notes):
    if not (picked := pick(lines, rng)):
        return
    i, table, key, m = picked
    old = m.group(4)
    choice = rng.random()
    if choice < 0.5 and scaled(old, rng) is not None:
        new = scaled(old, rng)
    elif choice < 0.65 and old.startswith("["):
        items = [x.strip() for x in old.strip("[]").split(",") if x.strip()]
        op = rng.choice(["element", "append", "long"])
        if op == "element" and items:
            items[rng.randrange(len(items))] = rng.choice(VALUE_POOL)
        elif op == "append":
            items.append(rng.choice(VALUE_POOL))
        else:
            items = [str(rng.choice([2, 3, 1.5, 1e6])) for _ in range(rng.choice([100, 5000]))]
        new = "[" + ", ".join(items) + "]"
    elif choice < 0.75:
        try:
            x = float(old)
            new = rng.choice([str(-x), str(x + 1), str(int(x)) + ".0" if x == int(x) else
                              str(int(x)), "[" + old + ", " + old + "]"])
        except (ValueError, OverflowError):
            new = rng.choice(VALUE_POOL)
    else:
        new = rng.choice(VALUE_POOL)
    lines[i] = m.group(1) + key + m.group(3) + new
    notes.append(f"{table}.{key}: {old[:40]} -> {new[:40]}")


def delete_line(lines, rng, notes):
    entries = assignments(lines)
    if entries:
        i, table, key = rng.choice(entries)
        del lines[i]
        notes.append(f"delete {table}.{key}")


def rename_key(lines, rng, notes):
    if not (picked := pick(lines, rng)):
        return
    i, table, key, m = picked
    tail = table.split(".")[0]
    others = DOCUMENTED.get(table, DOCUMENTED.get(tail, [key]))
    new = rng.choice([key + "x", key.upper(), rng.choice(others), "sigma", "eta"])
    lines[i] = m.group(1) + new + m.group(3) + m.group(4)
    notes.append(f"rename {table}.{key} -> {new}")


def duplicate_line(lines, rng, notes):
    entries = assignments(lines)
    if entries:
        i, table, key = rng.choice(entries)
        lines.insert(i + 1, lines[i])
        notes.append(f"duplicate {table}.{key}")


def move_line(lines, rng, notes):
    entries = assignments(lines)
    headers = [i for i, line in enumerate(lines) if HEADER_RE.match(line)]
    if entries and headers:
        i, table, key = rng.choice(entries)
        line = lines.pop(i)
        h = rng.choice([j for j, line in enumerate(lines) if HEADER_RE.match(line)])
        lines.insert(h + 1, line)
        notes.append(f"move {table}.{key} under {lines[h].strip()}")


def add_key(lines, rng, notes):
    table = rng.choice([t for t in DOCUMENTED if t not in ("bounds.custom", "profile.claims")])
    key = rng.choice(DOCUMENTED[table])
    value = rng.choice(VALUE_POOL + ["[[0.0], [1.0], [2.0]]", "[0.0]", "[1, 0]", "0.1", "10",
                                     "[[0.5, 0.5], [1, 1]]", "[0, 1, 0]", "1e-12"])
    header = f"[{table}]"
    for j, line in enumerate(lines):
        if line.strip() == header:
            lines.insert(j + 1, f"{key} = {value}")
            break
    else:
        lines += ["", header, f"{key} = {value}"]
    notes.append(f"add {table}.{key} = {value[:40]}")


def add_custom_bound(lines, rng, notes):
    formula = rng.choice(FORMULA_POOL)
    block = ["", "[[bounds.custom]]", f'name = "fz{rng.randrange(1000)}"', f'formula = "{formula}"']
    if rng.random() < 0.5:
        block.append(f'conditions = ["{rng.choice(FORMULA_POOL)}"]')
    if rng.random() < 0.3:
        block.append(f'expect = "{rng.choice(["holds", "violated", "valid_exact"])}"')
    lines += block
    notes.append("custom bound " + " | ".join(block[3:]))


def add_claim(lines, rng, notes):
    """A [profile] claim with odd epsilons or formulas (an empty list, 1e101, NaN ...)."""
    value = rng.choice(["epsilon = []", "epsilon = 1e101", "epsilon = -1", "epsilon = 1.0",
                        "epsilon = [1.0, 2.0]", "epsilon = nan", 'epsilon = "x"',
                        'formula = "1/delta"', 'formula = "ln(-delta)"', 'formula = "delta"'])
    expect = rng.choice(["", 'expect = "holds"', 'expect = "violated"',
                         'expect = "valid_exact"', 'expect = "maybe"'])
    block = ["", "[[profile.claims]]", f'name = "claim{rng.randrange(1000)}"', value]
    if expect:
        block.append(expect)
    if not any(line.strip() == "[profile]" for line in lines):
        block = ["", "[profile]"] + block
    lines += block
    notes.append("claim " + " | ".join(block[-3:]))


def delete_header(lines, rng, notes):
    headers = [i for i, line in enumerate(lines) if HEADER_RE.match(line)]
    if headers:
        i = rng.choice(headers)
        notes.append(f"delete header {lines[i].strip()}")
        del lines[i]


MUTATIONS = [(mutate_value, 10), (delete_line, 3), (rename_key, 2), (duplicate_line, 1),
             (move_line, 1), (add_key, 4), (add_custom_bound, 1), (add_claim, 1),
             (delete_header, 1)]


def make_cases(bases, count, seed):
    rng = random.Random(seed)
    names, weights = zip(*MUTATIONS)
    cases = []
    for k in range(count):
        base_name, base_text = bases[k % len(bases)]
        lines = join_continuations(base_text.splitlines())
        notes = []
        for _ in range(rng.choice([1, 1, 2, 3])):
            rng.choices(names, weights)[0](lines, rng, notes)
        cli = rng.choice(CLI_POOL) if rng.random() < 0.08 else []
        cases.append({"id": k, "base": base_name, "text": "\n".join(lines) + "\n",
                      "mutations": notes, "cli": cli})
    return cases


# ---------------------------------------------------------------- classification

def message_of(stderr):
    """The error message after "rdpaudit: error: FILE: " (or the whole stderr)."""
    for line in stderr.splitlines():
        if line.startswith("rdpaudit: error: ") or line.startswith("rdpaudit: failed: "):
            return line
    return stderr.strip()[-500:]


def echoed_value(message):
    """The value in "KEY = VALUE (expected)": up to the parenthesis that closes the message."""
    m = re.match(r"rdpaudit: error: .*?\.toml: [^\s=]+ = (.*)\)\s*$", message)
    if not m:
        return ""
    body, depth = m.group(1), 1
    for i in range(len(body) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(body[i], 0)
        if depth == 0:
            return body[:i].rstrip()
    return body


def foreign_key(message, text):
    """A key path in the message that is neither documented nor written in the file."""
    for name in INTERNAL_NAMES:
        tail = r"(?![\w])" if name[-1].isalnum() else ""
        if re.search(r"(?<![\w.])" + re.escape(name) + tail, message):
            return name
    m = re.match(r"rdpaudit: error: .*?\.toml: ([^\s=]+) = ", message)
    if not m:
        return None
    key = m.group(1)
    if key.startswith("-") or key in ("experiment file", "results file", "state file"):
        return None
    path = re.sub(r"\[\d+\]", "", key)
    if path in DOCUMENTED_PATHS:
        return None
    leaf = path.split(".")[-1]
    if re.search(r"(?m)^\s*" + re.escape(leaf) + r"\s*=", text):
        return None  # the user wrote it (an unknown key is reported as written)
    return key


NAN_ALLOWED = [  # docs/results-format.md: fields where NaN (or inf) has a documented meaning
    r"scenarios/\d+@sweep_values", r"scenarios/\d+@noise_multiplier",
    r"scenarios/\d+@(feature_clip|clip_norm|projection_diameter)",
    r"scenarios/\d+/bounds/values", r"audit/cells/(bound_value|estimate|exact|tightness_\w+)",
    r"audit/cells/lower",
    # since 2.0/2.1: claim cells have no alpha, Renyi cells no delta; no bracket without an
    # exact value; no margin without a not-rejected cell; claims that do not apply; the
    # upper ends of certified profile rows are inf
    r"audit/cells/(alpha|delta|exact_lower|exact_upper)", r"audit/bounds/min_margin",
    r"scenarios/\d+/claims/values", r"scenarios/\d+/estimates/profile/(delta|epsilon)_upper",
    # since 2.5: a claim's mu is NaN but for GDP claims; mu's grid attainment NaN for closed
    # forms, its upper end inf where unknown; sigma_mul NaN where S_g = 0 or is not derived
    r"scenarios/\d+/claims/mu", r"scenarios/\d+/estimates/gdp/(epsilon_at|epsilon_max|upper)",
    r"scenarios/\d+@(paper_noise_multiplier|sensitivity)",
]


def nonfinite_fields(path):
    """Fields holding NaN or inf where the format gives them no meaning."""
    bad = []

    def check(name, value, informative=None):
        arr = np.asarray(value)
        if arr.dtype.kind != "f" or np.all(np.isfinite(arr)):
            return
        if any(re.fullmatch(p, name) for p in NAN_ALLOWED):
            return
        if informative is not None:  # estimates: NaN only on rows marked not informative
            mask = np.asarray(informative) != 0
            if np.all(np.isfinite(arr[mask])):
                return
            if name.endswith("upper") and np.all(~np.isnan(arr[mask])):
                return  # an upper end of +inf is a one-sided interval
        bad.append(name)

    try:
        with load(path) as r:
            for name, value, group in r.walk():
                if group is None:  # an attribute
                    check(name, value)
                elif np.asarray(value).dtype.kind == "f":
                    informative = None
                    if "/estimates/" in "/" + name + "/" or name.startswith("estimates"):
                        informative = r.column(group + "/informative")
                    check(name, value, informative)
    except FormatError as e:  # exit 0 with a file the reader refuses is a finding too
        bad.append(f"unreadable: {e}")
    return bad


def run_case(binary, case, workdir, timeout):
    d = os.path.join(workdir, f"{case['id']:05d}")
    os.makedirs(d, exist_ok=True)
    cfg = os.path.join(d, "case.toml")
    with open(cfg, "w") as fh:
        fh.write(case["text"])
    out = os.path.join(d, "out.h5")
    result = dict(id=case["id"], base=case["base"], mutations=case["mutations"],
                  cli=case["cli"], messages=[])

    def call(args):
        t0 = time.time()
        try:
            p = subprocess.run([binary] + args, capture_output=True, text=True,
                               timeout=timeout, cwd=d)
            return p.returncode, p.stderr, time.time() - t0
        except subprocess.TimeoutExpired:
            return None, "", time.time() - t0

    def failure(stage, rc, err):
        """The outcome of a command that did not exit 0 (None when it did)."""
        if rc != 0 and err.strip():
            result["messages"].append(message_of(err))
        if rc is None:
            return f"timeout ({stage})"
        if rc < 0 or rc not in (0, 1, 2):
            return "crash"
        if rc == 1:
            return "failed (exit 1)"
        if rc == 2 and stage == "validate":
            return "validate rejected"
        if rc == 2:
            # Only a message about an option is the option's doing; one naming a key of the
            # file is a late error like any other.
            if case["cli"] and not re.match(r"rdpaudit: error: .*?\.toml: [^\s=]+ = ", message_of(err)) \
                    or re.match(r"rdpaudit: error: .*?\.toml: -", message_of(err)):
                return "run rejected: command line"
            if any(re.search(p, message_of(err)) for p in RUNTIME_ONLY):
                return "run rejected: runtime"
            return "run rejected: decidable"
        return None

    rc, err, secs = call(["validate", cfg])
    result["validate_rc"], result["validate_seconds"] = rc, round(secs, 3)
    result["outcome"] = failure("validate", rc, err)
    if result["outcome"] is None:
        cli = [a.replace("@DIR@", d) for a in case["cli"]]
        if "-o" not in cli:
            cli += ["-o", out]
        threads = [] if "--threads" in cli else ["--threads", "1"]  # one --threads only
        rc, err, secs = call(["run", cfg] + threads + cli)
        result["run_rc"], result["run_seconds"] = rc, round(secs, 3)
        result["outcome"] = failure("run", rc, err)
        if result["outcome"] is None:
            written = out if "-o" not in case["cli"] else None
            bad = nonfinite_fields(written) if written and os.path.exists(written) else []
            result["nonfinite"] = bad
            result["outcome"] = "exit 0, non-finite" if bad else "ok"
    result["foreign_keys"] = [k for k in (foreign_key(m, case["text"])
                                          for m in result["messages"]) if k]
    result["long_messages"] = [m[:200] for m in result["messages"]
                               if len(echoed_value(m)) > MAX_ECHO]
    if os.path.exists(out):
        os.remove(out)
    return result


# ---------------------------------------------------------------- report

ORDER = ["crash", "failed (exit 1)", "validate rejected", "run rejected: decidable",
         "run rejected: runtime", "run rejected: command line", "exit 0, non-finite",
         "timeout (validate)", "timeout (run)", "ok"]


def write_report(path, args, results, seconds, command):
    counts = collections.Counter(r["outcome"] for r in results)
    foreign = [r for r in results if r["foreign_keys"]]
    long_msgs = [r for r in results if r["long_messages"]]
    lines = ["# Fuzz study: mutated experiment files through `validate` and `run`", "",
             f"Produced by `{command}` on {datetime.date.today()} in {seconds:.0f} s of wall time "
             f"({args.jobs} file(s) at a time, `--threads 1`, time limit {args.timeout:g} s per "
             f"command) with `{args.binary}`.", "",
             "**Files.** Each of `experiments/*.toml` is made tiny (`experiment.trajectories = "
             "300`, `tally.pilot_trajectories = 200`, swept lists cut to their first, middle "
             "and last value) and then mutated at the text level, one to "
             "three mutations per file, seeded (`--seed`): values replaced by extremes (0, "
             "negatives, ±1e308, 5e307, NaN, ±inf, 2^63 − 1), by the wrong type or by a list, "
             "numbers scaled by 10^±3 … 10^±300, list elements replaced, lists of 100 or 5 000 "
             "elements, keys deleted, renamed, duplicated, moved to another table or added "
             "(documented keys with such values; custom bounds with assignments, unknown names, "
             "division by zero, conditions that give NaN; `[[profile.claims]]` with an empty, "
             "NaN, negative or 1e101 epsilon or an odd formula or expectation), table headers "
             "deleted, and in about 8 % of the files odd command-line options (`--seed 2^64−1`, "
             "`--scale 1e-9`, `--trajectories 2^63−1 --scale 10`, `-o` naming a directory, "
             "`--until-decided` with and without a budget, `--part 4/3`, `--resume` without a "
             "checkpoint, …). `rdpaudit validate` runs on every file; "
             "when it accepts, `rdpaudit run --threads 1` runs too.", "",
             "## Outcomes", "",
             "| outcome | files | meaning |", "| --- | ---: | --- |"]
    meaning = {
        "crash": "killed by a signal, or an exit status other than 0, 1, 2",
        "failed (exit 1)": "an internal failure (`rdpaudit: failed: …`)",
        "validate rejected": "`validate` exits 2 naming the key, the value and what is expected",
        "run rejected: decidable": "`validate` accepted, `run` exited 2 for a reason the file "
                                   "decides (should be 0)",
        "run rejected: runtime": "`validate` accepted, `run` exited 2 because the simulated "
                                 "iterates left the floating-point range",
        "run rejected: command line": "`run` rejected an odd command-line option",
        "exit 0, non-finite": "`run` exited 0 with NaN or inf where the format does not allow it",
        "timeout (validate)": f"`validate` took more than {args.timeout:g} s",
        "timeout (run)": f"`run` took more than {args.timeout:g} s (the file asks for much work)",
        "ok": "`run` exited 0 with a clean file",
    }
    for o in ORDER:
        lines.append(f"| {o} | {counts.get(o, 0)} | {meaning[o]} |")
    lines.append(f"| **total** | **{len(results)}** | |")
    lines += ["", f"Messages naming a key the user never wrote (neither documented nor in the "
              f"file): **{len(foreign)}**. Messages echoing a value longer than {MAX_ECHO} "
              f"characters (uncapped): **{len(long_msgs)}**.", ""]

    def examples(title, rows, key):
        if not rows:
            return
        lines.extend([f"### {title}", ""])
        for r in rows[:12]:
            lines.append(f"- file {r['id']} ({r['base']}; {'; '.join(r['mutations'])[:160]}"
                         f"{'; ' + ' '.join(r['cli']) if r['cli'] else ''}): "
                         f"`{str(key(r))[:300]}`")
        lines.append("")

    examples("Crashes and internal failures",
             [r for r in results if r["outcome"] in ("crash", "failed (exit 1)")],
             lambda r: r["messages"][-1] if r["messages"] else r.get("run_rc"))
    examples("Run rejected after validate accepted",
             [r for r in results if r["outcome"].startswith("run rejected")],
             lambda r: r["messages"][-1])
    examples("Exit 0 with non-finite values", [r for r in results
                                                if r["outcome"] == "exit 0, non-finite"],
             lambda r: r["nonfinite"])
    examples("Messages naming internal keys", foreign, lambda r: r["messages"])
    examples("Uncapped echoed values", long_msgs, lambda r: r["long_messages"])
    examples("Timeouts", [r for r in results if r["outcome"].startswith("timeout")],
             lambda r: "timeout")
    rejected = collections.Counter()
    for r in results:
        if r["outcome"] == "validate rejected" and r["messages"]:
            m = re.match(r"rdpaudit: error: .*?\.toml: (.*)", r["messages"][0])
            text = m.group(1) if m else r["messages"][0]
            text = "TOML syntax error" if "TOML syntax error" in text else text
            rejected[re.sub(r"\[\d+\]", "[i]", re.split(r" = | \(|:", text, 1)[0])[:60]] += 1
    lines += ["### What `validate` rejected, by key", "",
              "| key (as reported) | files |", "| --- | ---: |"]
    for k, v in rejected.most_common(40):
        lines.append(f"| `{k}` | {v} |")
    lines.append("")
    with open(path, "w") as fh:
        fh.write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--binary", default="build/release/rdpaudit")
    ap.add_argument("--keep", help="keep the mutated files and log.jsonl in this directory")
    ap.add_argument("--out", default="docs/studies/fuzz.md")
    args = ap.parse_args()
    binary = os.path.abspath(os.path.join(ROOT, args.binary))
    bases = [(os.path.basename(p), tiny(open(p).read()))
             for p in sorted(glob.glob(os.path.join(ROOT, "experiments", "*.toml")))]
    cases = make_cases(bases, args.files, args.seed)
    workdir = args.keep or tempfile.mkdtemp(prefix="rdpaudit-fuzz-")
    os.makedirs(workdir, exist_ok=True)
    t0 = time.time()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda c: run_case(binary, c, workdir, args.timeout), cases))
    seconds = time.time() - t0
    with open(os.path.join(workdir, "log.jsonl"), "w") as fh:
        for r in results:
            fh.write(json.dumps(r) + "\n")
    command = "/usr/bin/python3 python/studies/fuzz_experiments.py " + " ".join(sys.argv[1:])
    write_report(os.path.join(ROOT, args.out), args, results, seconds, command.strip())
    counts = collections.Counter(r["outcome"] for r in results)
    print(", ".join(f"{o}: {counts.get(o, 0)}" for o in ORDER),
          f"| foreign keys: {sum(1 for r in results if r['foreign_keys'])}",
          f"| long messages: {sum(1 for r in results if r['long_messages'])}",
          f"| {seconds:.0f} s, log {workdir}/log.jsonl")
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
