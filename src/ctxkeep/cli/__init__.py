"""The command line: a thin layer over the library (the only layer that uses click)."""
