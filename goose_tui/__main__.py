"""``python -m goose_tui``: the ``goose-tui`` command."""

import sys

from goose_tui.cli import main

sys.exit(main())
