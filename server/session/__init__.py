"""One client's session: its bytes, its commands, and the way back to it.

Its face: :class:`~server.session.client.Connection`, served by the server through its
:class:`~server.session.fast_path.FastPath`. From the top:

* :mod:`server.session.fast_path`: the one fast path, each connection's command loop built
  once, held byte for byte to the plain one;
* :mod:`server.session.client`: one client's commands (routed as their verbs declare)
  and its life, the plain path;
* :mod:`server.session.mailbox`: the client as a game sees it: what can be sent to it,
  who it is, what it asked for;
* :mod:`server.session.greetings`: greetings, turn reminders and the end of a game,
  for the dialects that need them;
* :mod:`server.session.roles`: what a session sees of the server, the lobby, the ladder
  and a game;
* :mod:`server.session.transport`: its bytes on any trio stream, its output queue and
  limits, by the rules of :mod:`server.session.transport_policy` (no I/O);
* :mod:`server.session.poller`: one task serving every client that waits for input;
* :mod:`server.session.admission`: who may connect, on every way in.
"""
