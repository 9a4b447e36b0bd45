"""formats (map written below)."""
