"""spans (map written below)."""
