"""Claimed names: secret tokens, and the hashes of them that the store keeps.

A token is 32 random bytes in URL-safe base64 (:func:`new_token`), shown to its owner
once. The store keeps only its argon2id hash (argon2-cffi's defaults, the RFC 9106
low-memory profile); :func:`verify` compares in constant time, as argon2 does, and
says whether the hash should be renewed with today's parameters. Hashing costs tens
of milliseconds of CPU by design: call these from a worker thread, never the loop.
"""

from __future__ import annotations

import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

__all__ = ["hash_token", "needs_rehash", "new_token", "verify"]

_HASHER = PasswordHasher()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return _HASHER.hash(token)


def verify(token_hash: str, token: str) -> bool:
    """Whether ``token`` is the one ``token_hash`` was made from."""
    try:
        return _HASHER.verify(token_hash, token)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(token_hash: str) -> bool:
    return _HASHER.check_needs_rehash(token_hash)
