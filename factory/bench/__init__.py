"""`make bench`: the measured figures (build, verification, fault suites, stage two, episode
server, grading, red team) written to bench/results.json. Figures are measured here, never
asserted in tests. `make suite` (`suite`, `suite_figures`, `suite_table`): every seed of
seeds/suite/ built in parallel lanes, each world's row read from its files and held to the
acceptance criteria, written to bench/suite.json (which `make bench` records)."""
