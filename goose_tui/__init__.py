"""goose-tui: a terminal inspector for Goose context compaction."""

__version__ = "0.1.0"
