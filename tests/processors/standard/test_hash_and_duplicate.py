"""CryptographicHashContent and DuplicateFlowFile through the TestRunner."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]


@pytest.mark.parametrize(
    ("algorithm", "expected"),
    [
        ("MD5", hashlib.md5(b"apachenifi").hexdigest()),
        ("SHA-256", hashlib.sha256(b"apachenifi").hexdigest()),
        ("SHA-512/256", hashlib.new("sha512_256", b"apachenifi").hexdigest()),
        ("SHA3-224", hashlib.sha3_224(b"apachenifi").hexdigest()),
        ("BLAKE2-160", hashlib.blake2b(b"apachenifi", digest_size=20).hexdigest()),
    ],
)
def test_hash_attribute(make_runner: RunnerFactory, algorithm: str, expected: str) -> None:
    runner = make_runner("CryptographicHashContent", properties={"Hash Algorithm": algorithm})
    runner.enqueue(b"apachenifi" * 1)
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("success")
    out.assert_attribute_equals(f"content_{algorithm}", expected)
    types = [e.event_type for e in runner.get_provenance_events()]
    assert ProvenanceEventType.ATTRIBUTES_MODIFIED in types


def test_sha256_default_and_known_value(make_runner: RunnerFactory) -> None:
    runner = make_runner("CryptographicHashContent")
    runner.enqueue("")
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("success")
    out.assert_attribute_equals(
        "content_SHA-256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )


def test_fail_when_empty(make_runner: RunnerFactory) -> None:
    runner = make_runner("CryptographicHashContent", properties={"Fail When Content Empty": "true"})
    runner.enqueue("")
    runner.enqueue("x")
    runner.run(2)
    runner.assert_transfer_count("failure", 1)
    runner.assert_transfer_count("success", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_attribute_not_exists(
        "content_SHA-256"
    )


def test_unknown_algorithm_is_invalid(make_runner: RunnerFactory) -> None:
    make_runner("CryptographicHashContent", properties={"Hash Algorithm": "MD2"}).assert_not_valid()


def test_duplicate(make_runner: RunnerFactory) -> None:
    runner = make_runner("DuplicateFlowFile", properties={"Number of Copies": "${n}"})
    original = runner.enqueue("content", {"n": "3"})
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")
    assert sorted(f.get_attribute("copy.index") or "" for f in out) == ["0", "1", "2", "3"]
    assert all(f.text() == "content" for f in out)
    [kept] = [f for f in out if f.get_attribute("copy.index") == "0"]
    assert kept.uuid == original.uuid
    clones = [
        e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.CLONE
    ]
    assert len(clones) == 3


def test_duplicate_bad_count_is_penalized(make_runner: RunnerFactory) -> None:
    runner = make_runner("DuplicateFlowFile", properties={"Number of Copies": "${n}"})
    runner.enqueue("content", {"n": "many"})
    runner.run()
    runner.assert_transfer_count("success", 0)
    assert runner.queue_size == 1
    make_runner("DuplicateFlowFile", properties={"Number of Copies": "-1"}).assert_not_valid()
