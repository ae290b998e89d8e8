"""MergeContent's TAR, ZIP and FlowFile Stream v3 bundles hold every FlowFile whole: read
back, they give each name (long and non-ASCII ones too), content (empty too) and, for v3,
attributes, in order."""

from __future__ import annotations

import io
import tarfile
import zipfile

from hypothesis import given, settings
from hypothesis import strategies as st

from flowcore.testing import TestRunner
from processors.standard.merge_content import unpackage_v3
from tests.processors.standard.chunked_streams import streamed_in_chunks_of

names = st.text(alphabet="abé€ _-.", min_size=1, max_size=120)
contents = st.one_of(
    st.binary(max_size=300), st.binary(min_size=0, max_size=1).map(lambda b: b * 5000)
)
entries = st.lists(st.tuples(names, contents), min_size=1, max_size=5).map(
    lambda items: [(f"{index}-{name}", data) for index, (name, data) in enumerate(items)]
)


def _read_back(merge_format: str, bundle: bytes) -> list[tuple[str, bytes]]:
    if merge_format == "TAR":
        with tarfile.open(fileobj=io.BytesIO(bundle)) as archive:
            members = archive.getmembers()
            return [(m.name, archive.extractfile(m).read()) for m in members]  # type: ignore[union-attr]
    if merge_format == "ZIP":
        with zipfile.ZipFile(io.BytesIO(bundle)) as archive:
            return [(info.filename, archive.read(info)) for info in archive.infolist()]
    return [(attributes["filename"], data) for attributes, data in unpackage_v3(bundle)]


@settings(max_examples=200, deadline=None)
@given(entries, st.sampled_from(["TAR", "ZIP", "FlowFile Stream, v3"]), st.integers(1, 64))
def test_bundles_hold_every_flowfile_whole(
    items: list[tuple[str, bytes]], merge_format: str, chunk: int
) -> None:
    with streamed_in_chunks_of(chunk), TestRunner("MergeContent") as merger:
        merger.set_property("Merge Format", merge_format)
        merger.set_property("Minimum Number of Entries", str(len(items)))
        for name, data in items:
            merger.enqueue(data, {"filename": name, "extra": name[::-1]})
        merger.run(2)
        assert merger.get_flowfiles_for_relationship("failure") == []
        assert len(merger.get_flowfiles_for_relationship("original")) == len(items)
        (merged,) = merger.get_flowfiles_for_relationship("merged")
    assert _read_back(merge_format, merged.content) == items
    if merge_format == "FlowFile Stream, v3":
        extras = [attributes["extra"] for attributes, _ in unpackage_v3(merged.content)]
        assert extras == [name[::-1] for name, _ in items]
