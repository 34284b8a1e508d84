"""Python side of rdpaudit: read results files (h5py) and draw plots (matplotlib)."""

from .results import FormatError, Results, Scenario, load

__all__ = ["FormatError", "Results", "Scenario", "load"]
