"""Lets Windows find the DLLs that torch and the nvidia-* wheels bundle.

Imported at every interpreter start by aitk_env_dll_paths.pth (both written by aitk-env). Since
Python 3.8 the DLLs an extension module imports are not searched on PATH, so without this
"import torch" fails with WinError 126 unless the program runs through a shim; each folder is
added with os.add_dll_directory. Elsewhere it does nothing. It never raises: an exception here
would be printed at every interpreter start.
"""

import os
import sys

# Folders aitk-env named when it wrote the prefix, beside the ones found below.
EXTRA_DIRECTORIES = @PY_EXTRA_DIRECTORIES@

# The handles os.add_dll_directory returned (closing one would remove its folder again).
added = []


def candidate_directories(site_packages, prefix, extra):
    """torch/lib, each nvidia/*/bin (sorted), <prefix>/Library/bin, then `extra`."""
    found = [os.path.join(site_packages, "torch", "lib")]
    nvidia = os.path.join(site_packages, "nvidia")
    try:
        names = sorted(os.listdir(nvidia))
    except OSError:
        names = []
    found.extend(os.path.join(nvidia, name, "bin") for name in names)
    found.append(os.path.join(prefix, "Library", "bin"))
    found.extend(extra)
    return found


def add_dll_directories(directories, add_dll_directory):
    """Adds each existing folder once; one that fails is skipped."""
    seen = set()
    for directory in directories:
        try:
            key = os.path.normcase(os.path.abspath(directory))
            if key in seen or not os.path.isdir(directory):
                continue
            seen.add(key)
            added.append(add_dll_directory(directory))
        except Exception:
            pass


if os.name == "nt":
    try:
        add_dll_directories(
            candidate_directories(
                os.path.dirname(os.path.abspath(__file__)), sys.prefix, EXTRA_DIRECTORIES
            ),
            os.add_dll_directory,
        )
    except Exception:
        pass
