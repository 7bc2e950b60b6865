"""One client's session: its bytes, its commands, and the way back to it.

* :mod:`server.session.connection`: one client, from commands to its game and back;
* :mod:`server.session.transport`: its bytes on any trio stream, its output queue and
  limits, by the rules of :mod:`server.session.transport_policy` (no I/O);
* :mod:`server.session.poller`: one task serving every client that waits for input;
* :mod:`server.session.admission`: who may connect, on every way in;
* :mod:`server.session.greetings`: greetings, turn reminders and the end of a game,
  for the dialects that need them.
"""
