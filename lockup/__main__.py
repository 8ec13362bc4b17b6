"""``python -m lockup`` runs the ``lockup`` command."""

import sys

from .cli import main

sys.exit(main())
