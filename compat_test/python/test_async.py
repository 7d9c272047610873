"""The asynchronous client (azure.cosmos.aio) over the same emulator."""

import pytest
from azure.cosmos import PartitionKey, exceptions
from azure.cosmos.aio import CosmosClient

from conftest import ENDPOINT, KEY, unique


@pytest.fixture
async def adb():
    async with CosmosClient(ENDPOINT, credential=KEY) as client:
        db = await client.create_database(unique("apy"))
        yield db
        await client.delete_database(db)


async def test_async_items_queries_and_change_feed(adb):
    c = await adb.create_container(unique("c"), partition_key=PartitionKey("/pk"), offer_throughput=30000)
    ranges = [r async for r in c.read_feed_ranges()]
    assert len(ranges) == 5
    for i in range(25):
        await c.create_item({"id": f"a{i:02d}", "pk": f"p{i % 7}", "n": i})
    got = await c.read_item("a03", partition_key="p3")
    assert got["n"] == 3
    with pytest.raises(exceptions.CosmosResourceExistsError):
        await c.create_item({"id": "a03", "pk": "p3"})
    patched = await c.patch_item("a03", "p3", [{"op": "incr", "path": "/n", "value": 100}])
    assert patched["n"] == 103
    with pytest.raises(exceptions.CosmosAccessConditionFailedError):
        await c.patch_item("a03", "p3", [{"op": "set", "path": "/x", "value": 1}],
                           filter_predicate="FROM c WHERE c.n = 3")

    ordered = [x async for x in c.query_items("SELECT VALUE c.n FROM c ORDER BY c.n DESC")]
    assert ordered == sorted([n for n in range(25) if n != 3] + [103], reverse=True)
    assert [x async for x in c.query_items("SELECT VALUE COUNT(1) FROM c")] == [25]
    assert [x async for x in c.query_items("SELECT TOP 3 VALUE c.n FROM c ORDER BY c.n")] == [0, 1, 2]
    pages = c.query_items("SELECT VALUE c.id FROM c WHERE c.pk = 'p1'", max_item_count=2).by_page()
    seen = []
    async for page in pages:
        seen.extend([x async for x in page])
    assert seen == ["a01", "a08", "a15", "a22"]

    feed = [x async for x in c.query_items_change_feed(start_time="Beginning")]
    assert sorted(x["id"] for x in feed) == sorted(f"a{i:02d}" for i in range(25))

    results = await c.execute_item_batch([
        ("create", ({"id": "b1", "pk": "p1"},)),
        ("upsert", ({"id": "a01", "pk": "p1", "n": -1},)),
    ], partition_key="p1")
    assert [r["statusCode"] for r in results] == [201, 200]
    await c.delete_item("b1", partition_key="p1")
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        await c.read_item("b1", partition_key="p1")
