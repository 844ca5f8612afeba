"""airspace."""
