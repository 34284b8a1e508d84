"""Damaged copies of rdpaudit files, for the tests that every one of them is refused.

results_variants(good, good_2d, work) and state_variants(good, work, kind) return
{name: path}: each a copy of a good file with one thing wrong, edited with h5py (a count, an
edge, a shape, a type, a missing object) or at the byte level (truncated, bytes flipped inside
a dataset's data, not HDF5 at all).
"""
import os
import shutil

import h5py
import numpy as np


def replace(group, name, values):
    del group[name]
    group[name] = values


def retype(obj, name, value):
    """Replaces an attribute with one of another type (attrs.modify would keep the type)."""
    del obj.attrs[name]
    obj.attrs[name] = value


def edited(good, work, name, edit):
    path = os.path.join(work, f"damaged_{name}.h5")
    shutil.copy(good, path)
    with h5py.File(path, "r+") as f:
        edit(f)
    return path


def truncated(good, work, name, size):
    path = os.path.join(work, f"damaged_{name}.h5")
    data = open(good, "rb").read()
    open(path, "wb").write(data[: size(len(data))])
    return path


def data_offset(good, dataset):
    """The byte offset of a dataset's first stored byte (contiguous, or its first chunk)."""
    with h5py.File(good, "r") as f:
        d = f[dataset]
        if d.chunks is None:
            return d.id.get_offset(), d.id.get_storage_size()
        info = d.id.get_chunk_info(0)
        return info.byte_offset, info.size


def flipped(good, work, name, dataset, where):
    """Every bit of one byte inside `dataset`'s stored data inverted (`where` in [0, 1))."""
    offset, size = data_offset(good, dataset)
    path = os.path.join(work, f"damaged_{name}.h5")
    data = bytearray(open(good, "rb").read())
    at = offset + min(int(where * size), size - 1)
    data[at] ^= 0xFF
    open(path, "wb").write(bytes(data))
    return path


def other(work, name, content):
    path = os.path.join(work, f"damaged_{name}.h5")
    open(path, "wb").write(content)
    return path


