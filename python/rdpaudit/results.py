"""Reader for rdpaudit HDF5 results files (layout: docs/results-format.md).

    from rdpaudit import load     # installed (python/pyproject.toml), or PYTHONPATH=python
    r = load("results/quickstart.h5")
    s = r.scenarios[0]
    counts, edges = s.histogram("Dprime")        # 1-D histogram of coordinate 0
    s.attrs["epochs"], s.mean("D"), s.samples("D")
    b = s.bounds()                               # format >= 1.2, else None
    b.names, b.alphas, b.values                  # values[bound, order]; NaN: not applicable
    s.attrs["adjacency"], s.bound_adjacency()     # the pair's relation, each bound's (None: old file)
    p = s.profile()                              # [profile] runs, else None
    p.epsilons, p.deltas, p.rows[0]["delta_lower"], p.rows[0]["epsilon_lower"]
    c = s.claims()                               # (eps, delta) claims, else None
    g = s.gdp()                                  # Gaussian-DP mu rows (2.5), else None
    for acc in r.accountants():                  # [[bounds.custom]] commands (format >= 2.4)
        acc.bound, acc.command, acc.files_sha256, json.loads(acc.output)
    a = r.audit()                                # format >= 1.2, else None
    a.attrs["level"], a.bounds["outcome"], a.cells["verdict"]
    for row in a.table():                        # one named row per cell (AuditRow)
        row.sweep_point, row.bound, row.alpha, row.verdict, row.margin, row.close
    violated = np.char.startswith(a.cells["verdict"], "violated")  # numpy arrays of str

Use Debian's interpreter, /usr/bin/python3, which has h5py and numpy (scripts/install-deps.sh).
"""

from __future__ import annotations

from typing import NamedTuple, Optional

import h5py
import numpy as np

FILETYPE = "rdpaudit-results"
SUPPORTED_MAJOR = 2


class FormatError(ValueError):
    """The file is not an rdpaudit results file of a major version this reader knows."""


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _attrs(obj) -> dict:
    out = {}
    for key, value in obj.attrs.items():
        if isinstance(value, np.ndarray) and value.dtype.kind in "OS":
            value = [_text(v) for v in value]
        else:
            value = _text(value)
        out[key] = value
    return out


def _column(dataset: h5py.Dataset) -> np.ndarray:
    """A dataset's values; variable-length strings decoded to a numpy array of str (so that
    `column == "violated"` compares element-wise), numbers as they are stored."""
    if h5py.check_string_dtype(dataset.dtype) is not None:
        return np.array(dataset.asstr()[()], dtype=str).reshape(dataset.shape)
    return dataset[()]


def _table(group: h5py.Group) -> dict:
    """The parallel datasets of a table group (one row per index) as {name: column}."""
    return {name: _column(ds) for name, ds in group.items() if isinstance(ds, h5py.Dataset)}


class Accountant(NamedTuple):
    """One `/accountants/K` group: the command a custom bound's values came from, with what it
    read and wrote, so that the values can be reproduced (docs/results-format.md)."""
    bound: str
    command: list
    directory: str
    files: list
    files_sha256: list
    input: str
    output: str
    how: str = "ran"  # "ran" by this run, or "recorded" from its parts or checkpoint (2.7)


class Bounds(NamedTuple):
    """A scenario's `bounds/` group (format >= 1.2): values[i, j] bounds R_alpha of bound
    names[i] at order alphas[j] (inf allowed, NaN where reasons[i] says it does not apply)."""
    alphas: np.ndarray
    names: list
    values: np.ndarray
    reasons: list


class Profile(NamedTuple):
    """A scenario's `estimates/profile` group ([profile] runs): one row per (method,
    direction) with method, direction (0: P against P', 1: P' against P), interval and the
    arrays delta_value / delta_lower / delta_upper (over epsilons) and epsilon_value /
    epsilon_lower / epsilon_upper (over deltas). Rows of "profile-cp" methods are certified
    lower bounds at the run's confidence (upper = inf), value their plug-in; "exact-profile"
    rows are the exact profile (lower / upper its numerical bracket)."""
    epsilons: np.ndarray
    deltas: np.ndarray
    rows: list


