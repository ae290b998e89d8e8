"""Expression Language sees a FlowFile's properties (fileSize, entryDate, ...) as NiFi does."""

from __future__ import annotations

from flowcore.el.lookup import FlowFileLookup
from flowcore.model import FlowFile
from flowcore.testing import TestRunner


def flowfile(**attributes: str) -> FlowFile:
    return FlowFile(
        id=7,
        attributes={"uuid": "u", "filename": "f", "path": "./", **attributes},
        claim=None,
        claim_offset=0,
        size=42,
        entry_date=1_000,
        lineage_start_date=900,
    )


def test_properties_come_before_attributes_and_attributes_follow() -> None:
    lookup = FlowFileLookup(flowfile(fileSize="attribute", colour="red"))
    assert lookup.get("fileSize") == "42"  # NiFi: FlowFile properties win
    assert (lookup.get("entryDate"), lookup.get("lineageStartDate")) == ("1000", "900")
    assert lookup.get("flowFileId") == "7"
    assert lookup.get("colour") == "red"
    assert lookup.get("missing") is None
    assert "colour" in lookup and "fileSize" in lookup
    assert sorted(lookup) == sorted(
        [
            "flowFileId",
            "fileSize",
            "entryDate",
            "lineageStartDate",
            "uuid",
            "filename",
            "path",
            "colour",
        ]
    )


def test_update_attribute_and_route_on_attribute_see_file_size() -> None:
    update = TestRunner("UpdateAttribute")
    update.set_property("size", "${fileSize}")
    update.enqueue("hello", {})
    update.run()
    update.get_flowfiles_for_relationship("success")[0].assert_attribute_equals("size", "5")
    update.close()

    route = TestRunner("RouteOnAttribute")
    route.set_property("non_empty", "${fileSize:gt(0)}")
    route.enqueue("hello", {})
    route.enqueue("", {})
    route.run()
    route.assert_transfer_count("non_empty", 1)
    route.assert_transfer_count("unmatched", 1)
    route.close()
