"""The UI gate: each task's golden trajectory (`steps`) replayed in Chromium by the solver (`solver`),
and the gate that accepts or refuses a task by what the browser did (`gate`)."""
