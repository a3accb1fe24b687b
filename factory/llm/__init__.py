"""The one seam to an OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server).

    config.py      where the model is: environment variables or a TOML file; None means offline
    client.py      the only place an `openai` client is built; one request, timeouts and backoff
    cache.py       replies on disk, keyed by the hash of the whole request: a rerun asks nothing
    accounting.py  tokens and cost per purpose, summed for a world
    prompts.py     Jinja prompt templates from `templates/prompts/`
    ask.py         `LLM.ask`: a structured answer validated by a pydantic model, with bounded retries
                   that show the model its own validation error
    errors.py      what can go wrong, under the factory's `FactoryError`

With no model configured nothing here is imported by the deterministic commands; the agents that
can use a model (today the free-form seed author) ask `load_config()` and refuse or fall back.
"""
