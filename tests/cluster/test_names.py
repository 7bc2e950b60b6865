"""Names and the ladder are the cluster's, not a node's."""

from __future__ import annotations

from .conftest import Cluster, eventually


def test_a_name_playing_on_one_node_cannot_hello_on_another(cluster: Cluster) -> None:
    a, b = cluster.node(), cluster.node()
    ada, impostor = a.client(), b.client()
    assert ada.ask("HELLO Ada") == "GOLD 3"
    refusal = "ERROR Ada is playing on another node of this cluster; choose another name"
    eventually(lambda: impostor.ask("HELLO Ada") == refusal, "B refuses A's player's name")
    assert impostor.ask("HELLO ada") == refusal.replace("Ada is", "ada is")  # a lookalike
    assert impostor.ask("HELLO Bea") == "GOLD 3"
    assert ada.ask("QUIT").startswith("BYE")
    eventually(lambda: impostor.ask("HELLO Ada") == "GOLD 3", "the name is free once Ada left")


def test_a_name_registered_on_one_node_logs_in_on_another(cluster: Cluster) -> None:
    # With --db auto, a node of a cluster keeps its records in the cluster's database.
    a, b = cluster.node("--db", "auto"), cluster.node("--db", "auto")
    owner = a.client()
    keyword, name, token = owner.ask("REGISTER Ada").split(" ")
    assert (keyword, name) == ("REGISTERED", "Ada")
    owner.close()
    ada = b.client()
    assert ada.ask(f"LOGIN Ada {token}") == "LOGGEDIN Ada"
    assert b.client().ask("HELLO Ada").startswith("ERROR")  # claimed, on every node
