"""MockFlowFile: a transferred FlowFile with its content, and nifi-mock's assertions."""

from __future__ import annotations

from dataclasses import dataclass

from flowcore.model.flowfile import FlowFile


@dataclass(frozen=True, slots=True)
class MockFlowFile:
    """``content_error``: why the content could not be read (then ``content`` is empty),
    for a FlowFile routed to failure because its content is damaged or missing."""

    flowfile: FlowFile
    content: bytes
    content_error: str | None = None

    @property
    def attributes(self) -> dict[str, str]:
        return dict(self.flowfile.attributes)

    @property
    def uuid(self) -> str:
        return self.flowfile.uuid

    @property
    def size(self) -> int:
        return self.flowfile.size

    @property
    def id(self) -> int:
        return self.flowfile.id

    def is_penalized(self, now_ms: int) -> bool:
        return self.flowfile.is_penalized(now_ms)

    def get_attribute(self, name: str) -> str | None:
        return self.flowfile.attributes.get(name)

    def assert_attribute_equals(self, name: str, value: str | None) -> None:
        actual = self.get_attribute(name)
        assert actual == value, f"attribute '{name}': expected {value!r} but was {actual!r}"

    def assert_attribute_exists(self, name: str) -> None:
        assert name in self.flowfile.attributes, f"attribute '{name}' does not exist"

    def assert_attribute_not_exists(self, name: str) -> None:
        assert name not in self.flowfile.attributes, (
            f"attribute '{name}' exists with value {self.flowfile.attributes[name]!r}"
        )

    def assert_content_equals(self, expected: str | bytes, encoding: str = "utf-8") -> None:
        data = expected.encode(encoding) if isinstance(expected, str) else expected
        assert self.content_error is None, f"content could not be read: {self.content_error}"
        assert self.content == data, f"content: expected {data!r} but was {self.content!r}"

    def text(self, encoding: str = "utf-8") -> str:
        return self.content.decode(encoding)
