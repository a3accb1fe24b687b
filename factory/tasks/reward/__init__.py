"""reward-gen: each task's reward written in isolation (`gen`), one sandboxed child per job (`jobs`),
inside the bubblewrap jail (`sandbox`)."""
