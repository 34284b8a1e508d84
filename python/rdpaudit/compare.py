"""Compare two rdpaudit results files number for number.

    /usr/bin/python3 -m rdpaudit.compare A.h5 B.h5     (from python/, or with PYTHONPATH)

Every dataset and attribute must be identical (bitwise for floats, NaN equal to NaN), except
the run's metadata: when and how it ran (times, command line, threads, ranks, hosts, build)
and wall-clock seconds. Exit 0 when equal, 1 with the differences listed otherwise. Used by
the tests that a run gives the same numbers for any thread count, MPI rank count, split into
parts, or interruption and resume.
"""
import sys

import h5py
import numpy as np

# Attributes that describe the run, not its numbers.
RUN_METADATA = {"created_utc", "command_line", "threads", "ranks", "parallel", "seconds",
                "estimation_seconds", "git_hash", "tool_version", "build_type", "compiler",
                "libraries", "hdf5_version", "config_path"}


def _equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype.kind != b.dtype.kind:
        return False
    if a.dtype.kind == "f":
        return a.tobytes() == b.tobytes() and a.dtype == b.dtype
    return bool(np.array_equal(a, b))


def differences(path_a, path_b):
    out = []
    with h5py.File(path_a, "r") as fa, h5py.File(path_b, "r") as fb:
        def walk(ga, gb, where):
            for k in sorted(set(ga.attrs) | set(gb.attrs)):
                if k in RUN_METADATA:
                    continue
                if k not in ga.attrs or k not in gb.attrs:
                    out.append(f"{where}@{k}: only in one file")
                elif not _equal(ga.attrs[k], gb.attrs[k]):
                    out.append(f"{where}@{k}: {ga.attrs[k]!r} vs {gb.attrs[k]!r}")
            for k in sorted(set(ga) | set(gb)):
                if k not in ga or k not in gb:
                    out.append(f"{where}/{k}: only in one file")
                elif isinstance(ga[k], h5py.Group):
                    walk(ga[k], gb[k], f"{where}/{k}")
                elif not _equal(ga[k][()], gb[k][()]):
                    out.append(f"{where}/{k}: datasets differ")
        walk(fa, fb, "")
    return out


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    diff = differences(argv[1], argv[2])
    for line in diff[:50]:
        print(line)
    if diff:
        print(f"{len(diff)} difference(s) between {argv[1]} and {argv[2]}")
        return 1
    print(f"identical numbers: {argv[1]} and {argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
