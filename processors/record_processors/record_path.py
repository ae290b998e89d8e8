"""A small subset of NiFi's RecordPath, evaluated on Arrow record batches.

Supported: child paths from the root, ``/field`` and ``/a/b/c`` (``b`` a field of the
record ``a``, and so on). Field names are letters, digits, ``_``, ``-`` and ``$``;
whitespace around the path is ignored. A path evaluates to one Arrow array (one value
per record) with vectorised kernels (``pyarrow.compute.struct_field``), never a Python
object per record: a null record on the way gives a null value, as in NiFi.

A path naming a field that is not in the schema selects nothing (``None``): every record
then has "no value", as NiFi's empty selection.

Not supported (rejected when the property is validated): descendants ``//``, wildcards
``/*``, array and map indexes ``[0]`` ``['key']``, filters, ``.`` and ``..``, functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from flowcore.processor import ValidationResult

_PATH = re.compile(r"(?:/[A-Za-z0-9_$-]+)+")


class RecordPathError(ValueError):
    """A RecordPath that flowcore cannot compile."""


@dataclass(frozen=True, slots=True)
class RecordPath:
    text: str
    fields: tuple[str, ...]

    def evaluate(self, batch: pa.RecordBatch) -> pa.Array | None:
        """The selected value of every record, or None when the path selects nothing."""
        index = batch.schema.get_field_index(self.fields[0])
        if index < 0:
            return None
        values = batch.column(index)
        for name in self.fields[1:]:
            if not pa.types.is_struct(values.type) or values.type.get_field_index(name) < 0:
                return None
            values = pc.struct_field(values, name)
        return values


def compile_record_path(text: str) -> RecordPath:
    """Compile ``text`` or raise ``RecordPathError`` saying why not."""
    stripped = text.strip()
    if not stripped:
        msg = "the RecordPath is empty"
        raise RecordPathError(msg)
    if not stripped.startswith("/"):
        msg = f"'{stripped}' is not an absolute RecordPath (it must start with '/')"
        raise RecordPathError(msg)
    if not _PATH.fullmatch(stripped):
        msg = (
            f"'{stripped}' is not supported: flowcore supports only child paths such as "
            "/field or /parent/child"
        )
        raise RecordPathError(msg)
    return RecordPath(stripped, tuple(stripped[1:].split("/")))


def record_path_validator(subject: str, value: str) -> ValidationResult:
    """NiFi's RecordPathValidator message: ``Invalid RecordPath: <reason>``."""
    try:
        compile_record_path(value)
    except RecordPathError as exc:
        return ValidationResult(subject, False, value, f"Invalid RecordPath: {exc}")
    return ValidationResult(subject, True, value, "")
