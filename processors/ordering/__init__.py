"""EnforceOrder: restore the order of FlowFiles within a group (issue 4)."""