class Claims(NamedTuple):
    """A scenario's `claims/` group: values[i, j] is the eps claimed by names[i] (kinds[i]:
    "conversion" of a Renyi bound, "profile theorem": a built-in bound on eps(delta) itself
    (since 2.6), "profile heuristic" (since 2.7), "claim", or "gdp claim": eps(delta) of its
    mu-GDP) at deltas[j]; NaN where it does not apply. mu[i]: a GDP claim's mu, NaN for the
    others (all NaN in files before 2.5)."""
    deltas: np.ndarray
    names: list
    kinds: list
    values: np.ndarray
    reasons: list
    mu: Optional[np.ndarray] = None


class Gdp(NamedTuple):
    """A scenario's `estimates/gdp` group (since 2.5): one dict per (method, direction) with
    method, direction, interval, value, lower, upper, epsilon_at, epsilon_max. Profile
    families ("profile-cp", ...): value the plug-in mu, lower the certified lower bound;
    "exact-profile": the exact mu (closed form for a Gaussian pair, else the supremum over the
    eps grid, attained at epsilon_at; lower / upper its bracket, upper inf on a grid)."""
    epsilon_grid_max: float
    rows: list


class AuditRow(NamedTuple):
    """One audited cell, as `Audit.table()` returns it (columns of docs/results-format.md)."""
    scenario: int        # index of the scenario (r.scenarios[scenario])
    sweep_point: str     # e.g. "epochs=5", as `rdpaudit report` prints it; "-" without a sweep
    bound: str           # the bound's (or claim's) name, not its row in `bounds`
    alpha: float         # the Renyi order; NaN for an (eps, delta) claim or a mu cell
    delta: float         # the claim's delta; NaN for a Renyi cell or a mu cell
    direction: int       # 0: P against P', 1: P' against P
    verdict: str
    bound_value: float
    lower: float         # the certified lower bound the test used
    estimate: float      # the point estimate
    margin: float        # bound_value / lower on tested cells (inf when lower = 0), else NaN
    close: bool          # not rejected with margin < close_margin, or estimate above the bound
    exact: float = float("nan")  # the exact value (quadrature, else the exact chain's midpoint)
    exact_method: str = ""       # "exact-quadrature", "exact-chain", "exact-profile" (2.4), or ""
    within_exact_bracket: bool = False  # the bound inside the exact bracket: the samples decided
    quantity: str = ""   # "renyi", "eps_delta" or "mu" (a GDP claim's mu cell; since 2.5)


