"""``python -m dungeon_of_doom.conformance HOST:PORT``: the same as ``dod-conformance``."""

import sys

from .cli import main

sys.exit(main())
