"""Links between nodes over mutual TLS, with certificates the test makes with ``openssl``."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
from pathlib import Path

import pytest

from .conftest import WAIT, Cluster, Node, eventually
from .sniff import Sniffer, skip_unless_root
from .test_relay import _relay_of


def _openssl(*args: str | Path) -> None:
    subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True)


class Authority:
    """A CA of the test's own, in a folder: it signs certificates for loopback nodes."""

    def __init__(self, folder: Path, name: str) -> None:
        if shutil.which("openssl") is None:
            pytest.skip("openssl is missing: apt-get install openssl")
        self.folder = folder
        self.key, self.cert = folder / f"{name}.key", folder / f"{name}.pem"
        _openssl(
            *("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"),
            *("-nodes", "-days", "1", "-subj", f"/CN={name}"),
            *("-keyout", self.key, "-out", self.cert),
            *("-addext", "basicConstraints=critical,CA:TRUE"),
            *("-addext", "keyUsage=critical,keyCertSign,cRLSign"),
        )

    def issue(self, name: str, address: str = "127.0.0.1") -> tuple[Path, Path]:
        """A certificate (and its key) for a node reached at ``address``."""
        key, request, cert = (self.folder / f"{name}{end}" for end in (".key", ".csr", ".pem"))
        extensions = self.folder / f"{name}.ext"
        extensions.write_text(
            f"subjectAltName=IP:{address}\nextendedKeyUsage=serverAuth,clientAuth\n"
        )
        _openssl(
            *("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"),
            *("-subj", f"/CN={name}", "-keyout", key, "-out", request),
        )
        _openssl(
            *("x509", "-req", "-in", request, "-CA", self.cert, "-CAkey", self.key),
            *("-CAcreateserial", "-days", "1", "-out", cert, "-extfile", extensions),
        )
        return cert, key


def _tls_node(cluster: Cluster, authority: Authority, name: str) -> Node:
    cert, key = authority.issue(name)
    return cluster.node(
        *("--relay-cert", str(cert), "--relay-key", str(key), "--relay-ca", str(authority.cert))
    )


def test_nodes_given_certificates_carry_clients_over_mutual_tls(
    cluster: Cluster, tmp_path: Path
) -> None:
    skip_unless_root()
    authority = Authority(tmp_path, "cluster-ca")
    a, b = _tls_node(cluster, authority, "a"), _tls_node(cluster, authority, "b")
    _, at_a = _relay_of(cluster, a)
    sniffer = Sniffer("lo", at_a[1])
    try:
        ada, bob = a.client(), b.client()
        assert ada.ask("EXTEND chat") == "EXTENDED chat"
        assert ada.ask("CREATE arena classic").startswith("GAME arena ")
        assert ada.ask("JOIN arena").startswith("GAME arena ")
        eventually(lambda: "arena" in bob.games(), "B lists the game")
        assert bob.ask("EXTEND chat") == "EXTENDED chat"
        assert bob.ask("HELLO Bob") == "GOLD 3"
        assert bob.ask("JOIN arena").startswith("GAME arena ")  # carried, over TLS
        assert bob.ask("SHOUT secret plans") == "MESSAGE Bob: secret plans"
        assert bob.line() == "SUCCESS"
        assert ada.line() == "MESSAGE Bob: secret plans"
        assert bob.ask("QUIT") == "BYE Thanks for playing."
        assert bob.file.readline() == b""  # the game's node ended it: no BYE of B's own
        a.wait_for(r"player joined .*game=arena peer=127\.0\.0\.1:")
    finally:
        sniffer.close()
    crossed = b"".join(sniffer.payloads)
    assert crossed  # the link was used, and none of it could be read off it:
    assert b"DOD-RELAY" not in crossed and b"Bob" not in crossed and b"secret" not in crossed


def test_a_tls_relay_port_takes_no_link_without_a_certificate_of_its_ca(
    cluster: Cluster, tmp_path: Path
) -> None:
    authority = Authority(tmp_path, "cluster-ca")
    stranger = Authority(tmp_path, "stranger-ca")
    a = _tls_node(cluster, authority, "a")
    plain = cluster.node()  # a node given no certificate cannot carry anyone there
    cert, key = stranger.issue("intruder")
    _, at_a = _relay_of(cluster, a)
    ada, pat = a.client(), plain.client()
    assert ada.ask("CREATE arena classic").startswith("GAME arena ")
    assert ada.ask("JOIN arena").startswith("GAME arena ")
    eventually(lambda: "arena" in pat.games(), "the plain node lists the game")
    assert pat.ask("JOIN arena") == "ERROR the node holding that game cannot be reached; try again"
    # Nor can a program showing a certificate another CA signed.
    context = ssl.create_default_context(cafile=str(authority.cert))
    context.load_cert_chain(cert, key)
    with socket.create_connection(at_a, timeout=WAIT) as raw:
        try:
            with context.wrap_socket(raw, server_hostname="127.0.0.1") as link:
                # TLS 1.3: the refusal of the client's certificate comes after its handshake.
                heard = link.recv(100)
        except (ssl.SSLError, ConnectionResetError):
            heard = b""
    assert heard == b""  # not even the challenge
    a.wait_for("relay handshake refused .*the link failed")


def test_commands_pipelined_behind_a_join_that_cannot_be_carried_are_answered_in_turn(
    cluster: Cluster, tmp_path: Path
) -> None:
    # The plain node cannot open a link to a node of TLS links: its client's JOIN fails
    # there, and what the client sent behind it is answered there, after the JOIN.
    a = _tls_node(cluster, Authority(tmp_path, "cluster-ca"), "a")
    plain = cluster.node()
    ada, pat = a.client(), plain.client()
    assert ada.ask("CREATE arena classic").startswith("GAME arena ")
    eventually(lambda: "arena" in pat.games(), "the plain node lists the game")
    assert pat.ask("HELLO Pat") == "GOLD 3"
    pat.socket.sendall(b"JOIN arena\nEXTEND chat\nSHOUT still here\n")
    assert pat.line() == "ERROR the node holding that game cannot be reached; try again"
    assert pat.line() == "EXTENDED chat"
    assert pat.line() == "MESSAGE Pat: still here"
    assert pat.line() == "SUCCESS"
