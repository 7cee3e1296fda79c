"""Password hashing for the shop (test data)."""

import hashlib


def hash_password(password: str, salt: bytes) -> str:
    """Return the salted hash stored for a password."""
    return hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 1000).hex()
