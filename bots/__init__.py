"""Sample bots, each its own process, playing over TCP."""
