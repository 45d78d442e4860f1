"""OneFS Platform API simulator of the dlcluster lab (see __main__ for its command line)."""
