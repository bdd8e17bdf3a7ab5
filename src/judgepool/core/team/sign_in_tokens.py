"""Sign-in tokens for served sessions: made at random, kept only as a salted hash.

A token is 32 random bytes written in URL-safe base64 (43 characters, no
padding): too many to guess, so the hash need not be slow to resist guessing
the token; it is scrypt all the same, so a stolen workspace file does not
hand out tokens cheaply. Each token has its own random salt. Comparison is in
constant time (`hmac.compare_digest`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Final

TOKEN_BYTES: Final = 32
SALT_BYTES: Final = 16
# scrypt's cost: 16 MiB and some tens of milliseconds per check.
_SCRYPT_N: Final = 2**14
_SCRYPT_R: Final = 8
_SCRYPT_P: Final = 1
_HASH_BYTES: Final = 32


def new_token() -> str:
    """A fresh sign-in token, to be shown once and never stored."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def new_salt() -> bytes:
    """A fresh random salt for one token's hash."""
    return secrets.token_bytes(SALT_BYTES)


def token_hash(token: str, salt: bytes) -> bytes:
    """The salted hash of ``token`` that the workspace keeps."""
    return hashlib.scrypt(
        token.encode("utf-8", "surrogatepass"),
        salt=salt,
        n=_SCRYPT_N,
        r=_SCRYPT_R,
        p=_SCRYPT_P,
        dklen=_HASH_BYTES,
    )


def token_matches(token: str, salt: bytes, stored: bytes) -> bool:
    """Whether ``token`` is the one whose salted hash is ``stored``."""
    return hmac.compare_digest(token_hash(token, salt), stored)
