"""Change feed: from the beginning, from now, from a point in time, per feed range, resumed from a
continuation, and all versions and deletes, on containers with one and with five ranges."""

import time
from datetime import datetime, timedelta, timezone

import pytest

from conftest import RANGES_BY_THROUGHPUT


def drain(container, **kwargs):
    """Reads a change feed to its end: returns (items, continuation).

    The continuation is the SDK's composite token, which it leaves in the response headers'
    etag even when no page came (a pager that yielded no page reports no continuation_token,
    so a feed started "Now" is resumed from the headers, as the SDK's samples do)."""
    pager = container.query_items_change_feed(**kwargs).by_page()
    items = []
    for page in pager:
        items.extend(page)
    return items, container.client_connection.last_response_headers.get("etag")


def ids(items):
    return [i["id"] for i in items]


def test_from_beginning_and_resume(ranged):
    c, ranges = ranged
    for i in range(12):
        c.create_item({"id": f"a{i}", "pk": f"p{i % 5}", "v": 1})
    items, token = drain(c, start_time="Beginning", max_item_count=4)
    assert sorted(ids(items)) == sorted(f"a{i}" for i in range(12))
    assert token
    # nothing new: resuming from the continuation yields nothing
    again, token2 = drain(c, continuation=token)
    assert again == []
    # changes after the continuation come once, an update in its latest version
    c.upsert_item({"id": "a3", "pk": "p3", "v": 2})
    c.create_item({"id": "b1", "pk": "p1", "v": 1})
    later, _ = drain(c, continuation=token2)
    assert sorted(ids(later)) == ["a3", "b1"]
    assert [i["v"] for i in later if i["id"] == "a3"] == [2]
    # within a logical partition, changes come in modification order
    part, _ = drain(c, start_time="Beginning", partition_key="p3")
    assert ids(part) == ["a8", "a3"]


def test_from_now(ranged):
    c, _ = ranged
    c.create_item({"id": "before", "pk": "x"})
    items, token = drain(c, start_time="Now")
    assert items == []
    c.create_item({"id": "after", "pk": "y"})
    items, _ = drain(c, continuation=token)
    assert ids(items) == ["after"]


def test_from_point_in_time(ranged):
    c, _ = ranged
    c.create_item({"id": "old", "pk": "x"})
    time.sleep(1.5)  # _ts has a resolution of one second
    cut = datetime.now(timezone.utc)
    time.sleep(1.1)
    c.create_item({"id": "new", "pk": "y"})
    items, _ = drain(c, start_time=cut)
    assert ids(items) == ["new"]
    items, _ = drain(c, start_time=cut - timedelta(hours=1))
    assert sorted(ids(items)) == ["new", "old"]


def test_per_feed_range(ranged):
    c, ranges = ranged
    feed_ranges = list(c.read_feed_ranges())
    assert len(feed_ranges) == ranges
    for i in range(20):
        c.create_item({"id": f"r{i}", "pk": f"k{i}"})
    seen = []
    for fr in feed_ranges:
        items, _ = drain(c, feed_range=fr, start_time="Beginning")
        seen.append(set(ids(items)))
        # each item belongs to the feed range the SDK computes for its partition key
        for it in items:
            assert c.is_feed_range_subset(fr, c.feed_range_from_partition_key(it["pk"]))
    union = set().union(*seen)
    assert union == {f"r{i}" for i in range(20)}
    assert sum(len(s) for s in seen) == 20  # disjoint
    if ranges > 1:
        assert sum(1 for s in seen if s) > 1, "20 keys should land in several ranges"


def test_all_versions_and_deletes(ranged):
    c, _ = ranged
    items, token = drain(c, mode="AllVersionsAndDeletes", start_time="Now")
    assert items == []
    c.create_item({"id": "v", "pk": "p", "n": 1})
    c.replace_item("v", {"id": "v", "pk": "p", "n": 2})
    c.create_item({"id": "w", "pk": "q", "n": 1})
    c.delete_item("v", partition_key="p")
    items, _ = drain(c, continuation=token)
    ops = [(i["metadata"]["operationType"], (i.get("current") or i.get("previous") or {}).get("id")
            or i["metadata"].get("id")) for i in items]
    v_ops = [op for op, id_ in ops if id_ == "v"]
    assert v_ops == ["create", "replace", "delete"], ops
    assert [op for op, id_ in ops if id_ == "w"] == ["create"]
    assert [i["current"]["n"] for i in items if i["metadata"]["operationType"] != "delete" and i["current"]["id"] == "v"] == [1, 2]
    lsns = [i["metadata"]["lsn"] for i in items if (i.get("current") or {}).get("id") == "v" or i["metadata"]["operationType"] == "delete"]
    assert lsns == sorted(lsns)
