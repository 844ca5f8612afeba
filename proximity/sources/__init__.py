"""Adapters to the outside world (git, files, models); Django-free."""
