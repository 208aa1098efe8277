"""``python -m goose_tui.cli``: the ``goose-tui`` command."""

import sys

from goose_tui.cli import main

sys.exit(main())
