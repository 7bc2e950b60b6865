"""Client-side code: a client library and the terminal client."""
