"""Items: CRUD, upsert, patch (conditional too), transactional batch, TTL, session tokens."""

import time

import pytest
from azure.core import MatchConditions
from azure.cosmos import exceptions

from conftest import make_container, new_client


def test_crud_and_upsert(container):
    created = container.create_item({"id": "a", "pk": "p1", "n": 1})
    assert created["n"] == 1 and created["_etag"] and created["_rid"] and created["_ts"] > 0
    with pytest.raises(exceptions.CosmosResourceExistsError):
        container.create_item({"id": "a", "pk": "p1"})
    # the same id in another logical partition is another item
    container.create_item({"id": "a", "pk": "p2", "n": 9})
    got = container.read_item("a", partition_key="p1")
    assert got["n"] == 1 and got["_etag"] == created["_etag"]

    replaced = container.replace_item("a", {"id": "a", "pk": "p1", "n": 2})
    assert replaced["n"] == 2 and replaced["_etag"] != created["_etag"]
    with pytest.raises(exceptions.CosmosAccessConditionFailedError) as err:
        container.replace_item("a", {"id": "a", "pk": "p1", "n": 3},
                               etag=created["_etag"], match_condition=MatchConditions.IfNotModified)
    assert err.value.status_code == 412

    up = container.upsert_item({"id": "a", "pk": "p1", "n": 4})
    assert up["n"] == 4
    new = container.upsert_item({"id": "b", "pk": "p1", "n": 5})
    assert new["n"] == 5
    assert sorted(i["id"] for i in container.read_all_items()) == ["a", "a", "b"]

    container.delete_item("a", partition_key="p1")
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("a", partition_key="p1")
    assert container.read_item("a", partition_key="p2")["n"] == 9
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.delete_item("zzz", partition_key="p1")


def test_read_items_many(container):
    for i in range(6):
        container.create_item({"id": f"i{i}", "pk": f"p{i % 3}", "n": i})
    got = container.read_items([("i0", "p0"), ("i4", "p1"), ("missing", "p2"), ("i5", "p2")])
    assert sorted(i["n"] for i in got) == [0, 4, 5]


def test_patch_operations(container):
    container.create_item({"id": "x", "pk": "p", "count": 1, "tags": ["a"], "old": True, "obj": {"k": 1}})
    patched = container.patch_item("x", "p", patch_operations=[
        {"op": "incr", "path": "/count", "value": 5},
        {"op": "add", "path": "/tags/-", "value": "b"},
        {"op": "remove", "path": "/old"},
        {"op": "set", "path": "/obj/k", "value": 2},
        {"op": "replace", "path": "/count", "value": 10},
        {"op": "move", "from": "/obj", "path": "/moved"},
    ])
    assert patched["count"] == 10 and patched["tags"] == ["a", "b"]
    assert "old" not in patched and "obj" not in patched and patched["moved"] == {"k": 2}
    assert container.read_item("x", "p")["moved"] == {"k": 2}


def test_conditional_patch(container):
    container.create_item({"id": "x", "pk": "p", "state": "open", "n": 0})
    ok = container.patch_item("x", "p", patch_operations=[{"op": "incr", "path": "/n", "value": 1}],
                              filter_predicate="FROM c WHERE c.state = 'open'")
    assert ok["n"] == 1
    with pytest.raises(exceptions.CosmosAccessConditionFailedError) as err:
        container.patch_item("x", "p", patch_operations=[{"op": "incr", "path": "/n", "value": 1}],
                             filter_predicate="FROM c WHERE c.state = 'closed'")
    assert err.value.status_code == 412
    assert container.read_item("x", "p")["n"] == 1
    # a removed path that does not exist is a 400
    with pytest.raises(exceptions.CosmosHttpResponseError) as err:
        container.patch_item("x", "p", patch_operations=[{"op": "remove", "path": "/nope"}])
    assert err.value.status_code == 400


