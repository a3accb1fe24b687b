"""Drive a built world: its app server, database copies and patches, the client that acts as a user,
the workflow `Step`, and the machine's own tools (Chromium, bubblewrap, node_modules).

Both stages, the benchmarks and the coming episode server stand on this room; it imports no stage.
"""
