"""The one seam to an OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server).

    config.py      where the model is: environment variables or a TOML file; None means offline
    client.py      the only place an `openai` client is built; one request, timeouts and backoff
    cache.py       replies on disk, keyed by the hash of the whole request: a rerun asks nothing
    accounting.py  tokens and cost per purpose, summed for a world
    prompts.py     Jinja prompt templates from `templates/prompts/`
    ask.py         `LLM.ask`: a structured answer validated by a pydantic model, with bounded retries
                   that show the model its own validation error
    errors.py      what can go wrong, under the factory's `FactoryError`
    keep.py        a world's usage summed into `reports/llm_usage.json`

With no model configured no request is made: the free-form seed author refuses (`require_config`),
and the agents whose model policy is optional (the repairer's `prove/patcher.py`, the triager's
`prove/placer.py`, the proposer's `tasks/propose/rewording.py`, the judge's `rollouts/judge.py`)
get None from `open_llm()` and run their deterministic policies only.
"""
