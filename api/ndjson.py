"""NDJSON batches of FlowFiles: each line one ``{"attributes", "content"|"content_base64"}``."""

from __future__ import annotations

import base64
import binascii
import json

import msgspec

from api.inputs import BadInput, check_attributes, is_unicode
from flowcore.engine.node import EnqueueItem
from flowcore.model.flowfile import CoreAttribute


class _Line(msgspec.Struct, forbid_unknown_fields=True):
    """One NDJSON line as it usually comes; anything else takes ``_parse_line``."""

    attributes: dict[str, str] = {}
    content: str | msgspec.UnsetType = msgspec.UNSET
    content_base64: str | msgspec.UnsetType = msgspec.UNSET


_LINE = msgspec.json.Decoder(_Line)
# Besides "\n", the ASCII characters at which ``str.splitlines`` breaks a line.
_OTHER_BREAKS = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")


def parse_ndjson(body: bytes) -> list[EnqueueItem]:
    """The items of an NDJSON batch, in line order; the first bad line refuses them all.

    A well-formed line is decoded straight into its typed shape (one C call); any other
    line (malformed, blank, unknown fields, wrong types, ``uuid`` set, both contents)
    goes through ``_parse_line``, which reads it as ``json`` does and names the fault.
    """
    items: list[EnqueueItem] = []
    lines: list[bytes | str]
    if body.isascii() and not any(mark in body for mark in _OTHER_BREAKS):
        lines = [*body.split(b"\n")]  # the lines ``str.splitlines`` finds, no text copy
    else:
        try:
            lines = [*body.decode("utf-8").splitlines()]
        except UnicodeDecodeError:
            raise BadInput(400, "the NDJSON body is not valid UTF-8") from None
    unset = msgspec.UNSET
    for number, line in enumerate(lines, start=1):
        try:
            record = _LINE.decode(line)
        except msgspec.DecodeError:
            record = None
        if (
            record is None
            or CoreAttribute.UUID.value in record.attributes
            or (record.content is not unset and record.content_base64 is not unset)
        ):
            text = line if isinstance(line, str) else line.decode("ascii")
            item = _parse_line(text, number)
            if item is not None:
                items.append(item)
            continue
        if record.content_base64 is not unset:
            try:
                content = base64.b64decode(record.content_base64, validate=True)
            except (binascii.Error, ValueError):
                raise BadInput(
                    422, f"line {number}: 'content_base64' is not valid base64"
                ) from None
        else:
            content = b"" if record.content is unset else record.content.encode("utf-8")
        items.append(EnqueueItem(content, record.attributes))
    if not items:
        raise BadInput(400, "the batch is empty")
    return items


def _parse_line(line: str, number: int) -> EnqueueItem | None:
    """One line read with ``json``: its item, None when blank, or the fault named."""
    if not line.strip():
        return None
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BadInput(400, f"line {number}: not valid JSON: {exc}") from None
    except RecursionError:
        raise BadInput(400, f"line {number}: nested too deeply") from None
    if not isinstance(record, dict):
        raise BadInput(422, f"line {number}: each line must be a JSON object")
    unknown = set(record) - {"attributes", "content", "content_base64"}
    if unknown:
        raise BadInput(422, f"line {number}: unknown field(s) {', '.join(sorted(unknown))}")
    attributes = check_attributes(record.get("attributes", {}), f"line {number}: attributes")
    if "content" in record and "content_base64" in record:
        raise BadInput(422, f"line {number}: give 'content' or 'content_base64', not both")
    content: bytes
    if "content_base64" in record:
        raw = record["content_base64"]
        if not isinstance(raw, str):
            raise BadInput(422, f"line {number}: 'content_base64' must be a string")
        try:
            content = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            raise BadInput(422, f"line {number}: 'content_base64' is not valid base64") from None
    else:
        raw = record.get("content", "")
        if not isinstance(raw, str):
            raise BadInput(422, f"line {number}: 'content' must be a string")
        if not is_unicode(raw):
            raise BadInput(
                422, f"line {number}: 'content' is not valid Unicode (a lone surrogate escape)"
            )
        content = raw.encode("utf-8")
    return EnqueueItem(content, attributes)
