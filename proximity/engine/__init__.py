"""Pure computation for Overlap Radar: no Django, Celery, Dash, subprocess or network I/O."""
