"""Files written safely (ctest): every path rdpaudit writes is refused before any work, or
written without following a link or replacing what is not a regular file.

Usage: /usr/bin/python3 test_safe_paths.py RDPAUDIT_CLI SOURCE_DIR WORKDIR
- a symbolic link planted at <out>.tmp (or <out>.ckpt.tmp) is refused and its target untouched;
  a regular leftover <out>.tmp (a killed run's) is replaced;
- -o a device, a FIFO, a symbolic link, a folder, a new folder ("newdir/"), the experiment file,
  a values_file or an accountant script it reads: exit 2 naming -o, nothing written, the input
  unchanged; `search -o` and `--trace` the searched file: refused;
- experiment.name with a '/' (results/<name>.h5 would leave results/): exit 2 naming the key;
- values_file a device, a FIFO or over 64 MiB: exit 2 at once (no hang, no memory); a file that
  is not a table is refused without its contents in the message;
- a file-size limit (ulimit -f): exit 2 with "File too large", no temporary left, no SIGXFSZ.
"""

import os
import resource
import shutil
import subprocess
import sys

from checks import SMALL_SEARCH as SEARCH, check, finish  # this folder

cli, source, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
experiments = os.path.join(source, "experiments")


def run(*args, cwd=work, **kw):
    return subprocess.run([cli, *args], capture_output=True, text=True, cwd=cwd, timeout=120,
                          **kw)


