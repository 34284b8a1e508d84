"""python/ as a package: it installs from python/pyproject.toml with Debian's pip and setuptools
(no network), the installed copy imports without the source tree, its version is the C++
project's, and no script under python/ or tests/python edits sys.path (run by ctest).

Usage: /usr/bin/python3 test_package.py SOURCE_DIR WORKDIR PROJECT_VERSION
Prints '<n> passed, <m> failed' and exits non-zero on any failure.
"""

import os
import re
import shutil
import subprocess
import sys

from checks import check, finish  # this folder

source, work, project_version = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

# Built from a copy: a build in python/ itself would leave build/ and *.egg-info in the tree.
copy = os.path.join(work, "src")
os.makedirs(copy)
shutil.copy(os.path.join(source, "python", "pyproject.toml"), copy)
shutil.copy(os.path.join(source, "python", "README.md"), copy)
shutil.copytree(os.path.join(source, "python", "rdpaudit"), os.path.join(copy, "rdpaudit"),
                ignore=shutil.ignore_patterns("__pycache__"))

target = os.path.join(work, "site")
pip = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation",
                      "--no-deps", "--no-index", "--target", target, copy],
                     capture_output=True, text=True)
check(pip.returncode == 0, f"pip install: exit {pip.returncode}: {pip.stderr[-2000:]}")

# The installed copy alone (PYTHONPATH replaced, run from elsewhere): the reader, compare and
# the shared statistics import, and the metadata carry the version.
probe = subprocess.run(
    [sys.executable, "-c",
     "import importlib.metadata as m, rdpaudit, rdpaudit.compare, rdpaudit.stats; "
     "print(rdpaudit.__file__); print(m.version('rdpaudit')); "
     "print(rdpaudit.stats.clopper_pearson(3, 10))"],
    capture_output=True, text=True, cwd=work, env=dict(os.environ, PYTHONPATH=target))
check(probe.returncode == 0, f"import of the installed package: {probe.stderr[-2000:]}")
if probe.returncode == 0:
    where, version, interval = probe.stdout.splitlines()
    check(where.startswith(target + os.sep), f"rdpaudit imported from {where}, not {target}")
    check(version == project_version,
          f"python/pyproject.toml version {version} != CMakeLists.txt project version "
          f"{project_version}")
    # R: binom.test(3, 10)$conf.int = 0.06673951 0.65245285
    lo, hi = (float(x) for x in interval.strip("()").split(","))
    check(abs(lo - 0.06673951) < 1e-8 and abs(hi - 0.65245285) < 1e-8,
          f"clopper_pearson(3, 10) = {interval}")
installed = sorted(os.listdir(target)) if os.path.isdir(target) else []
check([n for n in installed if not n.endswith(".dist-info")] == ["rdpaudit"],
      f"the package installs rdpaudit alone, not {installed}")

# Scripts find the package by installation or PYTHONPATH, and their own folder by Python's
# rule for scripts: an edit of sys.path would hide which copy of the package runs.
edits = []
for folder in (os.path.join(source, "python"), os.path.join(source, "tests", "python")):
    for root, _, files in os.walk(folder):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        if re.search(r"\bsys\.path\.(insert|append)\(", line):
                            edits.append(f"{os.path.relpath(path, source)}:{number}")
check(not edits, f"sys.path edited in {edits}")

finish()
