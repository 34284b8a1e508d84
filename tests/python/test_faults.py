"""Resource faults: a full disk and a memory limit end a command with status 2 and a message
naming the file or what was being allocated, leave nothing at -o, and leave a file that was
there before untouched.

usage: /usr/bin/python3 test_faults.py RDPAUDIT SOURCE_DIR WORK_DIR

- A file size limit (ulimit -f, RLIMIT_FSIZE with SIGXFSZ ignored so that writes fail with
  EFBIG) while the results file and while a checkpoint is written: needs no privileges.
- A full file system: a 2 MB tmpfs mounted where this user may (root in CI); skipped, with
  the reason printed, where mounting is not allowed.
- A memory limit (ulimit -v): validate refuses a run whose estimated needs exceed it, naming
  tally.raw_samples; a run that passes validate and still runs out of memory exits 2 with
  "out of memory while ...". Skipped under AddressSanitizer, which needs far more address
  space than any such limit allows.
- merge -o naming one of its parts, and an -o name too long for <out>.ckpt.tmp, are refused
  before anything is written.
"""
import os
import resource
import shutil
import signal
import subprocess
import sys

import h5py

from checks import check, finish  # this folder

cli, source, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

quickstart = open(os.path.join(source, "experiments", "quickstart.toml")).read()
# The big.toml: the quickstart with 10^5 trajectories, two epochs and 10^5 raw samples
# (a 3.4 MB results file, 0.8 MB checkpoints).
big = os.path.join(work, "big.toml")
open(big, "w").write(quickstart.replace("trajectories = 200000", "trajectories = 100000")
                     .replace("epochs = [1, 5, 20]", "epochs = [1, 2]")
                     + "\n[tally]\nraw_samples = 100000\n")


def limited(fsize=None, address_space=None):
    """preexec_fn: the resource limits of the child (SIGXFSZ ignored: writes fail, EFBIG)."""
    def apply():
        if fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        if address_space is not None:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    return apply


def run(args, **limits):
    return subprocess.run([cli] + args, capture_output=True, text=True, timeout=300,
                          preexec_fn=limited(**limits) if limits else None)


def leaves_nothing(what, done, out, previous=None):
    """Exit 2, one message naming `out`, no crash; nothing at out (or `previous` intact)."""
    err = done.stderr.strip()
    check(done.returncode == 2, f"{what}: exit {done.returncode}, expected 2 ({err[-300:]})")
    check(os.path.basename(out) in err, f"{what}: the message names {out} ({err[-300:]})")
    check(not os.path.exists(out + ".tmp"), f"{what}: no {out}.tmp left")
    if previous is None:
        check(not os.path.exists(out), f"{what}: nothing at {out}")
    else:
        check(os.path.exists(out) and open(out, "rb").read() == previous,
              f"{what}: the file at {out} before is untouched")


# ---------------------------------------------------------------- a file size limit
out = os.path.join(work, "limited.h5")
previous = b"a results file of an earlier run\n"
open(out, "wb").write(previous)
done = run(["run", big, "-o", out, "--threads", "2"], fsize=2 << 20)
leaves_nothing("run under a 2 MB file size limit", done, out, previous)
check("File too large" in done.stderr, f"the reason is given ({done.stderr.strip()[-200:]})")
os.remove(out)
done = run(["run", big, "-o", out, "--threads", "2"], fsize=2 << 20)
leaves_nothing("run under a 2 MB file size limit, no file before", done, out)

# A checkpoint that cannot be written: the run stops with status 2 naming it; the earlier
# checkpoint (written while the limit allowed it) stays, and no results file is written.
out = os.path.join(work, "limited_ckpt.h5")
done = run(["run", big, "-o", out, "--threads", "1", "--checkpoint-every", "0.01"],
           fsize=512 << 10)
check(done.returncode == 2 and "checkpoint" in done.stderr and ".ckpt" in done.stderr,
      f"checkpoint under a 512 kB limit: exit {done.returncode} ({done.stderr.strip()[-300:]})")
check(not os.path.exists(out) and not os.path.exists(out + ".tmp")
      and not os.path.exists(out + ".ckpt.tmp"), "checkpoint failure: no results, no .tmp")

# ---------------------------------------------------------------- a full file system
mount = os.path.join(work, "small")
os.makedirs(mount)
mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mount],
                         capture_output=True, text=True) if shutil.which("mount") else None
if mounted is None or mounted.returncode != 0:
    reason = "no mount command" if mounted is None else mounted.stderr.strip()[:200]
    print(f"SKIPPED: full file system (a 2 MB tmpfs cannot be mounted here: {reason})")
