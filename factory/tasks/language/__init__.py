"""What a task says: instructions phrased from a draft (`phrasing`, `render`, `values`, `words`,
`asks`), parsed back (`parse`, `intents`) and resolved against a database (`resolve`)."""
