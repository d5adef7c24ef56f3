"""Stand-in for verl (tests only; see ../README.md)."""
