"""``python -m clients.terminal``: the same as ``dod-play``."""

import sys

from .cli import main

sys.exit(main())
