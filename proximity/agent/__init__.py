"""The agent side: the ``radar`` command, hook adapters, the local and remote pre-edit check.

Everything here runs on an agent's machine on every edit, so it imports no Django, Celery,
torch or sentence-transformers: the standard library, ``proximity.sources.git`` and, only when
the check is answered locally, the airspace engine (numpy).
"""

#: The harnesses ``radar hook`` speaks to (here, so a forwarded hook imports nothing else).
HARNESSES = ("claude", "codex", "gemini", "cursor")