class Audit:
    """The run's `/audit` group.

    attrs   dict: level, correction, hypotheses, violated_cells, close_margin, unexpected
    bounds  dict of columns, one row per audited bound: name, kind, source, expect, outcome,
            as_expected, cells_violated_exact, cells_violated, cells_not_rejected,
            cells_valid_exact, cells_inconclusive, cells_not_applicable, close_cells,
            min_margin, evidence
    cells   dict of columns, one row per (scenario, bound, alpha, direction): scenario, bound
            (row of `bounds`), alpha, delta (an (eps, delta) claim's delta, alpha NaN; NaN
            for Renyi cells; absent in files without claims), direction, bound_value,
            estimate, estimate_method,
            exact, exact_lower, exact_upper, exact_method and within_exact_bracket (since
            2.4), quantity ("renyi", "eps_delta" or "mu"; since 2.5), lower, lower_method, p_method, p_value, p_holm, verdict,
            tightness_estimate, tightness_lower, close, note
    Verdicts (docs/methods.md): "violated (exact)", "violated", "not rejected",
    "valid (exact)", "inconclusive", "not applicable".
    table() gives the cells as rows with named fields (AuditRow), the bound by name.
    """

    def __init__(self, group: h5py.Group, sweep_points: Optional[list] = None):
        self.attrs = _attrs(group)
        self.bounds = _table(group["bounds"]) if "bounds" in group else {}
        self.cells = _table(group["cells"]) if "cells" in group else {}
        self._sweep_points = sweep_points or []

    def table(self) -> list:
        """One AuditRow per cell, in the file's order."""
        c = self.cells
        names = self.bound_names
        nan = np.full(len(self), np.nan)
        delta = c.get("delta", nan)  # absent in files without claims
        exact = c.get("exact", nan)
        exact_method = c.get("exact_method", [""] * len(self))  # since 2.4
        within = c.get("within_exact_bracket", np.zeros(len(self), dtype=int))  # since 2.4
        # since 2.5; before, a cell with a delta is an (eps, delta) claim, else Renyi
        quantity = c.get("quantity", ["eps_delta" if d == d else "renyi" for d in delta])

        def sweep_point(i):
            return self._sweep_points[i] if 0 <= i < len(self._sweep_points) else "-"

        return [
            AuditRow(scenario=int(c["scenario"][i]), sweep_point=sweep_point(int(c["scenario"][i])),
                     bound=names[int(c["bound"][i])], alpha=float(c["alpha"][i]),
                     delta=float(delta[i]), direction=int(c["direction"][i]),
                     verdict=str(c["verdict"][i]), bound_value=float(c["bound_value"][i]),
                     lower=float(c["lower"][i]), estimate=float(c["estimate"][i]),
                     margin=float(c["tightness_lower"][i]), close=bool(c["close"][i]),
                     exact=float(exact[i]), exact_method=_text(exact_method[i]),
                     within_exact_bracket=bool(within[i]), quantity=_text(quantity[i]))
            for i in range(len(self))
        ]

    @property
    def bound_names(self) -> list:
        return [str(n) for n in self.bounds.get("name", [])]

    def __len__(self) -> int:
        """Number of cells."""
        return len(self.cells.get("scenario", []))


