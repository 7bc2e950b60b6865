"""``python -m dungeon_of_doom.clients.terminal``: the same as ``dod-play``."""

import sys

from .cli import main

sys.exit(main())
