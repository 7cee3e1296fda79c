"""The pytest session of a benchmark run: collection nodes, the controller, case order and selection, xdist scheduling."""