def test_transactional_batch(container):
    container.create_item({"id": "existing", "pk": "b", "v": 0})
    results = container.execute_item_batch([
        ("create", ({"id": "n1", "pk": "b", "v": 1},)),
        ("upsert", ({"id": "n2", "pk": "b", "v": 2},)),
        ("replace", ("existing", {"id": "existing", "pk": "b", "v": 10})),
        ("read", ("n1",)),
        ("patch", ("n2", [{"op": "incr", "path": "/v", "value": 5}])),
    ], partition_key="b")
    assert [r["statusCode"] for r in results] == [201, 201, 200, 200, 200]
    assert results[3]["resourceBody"]["v"] == 1
    assert container.read_item("n2", "b")["v"] == 7

    # a failing operation rolls the whole batch back
    with pytest.raises(exceptions.CosmosBatchOperationError) as err:
        container.execute_item_batch([
            ("create", ({"id": "n3", "pk": "b"},)),
            ("upsert", ({"id": "n1", "pk": "b", "v": 100},)),
            ("create", ({"id": "existing", "pk": "b"},)),  # 409
            ("delete", ("n2",)),
        ], partition_key="b")
    e = err.value
    assert e.error_index == 2
    statuses = [r["statusCode"] for r in e.operation_responses]
    assert statuses == [424, 424, 409, 424]
    assert container.read_item("n1", "b")["v"] == 1
    assert container.read_item("n2", "b")["v"] == 7
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        container.read_item("n3", "b")


def test_ttl_container_default_and_item(database):
    c = make_container(database, default_ttl=2)
    try:
        assert c.read()["defaultTtl"] == 2
        c.create_item({"id": "short", "pk": "p"})
        c.create_item({"id": "forever", "pk": "p", "ttl": -1})
        c.create_item({"id": "longer", "pk": "p", "ttl": 60})
        deadline = time.time() + 20
        while time.time() < deadline:
            ids = sorted(i["id"] for i in c.query_items("SELECT * FROM c", partition_key="p"))
            if ids == ["forever", "longer"]:
                break
            time.sleep(0.5)
        assert ids == ["forever", "longer"]
        with pytest.raises(exceptions.CosmosResourceNotFoundError):
            c.read_item("short", "p")
    finally:
        database.delete_container(c)


def test_ttl_per_item_without_default(database):
    c = make_container(database, default_ttl=-1)
    try:
        c.create_item({"id": "gone", "pk": "p", "ttl": 1})
        c.create_item({"id": "stays", "pk": "p"})
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                c.read_item("gone", "p")
            except exceptions.CosmosResourceNotFoundError:
                break
            time.sleep(0.5)
        else:
            pytest.fail("item with ttl 1 still readable after 20 s")
        assert c.read_item("stays", "p")["id"] == "stays"
    finally:
        database.delete_container(c)


def test_session_token_round_trip(container):
    headers = {}
    container.create_item({"id": "s", "pk": "p", "v": 1},
                          response_hook=lambda h, _: headers.update({k.lower(): v for k, v in h.items()}))
    token = headers["x-ms-session-token"]
    assert ":" in token and "#" in token
    # a second client, handed the token, reads its own write
    sent = []
    with new_client() as other:
        c2 = other.get_database_client(container.container_link.split("/")[1]).get_container_client(container.id)
        got = c2.read_item("s", "p", session_token=token,
                           raw_request_hook=lambda r: sent.append(r.http_request.headers.get("x-ms-session-token")))
    assert got["v"] == 1
    assert sent[-1] == token
    # the client tracks the token of its last write on its own
    container.upsert_item({"id": "s", "pk": "p", "v": 2}, response_hook=lambda h, _: headers.update({k.lower(): v for k, v in h.items()}))
    newer = headers["x-ms-session-token"]
    assert newer != token
    sent.clear()
    container.read_item("s", "p", raw_request_hook=lambda r: sent.append(r.http_request.headers.get("x-ms-session-token")))
    assert sent[-1] == newer


def test_consistency_level_override(container):
    """A client may ask for a weaker consistency than the account's (Session); a stronger one is
    refused with 400, as the service refuses it (the SDK's own test_user_configs expects so)."""
    db_id = container.container_link.split("/")[1]
    container.upsert_item({"id": "c", "pk": "p"})
    with new_client(consistency_level="Eventual") as weak:
        assert weak.get_database_client(db_id).get_container_client(container.id).read_item("c", "p")["id"] == "c"
    with new_client(consistency_level="Strong") as strong:
        c = strong.get_database_client(db_id).get_container_client(container.id)
        with pytest.raises(exceptions.CosmosHttpResponseError) as err:
            c.read_item("c", "p")
        assert err.value.status_code == 400
        assert "stronger than the service consistency level" in err.value.message
        with pytest.raises(exceptions.CosmosHttpResponseError) as err:
            strong.create_database("never-created")
        assert err.value.status_code == 400
