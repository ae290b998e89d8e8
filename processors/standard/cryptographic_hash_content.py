"""CryptographicHashContent: hashes the content (streamed) into ``content_<algorithm>``.

Follows NiFi 2's CryptographicHashContent (NiFi 1's HashContent is gone from NiFi 2 and
has no alias here). The hash is lowercase hexadecimal, as NiFi's. MD2 is not offered:
Python's hashlib has no MD2. BLAKE2-160/256/384/512 are BLAKE2b with that digest size.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Protocol

from flowcore.processor import (
    AllowableValue,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    processor,
    validators,
)
from flowcore.session import ProcessSession


class Digest(Protocol):
    def update(self, data: bytes, /) -> None: ...

    def hexdigest(self) -> str: ...


Hasher = Callable[[], Digest]


def _blake2(size: int) -> Hasher:
    return lambda: hashlib.blake2b(digest_size=size)


def _named(name: str) -> Hasher:
    return lambda: hashlib.new(name)


ALGORITHMS: dict[str, tuple[Hasher, str]] = {
    "MD5": (_named("md5"), "MD5 (16 byte output) [WARNING -- Cryptographically broken]"),
    "SHA-1": (_named("sha1"), "SHA-1 (20 byte output) [WARNING -- Cryptographically broken]"),
    "SHA-224": (_named("sha224"), "SHA-224 (28 byte output) SHA-2 family"),
    "SHA-256": (_named("sha256"), "SHA-256 (32 byte output) SHA-2 family"),
    "SHA-384": (_named("sha384"), "SHA-384 (48 byte output) SHA-2 family"),
    "SHA-512": (_named("sha512"), "SHA-512 (64 byte output) SHA-2 family"),
    "SHA-512/224": (
        _named("sha512_224"),
        "SHA-512/224 (28 byte output) SHA-2 using SHA-512 with truncated output",
    ),
    "SHA-512/256": (
        _named("sha512_256"),
        "SHA-512/256 (32 byte output) SHA-2 using SHA-512 with truncated output",
    ),
    "SHA3-224": (_named("sha3_224"), "SHA3-224 (28 byte output) Keccak-based SHA3 family"),
    "SHA3-256": (_named("sha3_256"), "SHA3-256 (32 byte output) Keccak-based SHA3 family"),
    "SHA3-384": (_named("sha3_384"), "SHA3-384 (48 byte output) Keccak-based SHA3 family"),
    "SHA3-512": (_named("sha3_512"), "SHA3-512 (64 byte output) Keccak-based SHA3 family"),
    "BLAKE2-160": (_blake2(20), "BLAKE2-160 (20 byte output) Also known as Blake2b"),
    "BLAKE2-256": (_blake2(32), "BLAKE2-256 (32 byte output) Also known as Blake2b"),
    "BLAKE2-384": (_blake2(48), "BLAKE2-384 (48 byte output) Also known as Blake2b"),
    "BLAKE2-512": (_blake2(64), "BLAKE2-512 (64 byte output) Also known as Blake2b"),
}

FAIL_WHEN_EMPTY = PropertyDescriptor(
    name="Fail When Content Empty",
    display_name="Fail When Content Empty",
    description="Route to failure if the content is empty. While hashing an empty value is "
    "valid, some flows may want to detect empty input.",
    default="false",
    required=True,
    allowable_values=["true", "false"],
)
HASH_ALGORITHM = PropertyDescriptor(
    name="Hash Algorithm",
    display_name="Hash Algorithm",
    description="The hash algorithm to use. Note that not all of the algorithms available are "
    "recommended for use (some are provided for legacy compatibility).",
    default="SHA-256",
    required=True,
    allowable_values=[AllowableValue(name, name, text) for name, (_, text) in ALGORITHMS.items()],
    validators=[validators.non_empty],
)

SUCCESS = Relationship("success", "Used for flowfiles that have a hash value added")
FAILURE = Relationship(
    "failure", "Used for flowfiles that have no content if the 'fail on empty' setting is enabled"
)


@processor("CryptographicHashContent")
class CryptographicHashContent(Processor):
    description = (
        "Calculates a cryptographic hash value for the FlowFile content using the given "
        "algorithm and writes it to an output attribute."
    )
    tags = ("content", "hash", "sha", "blake2", "md5", "cryptography")
    property_descriptors = (FAIL_WHEN_EMPTY, HASH_ALGORITHM)
    relationships = (FAILURE, SUCCESS)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        name = context.get_property(HASH_ALGORITHM).as_str()
        if flowfile.size == 0 and context.get_property(FAIL_WHEN_EMPTY).as_bool():
            self.logger.info("Routing %s to 'failure' because content is empty", flowfile.uuid)
            session.transfer(flowfile, FAILURE)
            return
        digest = ALGORITHMS[name][0]()
        for chunk in session.stream(flowfile):
            digest.update(chunk)
        flowfile = session.put_attribute(flowfile, f"content_{name}", digest.hexdigest())
        session.provenance.modify_attributes(flowfile)
        session.transfer(flowfile, SUCCESS)
