"""The relay port's places for handshakes under way: no address keeps another out."""

from __future__ import annotations

from server.cluster.relay_port import HandshakeGate


async def test_an_address_past_its_share_pushes_out_its_own_oldest() -> None:
    gate = HandshakeGate(total=8, share=3)
    hog = [gate.enter("10.0.0.66") for _ in range(3)]
    honest = gate.enter("10.0.0.2")
    fourth = gate.enter("10.0.0.66")
    assert hog[0].scope.cancel_called and "from its address" in hog[0].why
    assert not any(t.scope.cancel_called for t in (*hog[1:], honest, fourth))


async def test_a_newcomer_to_a_full_gate_pushes_out_the_oldest_of_the_biggest_holder() -> None:
    gate = HandshakeGate(total=6, share=4)
    most = [gate.enter("10.0.0.66") for _ in range(4)]
    fewer = [gate.enter("10.0.0.77") for _ in range(2)]
    newcomer = gate.enter("10.0.0.2")
    assert most[0].scope.cancel_called and "6 handshakes at once" in most[0].why
    assert not any(t.scope.cancel_called for t in (*most[1:], *fewer, newcomer))
    gate.leave("10.0.0.66", most[0])  # its task leaves too: nothing is counted twice
    gate.leave("10.0.0.2", newcomer)  # a place is free again
    assert not gate.enter("10.0.0.3").scope.cancel_called
    assert not any(t.scope.cancel_called for t in (*most[1:], *fewer))