else:
    try:
        out = os.path.join(mount, "x.h5")
        open(out, "wb").write(previous)
        done = run(["run", big, "-o", out, "--threads", "2"])
        leaves_nothing("run on a full 2 MB tmpfs", done, out, previous)
        check("No space left on device" in done.stderr,
              f"the reason is given ({done.stderr.strip()[-200:]})")
        out = os.path.join(mount, "y.h5")
        done = run(["run", big, "-o", out, "--threads", "1", "--checkpoint-every", "0.01"])
        check(done.returncode == 2 and "checkpoint" in done.stderr,
              f"checkpoint on a full tmpfs: exit {done.returncode} ({done.stderr[-300:]})")
        check(not os.path.exists(out) and not any(n.endswith(".tmp") for n in os.listdir(mount)),
              "checkpoint on a full tmpfs: no results, no .tmp")
    finally:
        subprocess.run(["umount", mount])

# ---------------------------------------------------------------- a memory limit
asan = b"__asan_init" in open(cli, "rb").read()
if asan:
    print("SKIPPED: memory limit (an AddressSanitizer build reserves more address space than "
          "any ulimit -v the test could set)")
else:
    cfg = os.path.join(work, "memory.toml")
    open(cfg, "w").write("""
[experiment]
seed = 1
trajectories = 2000000
[model]
loss = "quadratic"
dim = 8
lambda = 1.0
[data]
preset = "quadratic_worst_case"
n = 10
sensitivity = 1.0
[training]
scheme = "full_batch"
eta = 0.1
steps = 1
[noise]
step_std = 1.0
[tally]
raw_samples = 2000000
[estimate]
pilot = 20000
bootstrap = 0
""")
    # The raw samples alone (2 x 2e6 x 8 doubles = 0.256 GB) exceed 250 MB: refused.
    done = run(["validate", cfg], address_space=250 << 20)
    check(done.returncode == 2 and "tally.raw_samples = 2000000" in done.stderr
          and "more than the" in done.stderr,
          f"validate under 250 MB: exit {done.returncode} ({done.stderr.strip()[-300:]})")
    # At 300 MB the estimate fits, the run does not: out of memory, named, nothing written.
    out = os.path.join(work, "memory.h5")
    open(out, "wb").write(previous)
    done = run(["run", cfg, "-o", out, "--threads", "1"], address_space=300 << 20)
    check(done.returncode == 2 and "out of memory while running `rdpaudit run` (scenario 1/1)"
          in done.stderr, f"run under 300 MB: exit {done.returncode} ({done.stderr[-300:]})")
    check(open(out, "rb").read() == previous and not os.path.exists(out + ".tmp"),
          "run under 300 MB: the file at -o before is untouched, no .tmp")

    # The exact chain's memory (issue 37). A projected chain on a grid of 6.7e5 cells would
    # hold about 0.28 GB: under 250 MB validate and run refuse it before any work, naming
    # estimate.exact_max_memory; below that limit the scenario gets no exact value, the run
    # goes on. Noise far wider than the projection's interval (blog_sigma up to 1e12) once
    # took memory in proportion to sigma (4.2 GB at 1e7): now a few MB, exact rows written.
    chain = """
[experiment]
seed = 7
trajectories = 1000
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
batch_size = BATCH
steps = 1
projection_diameter = 2.0
[noise]
blog_sigma = SIGMA
[estimate]
methods = ["exact"]
bootstrap = 0
"""
    fine = os.path.join(work, "chain_fine.toml")
    open(fine, "w").write(chain.replace("BATCH", "2").replace("SIGMA", "0.003"))
    for command in ("validate", "run"):
        out = os.path.join(work, "chain_fine.h5")
        done = run([command, fine] + (["-o", out] if command == "run" else []),
                   address_space=250 << 20)
        check(done.returncode == 2 and "estimate.exact_max_memory = 4e+09" in done.stderr
              and "more than the" in done.stderr and not os.path.exists(out),
              f"{command} of a 0.28 GB chain under 250 MB: exit {done.returncode} "
              f"({done.stderr.strip()[-300:]})")
    open(fine, "a").write("exact_max_memory = 1e8\n")
    out = os.path.join(work, "chain_fine.h5")
    done = run(["run", fine, "-o", out, "--threads", "1"], address_space=250 << 20)
    check(done.returncode == 0, f"the same chain with exact_max_memory = 1e8: exit "
                                f"{done.returncode} ({done.stderr.strip()[-300:]})")
    if done.returncode == 0:
        with h5py.File(out, "r") as f:
            how = f["scenarios/0000/estimates"].attrs["mixture"]
        check("memory limit" in how and "estimate.exact_max_memory = 1e+08" in how,
              f"its exact law says why there is none ({how[-200:]})")
    for sigma in ("1e7", "1e12"):
        wide = os.path.join(work, f"chain_{sigma}.toml")
        open(wide, "w").write(chain.replace("BATCH", "10").replace("SIGMA", sigma))
        out = os.path.join(work, f"chain_{sigma}.h5")
        done = run(["run", wide, "-o", out, "--threads", "1"], address_space=250 << 20)
        check(done.returncode == 0, f"blog_sigma = {sigma} under 250 MB: exit "
                                    f"{done.returncode} ({done.stderr.strip()[-300:]})")
        if done.returncode == 0:
            with h5py.File(out, "r") as f:
                est = f["scenarios/0000/estimates"]
                rows = [(m.decode() if isinstance(m, bytes) else m, lo, hi)
                        for m, lo, hi in zip(est["method"][:], est["lower"][:], est["upper"][:])]
            # the truth is below 1e-15 (sigma 1e7) and 1e-25 (1e12): the lower end never above
            exact_rows = [(lo, hi) for m, lo, hi in rows if m == "exact-chain"]
            check(len(exact_rows) > 0 and all(0 <= lo <= 1e-15 and lo <= hi < 1e-9
                                              for lo, hi in exact_rows),
                  f"blog_sigma = {sigma}: exact-chain brackets hold the truth ({rows[:4]})")

