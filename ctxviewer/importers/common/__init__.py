"""common (map written below)."""
