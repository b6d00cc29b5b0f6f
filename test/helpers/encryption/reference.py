#!/usr/bin/env python3
"""An independent implementation of the FileSender key-version-3 format (docs/encryption.md), on Python's
`cryptography` (Debian: python3-cryptography), used by test/integration/encryption-format.test.ts to check ferry's
TypeScript both ways. Written from the format description, not from ferry's code.

Usage: reference.py <job.json>
job: {"mode": "encrypt"|"decrypt", "password", "password_version", "password_encoding", "salt", "iterations",
      "fileiv" (base64), "fileaead" (base64), "chunk_size", "input", "output"}
Exit 0 on success; 3 and "wrong_password" on stdout when a GCM tag does not verify; 4 on a bad chunk IV.
"""
import base64
import json
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC


def key_of(job):
    if int(job["password_version"]) == 1:
        secret = job["password"].encode("utf-8")
    elif int(job["password_version"]) == 2 and job["password_encoding"] == "base64":
        secret = base64.b64decode(job["password"], validate=True)
        assert len(secret) == 32
    else:
        raise SystemExit("unknown password version")
    kdf = PBKDF2HMAC(algorithm=hashes.SHA256(), length=32, salt=job["salt"].encode("ascii"),
                     iterations=int(job["iterations"]))
    return AESGCM(kdf.derive(secret))


def main():
    with open(sys.argv[1]) as f:
        job = json.load(f)
    aes = key_of(job)
    file_iv = base64.b64decode(job["fileiv"])
    aad = base64.b64decode(job["fileaead"])
    assert len(file_iv) == 12
    size = int(job["chunk_size"])
    with open(job["input"], "rb") as src, open(job["output"], "wb") as dst:
        index = 0
        while True:
            if job["mode"] == "encrypt":
                plain = src.read(size)
                if not plain:
                    break
                iv = file_iv + index.to_bytes(4, "little")
                dst.write(iv + aes.encrypt(iv, plain, aad))
            else:
                stored = src.read(size + 32)
                if not stored:
                    break
                iv = stored[:16]
                if iv != file_iv + index.to_bytes(4, "little"):
                    print("bad_chunk_iv")
                    sys.exit(4)
                try:
                    dst.write(aes.decrypt(iv, stored[16:], aad))
                except InvalidTag:
                    print("wrong_password")
                    sys.exit(3)
            index += 1
    print(f"chunks {index}")


main()
