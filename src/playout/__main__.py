"""``python -m playout``: the command line."""

from playout.cli import main

raise SystemExit(main())
