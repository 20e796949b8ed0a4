"""Symbiosis: split a memory budget between a storage engine's application
cache and the kernel page cache.

The numbers come from the native library (``symbiosis._native``); this
package adds the ``symbiosis`` command line, JSON reports and plots.
"""

from symbiosis._native import InputError
from symbiosis.study import SimConfig, SimReport, run_sim

__all__ = ["InputError", "SimConfig", "SimReport", "run_sim"]
__version__ = "0.1.0"
