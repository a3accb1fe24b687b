"""Reference agents: the oracle and the flawed agent, for tests, demos and calibration."""