# ---------------------------------------------------------------- refused before writing
parts = []
for i in (1, 2):
    p = os.path.join(work, f"part{i}.h5")
    done = run(["run", os.path.join(source, "experiments", "quickstart.toml"), "-o", p,
                "--trajectories", "4000", "--part", f"{i}/2", "--threads", "1"])
    check(done.returncode == 0, f"part {i}/2: exit {done.returncode} ({done.stderr[-200:]})")
    parts.append(p)
kept = open(parts[0], "rb").read()
done = run(["merge", parts[0], parts[1], "-o", parts[0]])
check(done.returncode == 2 and "is one of the part files merged" in done.stderr
      and open(parts[0], "rb").read() == kept, f"merge -o naming a part: exit "
      f"{done.returncode} ({done.stderr.strip()[-200:]}); the part is untouched")
long_name = os.path.join(work, "x" * 250 + ".h5")
done = run(["run", os.path.join(source, "experiments", "quickstart.toml"), "-o", long_name])
check(done.returncode == 2 and "NAME_MAX" in done.stderr and done.stdout == "",
      f"-o beyond NAME_MAX: exit {done.returncode} ({done.stderr.strip()[-200:]})")

# ---------------------------------------------------------------- a scan of memory limits
# Between "the program barely loads" and "the command succeeds", every address-space limit
# must end a command with 0, or 2 and "out of memory while ...": never a signal (HDF5 crashed
# at some such limits: its error stack allocated on first use, its error paths after a failed
# allocation), never a claim that an intact file is damaged.
if not asan:
    def loads(kib):
        """The program starts under this limit (below it the loader or libgomp refuses)."""
        return run(["--version"], address_space=kib << 10).returncode in (0, 2)

    low, high = 1 << 14, 1 << 20  # KiB
    check(loads(high), "the program starts under a 1 GiB limit")
    while high - low > 64:
        mid = (low + high) // 2
        low, high = (low, mid) if loads(mid) else (mid, high)
    scan_cfg = os.path.join(work, "scan.toml")
    open(scan_cfg, "w").write(quickstart.replace("trajectories = 200000", "trajectories = 2000")
                              .replace("epochs = [1, 5, 20]", "epochs = [1, 2]"))
    intact = os.path.join(work, "scan.h5")
    done = run(["run", scan_cfg, "-o", intact, "--threads", "1"])
    check(done.returncode == 0, f"the scan's results file: exit {done.returncode}")
    scan_parts = [os.path.join(work, f"scan_part{i}.h5") for i in (1, 2)]
    for i, p in enumerate(scan_parts):
        done = run(["run", scan_cfg, "-o", p, "--part", f"{i + 1}/2", "--threads", "1"])
        check(done.returncode == 0, f"the scan's part {i + 1}: exit {done.returncode}")
    kept_part = open(scan_parts[0], "rb").read()
    scan_out = os.path.join(work, "scan_out.h5")
    commands = {
        "check": ["check", intact],
        "merge": ["merge"] + scan_parts + ["-o", scan_out],
        "run": ["run", scan_cfg, "-o", scan_out, "--threads", "1"],
    }
    for name, args in commands.items():
        successes, signals, bad = 0, [], []
        kib = high
        # 1 MiB steps up to 48 MiB above the floor; stop once the command has succeeded twice.
        while kib < high + (48 << 10) and successes < 2:
            if os.path.exists(scan_out):
                os.remove(scan_out)
            done = run(args, address_space=kib << 10)
            err = done.stderr.strip()
            if done.returncode < 0:
                signals.append(f"{kib} KiB: signal {-done.returncode}")
            elif done.returncode == 0:
                successes += 1
            elif (done.returncode != 2 or "out of memory while" not in err or "damaged" in err
                  or os.path.exists(scan_out) or os.path.exists(scan_out + ".tmp")):
                bad.append(f"{kib} KiB: exit {done.returncode} ({err[-200:]})")
            kib += 1024
        check(not signals, f"{name} under ulimit -v from {high} KiB: no signal ({signals[:5]})")
        check(not bad, f"{name} under ulimit -v from {high} KiB: exit 2, out of memory, never "
                       f"damaged, nothing at -o ({bad[:3]})")
        check(successes == 2, f"{name} succeeds within 48 MiB above the floor of {high} KiB")
    check(open(scan_parts[0], "rb").read() == kept_part,
          "the part merged under the limits is untouched")

finish()