class Scenario:
    """One point of the experiment's sweep: parameters (attrs), binning and the two tallies."""

    def __init__(self, group: h5py.Group):
        self.group = group
        self.attrs = _attrs(group)
        self.index = int(self.attrs["index"])
        # Numeric sweep values as floats; training.scheme (a string sweep) as its text.
        self.sweep = {
            k: (t if np.isnan(v) else float(v))
            for k, v, t in zip(self.attrs["sweep_keys"], self.attrs["sweep_values"],
                               self.attrs.get("sweep_text", [""] * len(self.attrs["sweep_keys"])))
        }

    @property
    def sweep_point(self) -> str:
        """The sweep point as `rdpaudit report` prints it, e.g. "epochs=5"; "-" without one."""
        keys = self.attrs.get("sweep_keys", [])
        texts = self.attrs.get("sweep_text", [])
        return " ".join(f"{k.split('.', 1)[-1]}={t}" for k, t in zip(keys, texts)) or "-"

    def _side(self, dataset: str) -> h5py.Group:
        if dataset not in ("D", "Dprime"):
            raise KeyError(f"dataset must be 'D' or 'Dprime', not {dataset!r}")
        return self.group[dataset]

    def histogram(self, dataset: str, coordinate: int = 0, with_flow: bool = False):
        """(counts, edges) of one coordinate. counts excludes under/overflow unless with_flow."""
        counts = self._side(dataset)["coordinate_counts"][coordinate]
        edges = self.group["binning/coordinate_edges"][coordinate]
        return (counts if with_flow else counts[1:-1]), edges

    def projection_histogram(self, dataset: str, with_flow: bool = False):
        counts = self._side(dataset)["projection_counts"][()]
        edges = self.group["binning/projection_edges"][()]
        return (counts if with_flow else counts[1:-1]), edges

    def joint_histogram(self, dataset: str, with_flow: bool = False):
        counts = self._side(dataset)["joint_counts"][()]
        ex = self.group["binning/joint_edges_x"][()]
        ey = self.group["binning/joint_edges_y"][()]
        return (counts if with_flow else counts[1:-1, 1:-1]), ex, ey

    def mean(self, dataset: str) -> np.ndarray:
        return self._side(dataset)["mean"][()]

    def covariance(self, dataset: str) -> np.ndarray:
        return self._side(dataset)["covariance"][()]

    def samples(self, dataset: str):
        side = self._side(dataset)
        return side["samples"][()] if "samples" in side else None

    def estimates(self, method=None, direction=None):
        """Rows of the estimates table (format >= 1.1) as a list of dicts with keys method,
        direction (0: R_a(P||P'), 1: R_a(P'||P)), alpha, value, lower, upper, informative,
        interval, reason; optionally filtered by method and direction."""
        if "estimates" not in self.group or "method" not in self.group["estimates"]:
            return []
        g = self.group["estimates"]
        cols = {k: g[k][()] for k in ("method", "direction", "alpha", "value", "lower", "upper",
                                      "informative", "interval", "reason")}
        rows = []
        for i in range(len(cols["alpha"])):
            row = {k: (_text(v[i]) if k in ("method", "interval", "reason") else v[i].item())
                   for k, v in cols.items()}
            row["informative"] = bool(row["informative"])
            if (method is None or row["method"] == method) and \
                    (direction is None or row["direction"] == direction):
                rows.append(row)
        return rows

    def bounds(self) -> Optional[Bounds]:
        """The analytic bounds at the audited orders (format >= 1.2), None in older files."""
        if "bounds" not in self.group:
            return None
        g = self.group["bounds"]
        return Bounds(alphas=g["alphas"][()], names=_column(g["names"]).tolist(),
                      values=g["values"][()], reasons=_column(g["reasons"]).tolist())

    def profile(self) -> Optional[Profile]:
        """The privacy profiles of a [profile] run, None otherwise."""
        if "estimates" not in self.group or "profile" not in self.group["estimates"]:
            return None
        g = self.group["estimates/profile"]
        methods = _column(g["method"]).tolist()
        keys = ("delta_value", "delta_lower", "delta_upper", "epsilon_value", "epsilon_lower",
                "epsilon_upper")
        data = {k: g[k][()] for k in keys}
        rows = []
        for i, m in enumerate(methods):
            row = {"method": str(m), "direction": int(g["direction"][i]),
                   "interval": str(_column(g["interval"])[i])}
            row.update({k: data[k][i] for k in keys})
            rows.append(row)
        return Profile(epsilons=g["epsilons"][()], deltas=g["deltas"][()], rows=rows)

    def claims(self) -> Optional[Claims]:
        """The (eps, delta) claims audited in this scenario, None without [profile]."""
        if "claims" not in self.group:
            return None
        g = self.group["claims"]
        names = _column(g["names"]).tolist()
        mu = g["mu"][()] if "mu" in g else np.full(len(names), np.nan)  # since 2.5
        return Claims(deltas=g["deltas"][()], names=names,
                      kinds=_column(g["kinds"]).tolist(), values=g["values"][()],
                      reasons=_column(g["reasons"]).tolist(), mu=mu)

    def gdp(self) -> Optional[Gdp]:
        """The Gaussian-DP mu of a [profile] run (format >= 2.5), None otherwise."""
        if "estimates" not in self.group or "gdp" not in self.group["estimates"]:
            return None
        g = self.group["estimates/gdp"]
        methods = _column(g["method"]).tolist()
        intervals = _column(g["interval"]).tolist()
        keys = ("value", "lower", "upper", "epsilon_at", "epsilon_max")
        data = {k: g[k][()] for k in keys}
        rows = []
        for i, m in enumerate(methods):
            row = {"method": str(m), "direction": int(g["direction"][i]),
                   "interval": str(intervals[i])}
            row.update({k: float(data[k][i]) for k in keys})
            rows.append(row)
        return Gdp(epsilon_grid_max=float(g.attrs["epsilon_grid_max"]), rows=rows)

    def bound_adjacency(self) -> Optional[dict]:
        """{bound name: the neighbouring relation its source assumes} ("replace_one" or
        "add_remove"), from bounds/adjacency; None in files written before the column."""
        if "bounds" not in self.group or "adjacency" not in self.group["bounds"]:
            return None
        g = self.group["bounds"]
        return dict(zip(_column(g["names"]).tolist(), _column(g["adjacency"]).tolist()))

    def trajectories(self, dataset: str) -> int:
        return int(self._side(dataset).attrs["trajectories"])