def write(name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


with open(os.path.join(experiments, "quickstart.toml")) as f:
    quick = f.read()
cfg = write("q.toml", quick)


def refused(args, needles, what, produced=()):
    r = run(*args)
    check(r.returncode == 2 and all(n in r.stderr for n in needles),
          f"{what}: exit {r.returncode}, {r.stderr.strip()[-300:]!r} lacks {needles}")
    for p in produced:
        check(not os.path.lexists(os.path.join(work, p)) or os.path.islink(os.path.join(work, p))
              or p.endswith(".keep"), f"{what}: {p} was written")
    return r


# ---- temporaries are created exclusively: a planted link is refused, its target untouched ----
victim = write("victim.txt", "precious\n")
for suffix in (".tmp", ".ckpt.tmp"):
    link = os.path.join(work, "x.h5" + suffix)
    os.symlink("victim.txt", link)
    refused(["run", cfg, "-o", "x.h5"], ["x.h5" + suffix, "symbolic link"], f"link at {suffix}")
    check(open(victim).read() == "precious\n", f"the link's target at {suffix} was written")
    check(not os.path.exists(os.path.join(work, "x.h5")), f"link at {suffix}: x.h5 written")
    os.remove(link)
write("y.h5.tmp", "left by a killed run")
r = run("run", cfg, "-o", "y.h5")
check(r.returncode == 0 and os.path.isfile(os.path.join(work, "y.h5")) and
      not os.path.exists(os.path.join(work, "y.h5.tmp")),
      f"a regular leftover temporary is replaced: exit {r.returncode} {r.stderr[-200:]}")

# ---- -o: never a device, a FIFO, a link, a folder, or an input of the run ----
os.mkfifo(os.path.join(work, "fifo.h5"))
os.symlink("victim.txt", os.path.join(work, "link.h5"))
os.makedirs(os.path.join(work, "folder.h5"))
refused(["run", cfg, "-o", "/dev/null"], ["-o", "/dev/null", "a device"], "-o /dev/null")
check(os.path.exists("/dev/null") and not os.path.isfile("/dev/null"), "/dev/null replaced")
refused(["run", cfg, "-o", "fifo.h5"], ["-o", "fifo.h5", "a FIFO"], "-o a FIFO")
refused(["run", cfg, "-o", "link.h5"], ["-o", "link.h5", "symbolic link"], "-o a link")
check(open(victim).read() == "precious\n", "-o a link: its target was written")
refused(["run", cfg, "-o", "folder.h5"], ["-o", "folder.h5", "directory"], "-o a folder")
refused(["run", cfg, "-o", "newdir/"], ["-o", "newdir/", "names a folder"], "-o newdir/")
check(not os.path.exists(os.path.join(work, "newdir")), "-o newdir/: the folder was made")
before = open(cfg).read()
refused(["run", cfg, "-o", "q.toml"], ["-o", "q.toml", "which this command reads"],
        "-o the experiment file")
refused(["run", cfg, "-o", os.path.join(work, ".", "q.toml")], ["which this command reads"],
        "-o the experiment file by another path")
check(open(cfg).read() == before, "the experiment file was changed")

os.makedirs(os.path.join(work, "accountants"))
for name in ("sgm_rdp.py", "sgm_rdp.csv"):
    shutil.copy(os.path.join(experiments, "accountants", name), os.path.join(work, "accountants"))
with open(os.path.join(experiments, "accountant_values_file.toml")) as f:
    table_cfg = write("table.toml", f.read())
csv_before = open(os.path.join(work, "accountants", "sgm_rdp.csv")).read()
refused(["run", table_cfg, "-o", "accountants/sgm_rdp.csv"],
        ["-o", "accountants/sgm_rdp.csv", "which this command reads"], "-o the values_file")
check(open(os.path.join(work, "accountants", "sgm_rdp.csv")).read() == csv_before,
      "the values_file was changed")
with open(os.path.join(experiments, "accountant_command.toml")) as f:
    command_cfg = write("command.toml", f.read())
script_before = open(os.path.join(work, "accountants", "sgm_rdp.py")).read()
refused(["run", command_cfg, "-o", "accountants/sgm_rdp.py", "--allow-commands"],
        ["-o", "accountants/sgm_rdp.py", "which this command reads"], "-o the accountant script")
check(open(os.path.join(work, "accountants", "sgm_rdp.py")).read() == script_before,
      "the accountant script was changed")

search_cfg = write("s.toml", SEARCH)
search_before = open(search_cfg).read()
refused(["search", search_cfg, "-o", "s.toml"], ["-o", "s.toml", "which this command reads"],
        "search -o the searched file")
refused(["search", search_cfg, "-o", "found.toml", "--trace", "s.toml"],
        ["--trace", "s.toml", "which this command reads"], "search --trace the searched file")
r = run("search", search_cfg, "-o", "found.toml")
check(r.returncode == 0 and os.path.isfile(os.path.join(work, "found.toml")),
      f"the search file itself is good: exit {r.returncode} {r.stderr[-300:]}")
check(open(search_cfg).read() == search_before, "the searched file was changed")

# ---- experiment.name stays a file name in results/ ----
escaped = write("escaped.toml", quick.replace('name = "quickstart"', 'name = "../../escaped"'))
check('name = "../../escaped"' in open(escaped).read(), "the quickstart names itself")
refused(["run", escaped], ["experiment.name", "../../escaped", "plain file name"], "name a path")
check(not os.path.exists(os.path.join(work, "..", "..", "escaped.h5")), "escaped.h5 written")

# ---- values_file: a regular file of bounded size, never echoed ----
os.mkfifo(os.path.join(work, "accountants", "fifo.csv"))
big = os.path.join(work, "accountants", "big.csv")
with open(big, "wb") as f:
    f.truncate((64 << 20) + 1)
secret = write("accountants/secret.csv", "root:$y$j9T$abcdefSECRET:19000:0:99999:7:::\n")
for name, needles in (("/dev/zero", ["/dev/zero", "not a regular file"]),
                      ("fifo.csv", ["fifo.csv", "not a regular file"]),
                      ("big.csv", ["big.csv", "at most 64 MiB"]),
                      ("secret.csv", ["secret.csv", "not shown"])):
    path = name if name.startswith("/") else f"accountants/{name}"
    edited = write(f"vf_{os.path.basename(name)}.toml",
                   open(table_cfg).read().replace("accountants/sgm_rdp.csv", path))
    r = refused(["validate", edited], ["bounds.custom[0].values_file", *needles],
                f"values_file {name}")
    check("SECRET" not in r.stderr and "$y$" not in r.stderr,
          f"values_file {name}: the message quotes the file: {r.stderr!r}")

# ---- a file-size limit: reported, nothing left ----
def limit_file_size():
    resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))


r = run("run", cfg, "-o", "limited.h5", preexec_fn=limit_file_size)
check(r.returncode == 2 and "File too large" in r.stderr,
      f"ulimit -f: exit {r.returncode}, {r.stderr.strip()[-300:]!r}")
check(not os.path.exists(os.path.join(work, "limited.h5")) and
      not os.path.exists(os.path.join(work, "limited.h5.tmp")), "ulimit -f: a file was left")

finish()
