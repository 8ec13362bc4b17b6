"""Sphinx configuration for the API reference (``make docs``): built from the docstrings."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ["LOCKUP_PURE_PYTHON"] = "1"  # document the playout's source, not its build

project = "Lockup"
author = "The Lockup authors"
extensions = ["sphinx.ext.autodoc"]
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_static_path: list[str] = []

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
default_role = "py:obj"

# Every cross-reference must resolve (make docs runs sphinx -n -W): these are the names
# that are not ours to document.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(np|numpy|npt|gymnasium|spaces|pettingzoo|pyspiel)\..*"),
    (r"py:class", r"(Card|CardMask|Reward|Episode|PictureException|LockDiscards)"),
    (r"py:.*", r"(abc|collections\.abc|enum|typing|random|types)\..*"),
    (r"py:class", r"(Any|optional)"),
]
