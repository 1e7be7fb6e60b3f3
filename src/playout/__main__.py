"""``python -m playout``: the ``playout`` command."""

import sys

from playout.cli import main

sys.exit(main())
