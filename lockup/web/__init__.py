"""The browser front end of Lockup: static files only (HTML, ES modules, CSS, translations).

The server serves :data:`STATIC_DIR` at ``/static/``, ``index.html`` at ``/``,
``rules.html`` at ``/rules`` and ``help.html`` at ``/help`` (see docs/web-protocol.md).
"""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parent / "static"
"""The directory of the front end's files."""