class Results:
    def __init__(self, path: str):
        self.path = path
        self.file = h5py.File(path, "r")
        self.attrs = _attrs(self.file)
        filetype = self.attrs.get("filetype")
        if filetype != FILETYPE:
            raise FormatError(f"{path}: filetype = {filetype!r} (expected {FILETYPE!r})")
        version = self.attrs.get("format_version")
        if version is None or len(version) != 2:
            raise FormatError(f"{path}: format_version = {version!r} (expected [major, minor])")
        self.format_version = (int(version[0]), int(version[1]))
        if self.format_version[0] != SUPPORTED_MAJOR:
            raise FormatError(
                f"{path}: format_version = {self.format_version[0]}.{self.format_version[1]} "
                f"(this reader supports major version {SUPPORTED_MAJOR})")
        names = sorted(self.file["scenarios"].keys())
        self.scenarios = [Scenario(self.file["scenarios"][n]) for n in names]
        self._audit = None  # read on the first call of audit()

    def audit(self) -> Optional[Audit]:
        """The verdicts of the run (format >= 1.2), None when the file has no /audit group."""
        if "audit" not in self.file:
            return None
        if self._audit is None:
            self._audit = Audit(self.file["audit"], [s.sweep_point for s in self.scenarios])
        return self._audit

    def accountants(self) -> list:
        """The accountant commands of the run's custom bounds (`/accountants/0`, `1`, ... in the
        order of the file's custom bounds); empty when none ran or the file predates 2.4."""
        if "accountants" not in self.file:
            return []
        group = self.file["accountants"]
        out = []
        for name in sorted(group.keys(), key=int):
            a = _attrs(group[name])
            out.append(Accountant(a["bound"], list(a["command"]), a["directory"],
                                  list(a.get("files", [])), list(a.get("files_sha256", [])),
                                  a["input"], a["output"], a.get("how", "ran")))
        return out

    def walk(self):
        """Every attribute and dataset of the file, for checks that look at all of them (e.g.
        which fields hold NaN): yields (name, value, group) in h5py's visiting order, the file's
        attributes first. An attribute is named "PATH@KEY" ("@KEY" for the file's own) and has
        group None; a dataset is named by its PATH (no leading slash), value as stored, group
        the PATH of the group holding it (see column())."""
        for key, value in self.file.attrs.items():
            yield f"@{key}", value, None
        objects = []
        self.file.visititems(lambda name, obj: objects.append((name, obj)))
        for name, obj in objects:
            for key, value in obj.attrs.items():
                yield f"{name}@{key}", value, None
            if isinstance(obj, h5py.Dataset):
                yield name, obj[()], obj.parent.name.lstrip("/")

    def column(self, path: str) -> Optional[np.ndarray]:
        """The dataset at PATH (strings decoded), None when the file has none there."""
        if path not in self.file or not isinstance(self.file[path], h5py.Dataset):
            return None
        return _column(self.file[path])

    @property
    def config_text(self) -> str:
        return self.attrs["config_text"]

    def close(self):
        self.file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def load(path: str) -> Results:
    """Opens a results file, refusing other file types and unknown major format versions."""
    return Results(path)
