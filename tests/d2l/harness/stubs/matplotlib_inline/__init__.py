"""Stand-in for matplotlib_inline."""
