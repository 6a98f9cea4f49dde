"""Stand-in for IPython (only IPython.display is used by d2l)."""
