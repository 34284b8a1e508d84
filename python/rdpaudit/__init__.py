"""Python side of rdpaudit: read results files (h5py) and draw plots (matplotlib)."""

from .results import Audit, Bounds, FormatError, Results, Scenario, load

__all__ = ["Audit", "Bounds", "FormatError", "Results", "Scenario", "load"]
