"""overlap."""
