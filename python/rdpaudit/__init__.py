"""Python side of rdpaudit: read results files (h5py) and draw plots (matplotlib)."""

from .results import (Audit, AuditRow, Bounds, Claims, FormatError, Profile, Results, Scenario,
                      load)

__all__ = ["Audit", "AuditRow", "Bounds", "Claims", "FormatError", "Profile", "Results",
           "Scenario", "load"]
