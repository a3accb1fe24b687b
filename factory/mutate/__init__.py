"""Faults put into copies of a proven world, to measure that the claims catch them and the repairer
fixes them: the classic kinds (`mutations/`), the independent suite (`faults/`), injection (`run`)
and the kill and repair rates per kind (`score`)."""
