"""Claims: machine-checkable statements about a world, compiled from its spec (the yardstick of stage one)."""