def results_variants(good, good_2d, work):
    """Damaged results files: the audit, the root, and each scenario's counted data."""
    s0 = "scenarios/0000"
    cells = lambda f: f["audit/cells"]  # noqa: E731

    def counts(f, side="D", name="coordinate_counts"):
        return f[f"{s0}/{side}/{name}"]

    def set_count(f, value, side="D", name="coordinate_counts", dtype=None):
        c = counts(f, side, name)[()]
        c = c.astype(dtype) if dtype else c
        c.flat[len(c.flat) // 2] = value
        replace(f[f"{s0}/{side}"], name, c)

    def add_one(f, name="coordinate_counts"):
        c = counts(f, "D", name)[()]
        c.flat[0] += 1
        replace(f[f"{s0}/D"], name, c)

    def edges(f, name, change):
        e = f[f"{s0}/binning/{name}"][()].astype(float)
        change(e)
        replace(f[f"{s0}/binning"], name, e)

    def nan_at(e):
        e.flat[len(e.flat) // 3] = np.nan

    def column(f, name, value):
        v = f[f"{s0}/estimates/{name}"][()]
        informative = f[f"{s0}/estimates/informative"][()]
        v = v.astype(float) if isinstance(value, float) else v
        v[np.argmax(informative == 1)] = value
        replace(f[f"{s0}/estimates"], name, v)

    v = {
        # the root and /audit
        "scenario_count_text": lambda f: retype(f, "scenario_count", "1"),
        "scenario_count_negative": lambda f: f.attrs.modify("scenario_count", np.int64(-1)),
        "scenario_count_more": lambda f: f.attrs.modify("scenario_count", np.int64(7)),
        "trajectories_negative": lambda f: f.attrs.modify("trajectories", np.int64(-5)),
        "trajectories_other": lambda f: f.attrs.modify("trajectories", np.int64(3)),
        "format_major_3": lambda f: f.attrs.modify("format_version", np.array([3, 0])),
        "format_text": lambda f: retype(f, "format_version", "2.3"),
        "filetype_other": lambda f: retype(f, "filetype", "rdpaudit-state"),
        "level_text": lambda f: retype(f["audit"], "level", "0.05"),
        "ragged_cells": lambda f: replace(cells(f), "p_holm", cells(f)["p_holm"][:-1]),
        "scenario_negative": lambda f: replace(
            cells(f), "scenario", np.full(len(cells(f)["scenario"]), -5, dtype=np.int64)),
        "p_values_nan": lambda f: replace(cells(f), "p_value",
                                          np.full(len(cells(f)["p_value"]), np.nan)),
        "old_verdict_word": lambda f: replace(
            cells(f), "verdict", np.array([b"holds"] * len(cells(f)["verdict"]))),
        "verdict_missing": lambda f: cells(f).__delitem__("verdict"),
        "note_numbers": lambda f: replace(cells(f), "note", np.zeros(len(cells(f)["note"]))),
        "bound_row_outside": lambda f: replace(
            cells(f), "bound", np.full(len(cells(f)["bound"]), 7, dtype=np.int64)),
        "expect_unknown": lambda f: replace(
            f["audit/bounds"], "expect", np.array([b"proven"] * len(f["audit/bounds/expect"]))),
        # the scenario groups
        "scenario_group_missing": lambda f: f["scenarios"].__delitem__("0000"),
        "scenario_group_renamed": lambda f: f["scenarios"].move("0000", "0009"),
        "scenario_index_wrong": lambda f: f[s0].attrs.modify("index", np.int64(3)),
        "dim_zero": lambda f: f[s0].attrs.modify("dim", np.int64(0)),
        "dim_huge": lambda f: f[s0].attrs.modify("dim", np.int64(10**12)),
        "dim_text": lambda f: retype(f[s0], "dim", "1"),
        "d_trajectories_negative": lambda f: f[f"{s0}/D"].attrs.modify("trajectories",
                                                                       np.int64(-1)),
        "d_trajectories_other": lambda f: f[f"{s0}/Dprime"].attrs.modify("trajectories",
                                                                         np.int64(17)),
        # counts: negative, fractional, not adding up, of another shape or type, missing
        "count_negative": lambda f: set_count(f, -3),
        "count_fractional": lambda f: set_count(f, 2.5, dtype=float),
        "count_nan": lambda f: set_count(f, np.nan, dtype=float),
        "count_sum_wrong": lambda f: add_one(f),
        "counts_shape": lambda f: replace(f[f"{s0}/D"], "coordinate_counts",
                                          counts(f)[()][:, :-1]),
        "counts_text": lambda f: replace(f[f"{s0}/D"], "coordinate_counts",
                                         np.array([b"1"] * counts(f).size)),
        "counts_missing": lambda f: f[f"{s0}/Dprime"].__delitem__("coordinate_counts"),
        "score_count_negative": lambda f: set_count(f, -1, "Dprime", "score_counts_0"),
        "score_counts_short": lambda f: replace(f[f"{s0}/D"], "score_counts_0",
                                                counts(f, "D", "score_counts_0")[()][:-1]),
        "score_sum_wrong": lambda f: add_one(f, "score_counts_0"),
        # edges: reversed, NaN, infinite, of another shape
        "edges_reversed": lambda f: edges(f, "coordinate_edges", lambda e: e.__setitem__(
            (0, slice(None)), e[0, ::-1].copy())),
        "edges_nan": lambda f: edges(f, "coordinate_edges", nan_at),
        "edges_inf": lambda f: edges(f, "coordinate_edges",
                                     lambda e: e.__setitem__((0, -1), np.inf)),
        "score_edges_nan": lambda f: edges(f, "score_edges_0", nan_at),
        "score_edges_reversed": lambda f: edges(f, "score_edges_0",
                                                lambda e: e.__setitem__(slice(None),
                                                                        e[::-1].copy())),
        "score_names_more": lambda f: retype(f[f"{s0}/binning"], "score_names",
                                             np.array(["a", "b", "c"],
                                                      dtype=h5py.string_dtype())),
        # moments and estimates
        "mean_nan": lambda f: replace(f[f"{s0}/D"], "mean", np.full(f[f"{s0}/D/mean"].shape,
                                                                     np.nan)),
        "covariance_shape": lambda f: replace(f[f"{s0}/D"], "covariance", np.zeros((2, 3))),
        "estimates_missing": lambda f: f[s0].__delitem__("estimates"),
        "estimate_value_missing": lambda f: f[f"{s0}/estimates"].__delitem__("value"),
        "estimate_value_nan": lambda f: column(f, "value", np.nan),
        "estimate_upper_nan": lambda f: column(f, "upper", np.nan),
        "estimate_direction": lambda f: column(f, "direction", 5),
        "estimate_alpha": lambda f: column(f, "alpha", 0.5),
        "estimate_informative": lambda f: column(f, "informative", 2),
        "estimate_ragged": lambda f: replace(f[f"{s0}/estimates"], "lower",
                                             f[f"{s0}/estimates/lower"][:-1]),
        "binning_missing": lambda f: f[s0].__delitem__("binning"),
    }
    out = {name: edited(good, work, name, edit) for name, edit in v.items()}
    # d = 2: the projection and the joint cells
    out["joint_count_negative"] = edited(good_2d, work, "joint_count_negative",
                                         lambda f: set_count(f, -1, "D", "joint_counts"))
    out["joint_shape"] = edited(good_2d, work, "joint_shape",
                                lambda f: replace(f[f"{s0}/D"], "joint_counts",
                                                  counts(f, "D", "joint_counts")[()][1:]))
    out["projection_edges_nan"] = edited(good_2d, work, "projection_edges_nan",
                                         lambda f: edges(f, "projection_edges", nan_at))
    out["projection_sum_wrong"] = edited(good_2d, work, "projection_sum_wrong",
                                         lambda f: add_one(f, "projection_counts"))
    # bytes
    out["truncated_half"] = truncated(good, work, "truncated_half", lambda n: n // 2)
    out["truncated_tail"] = truncated(good, work, "truncated_tail", lambda n: n - 100)
    out["empty"] = other(work, "empty", b"")
    out["not_hdf5"] = other(work, "not_hdf5", b"[experiment]\nseed = 1\n")
    for i, where in enumerate([0.0, 0.5]):
        name = f"bytes_counts_{i}"
        out[name] = flipped(good, work, name, f"{s0}/D/coordinate_counts", where)
    return out


def profile_variants(good, work):
    """Damaged copies of a results file with [profile] and claims (its first scenario's
    per-scenario tables: the profile brackets, the claims, the bound table)."""
    s0 = "scenarios/0000"
    prof = f"{s0}/estimates/profile"

    def set_first(f, name, value):
        v = f[name][()].astype(float)
        v.flat[0] = value
        replace(f[name].parent, name.rsplit("/", 1)[1], v)

    def reversed_grid(f, name):
        v = f[name][()]
        replace(f[name].parent, name.rsplit("/", 1)[1], v[::-1].copy())

    def lower_above_upper(f):
        lo = f[f"{prof}/delta_lower"][()]
        up = f[f"{prof}/delta_upper"][()]
        i = np.argmax(np.isfinite(up) & (up > 0))
        lo.flat[i] = 2 * up.flat[i] if up.flat[i] < 0.5 else up.flat[i] + 1e-3
        replace(f[prof], "delta_lower", lo)

    v = {
        "profile_delta_7": lambda f: set_first(f, f"{prof}/delta_value", 7.0),
        "profile_delta_nan": lambda f: set_first(f, f"{prof}/delta_lower", np.nan),
        "profile_eps_grid_reversed": lambda f: reversed_grid(f, f"{prof}/epsilons"),
        "profile_delta_grid_outside": lambda f: set_first(f, f"{prof}/deltas", 1.5),
        "profile_lower_above_upper": lower_above_upper,
        "profile_eps_negative": lambda f: set_first(f, f"{prof}/epsilon_lower", -1.0),
        "profile_direction": lambda f: replace(
            f[prof], "direction", np.full(f[f"{prof}/direction"].shape, 4, dtype=np.int32)),
        "profile_ragged": lambda f: replace(f[prof], "delta_upper",
                                            f[f"{prof}/delta_upper"][()][:-1]),
        "claim_eps_negative": lambda f: set_first(f, f"{s0}/claims/values", -2.0),
        "claim_delta_7": lambda f: set_first(f, f"{s0}/claims/deltas", 7.0),
        "claim_mu_zero": lambda f: set_first(f, f"{s0}/claims/mu", 0.0),
        "claim_values_shape": lambda f: replace(f[f"{s0}/claims"], "values",
                                                f[f"{s0}/claims/values"][()][:-1]),
        "bound_alphas_reversed": lambda f: reversed_grid(f, f"{s0}/bounds/alphas"),
        "bound_alpha_nan": lambda f: set_first(f, f"{s0}/bounds/alphas", np.nan),
        "bound_values_shape": lambda f: replace(f[f"{s0}/bounds"], "values",
                                                f[f"{s0}/bounds/values"][()][:, :-1]),
    }
    return {name: edited(good, work, name, edit) for name, edit in v.items()}


def state_variants(good, work, kind):
    """Damaged checkpoints or part files (`kind` names the copies): every change of the
    counts or of what identifies them, and byte damage."""
    s0 = "0000"

    def bump(f, dataset, at=0):
        d = f[dataset][()]
        d[at] += 1
        replace(f[os.path.dirname(dataset) or "/"], os.path.basename(dataset), d)

    v = {
        "count_plus_one": lambda f: bump(f, f"{s0}/D_ints", 3),
        "count_minus_one": lambda f: bump(f, f"{s0}/Dprime_ints", -1),
        "trajectory_count": lambda f: bump(f, f"{s0}/D_ints", 0),
        "next_d": lambda f: f[s0].attrs.modify("next_d", f[s0].attrs["next_d"] + 1),
        "seed_text": lambda f: retype(f, "seed", "abc"),
        "seed_other": lambda f: retype(f, "seed", "12345"),
        "seed_number": lambda f: retype(f, "seed", np.int64(1)),
        "trajectories": lambda f: f.attrs.modify("trajectories", f.attrs["trajectories"] + 1),
        "look": lambda f: f.attrs.modify("look", np.int64(0)),
        "part_outside": lambda f: f.attrs.modify("part", np.int64(9)),
        "scenarios_more": lambda f: f.attrs.modify("scenarios", f.attrs["scenarios"] + 1),
        "group_missing": lambda f: f.__delitem__(s0),
        "ints_missing": lambda f: f[s0].__delitem__("D_ints"),
        "ints_float": lambda f: replace(f[s0], "D_ints", f[f"{s0}/D_ints"][()] + 0.5),
        "cells_other": lambda f: retype(f[s0], "cells", "0" * 64),
        "checksum_missing": lambda f: f.attrs.__delitem__("counts_sha256"),
        "checksum_other": lambda f: retype(f, "counts_sha256", "0" * 64),
        "state_format_1": lambda f: f.attrs.modify("state_format", np.int64(1)),
        "filetype": lambda f: retype(f, "filetype", "rdpaudit-results"),
        "kind": lambda f: retype(f, "kind", "part" if f.attrs["kind"] == "checkpoint"
                                 else "checkpoint"),
    }
    out = {f"{kind}_{n}": edited(good, work, f"{kind}_{n}", e) for n, e in v.items()}
    out[f"{kind}_truncated_half"] = truncated(good, work, f"{kind}_truncated_half",
                                              lambda n: n // 2)
    out[f"{kind}_truncated_tail"] = truncated(good, work, f"{kind}_truncated_tail",
                                              lambda n: n - 64)
    out[f"{kind}_empty"] = other(work, f"{kind}_empty", b"")
    out[f"{kind}_not_hdf5"] = other(work, f"{kind}_not_hdf5", b"not a checkpoint\n")
    for i, where in enumerate([0.0, 0.3, 0.7, 0.99]):
        name = f"{kind}_bytes_ints_{i}"
        out[name] = flipped(good, work, name, f"{s0}/D_ints", where)
    return out
