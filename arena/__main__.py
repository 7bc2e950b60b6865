"""``python -m dungeon_of_doom.arena``: the same as ``dod-arena``."""

import sys

from .cli import main

sys.exit(main())
