"""The seed author: a short free-form description (markdown, optionally with a partial YAML seed)
becomes a full YAML seed, drafted by a model section by section and held to `factory check`.

    source.py    read a free-form seed: the description, and the sections it already gives
    sections.py  the sections a model drafts, each a projection of the seed's own pydantic model
    check.py     `factory check`'s validation of a draft, as one line `file:line: key: message`
    draft.py     the loop: draft a section, check the seed so far, show the model the error, again
    keep.py      where the drafted seed and the model's usage are kept beside the world

Only the free-form path imports this room; a YAML seed never reaches it.
"""
