"""`make bench`: the measured figures (build, verification, fault suites, stage two, episode
server, grading, red team) written to bench/results.json. Figures are measured here, never
asserted in tests."""
