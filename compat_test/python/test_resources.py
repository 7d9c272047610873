"""Databases and containers: throughput, indexing, unique keys, computed properties, vector and full-text policies."""

import pytest
from azure.cosmos import PartitionKey, ThroughputProperties, exceptions

from conftest import RANGES_BY_THROUGHPUT, control, make_container, unique


def test_database_lifecycle(client):
    name = unique("db")
    db = client.create_database(name, offer_throughput=500)
    try:
        assert db.read()["id"] == name
        assert name in [d["id"] for d in client.list_databases()]
        assert db.get_throughput().offer_throughput == 500
        with pytest.raises(exceptions.CosmosResourceExistsError):
            client.create_database(name)
        again = client.create_database_if_not_exists(name)
        assert again.read()["_rid"] == db.read()["_rid"]
        found = list(client.query_databases(
            query="SELECT * FROM r WHERE r.id = @id", parameters=[{"name": "@id", "value": name}]))
        assert [d["id"] for d in found] == [name]
    finally:
        client.delete_database(name)
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        client.get_database_client(name).read()


@pytest.mark.parametrize("throughput", sorted(RANGES_BY_THROUGHPUT))
def test_container_throughput_and_ranges(database, throughput):
    c = make_container(database, throughput=throughput)
    try:
        assert c.get_throughput().offer_throughput == throughput
        assert len(list(c.read_feed_ranges())) == RANGES_BY_THROUGHPUT[throughput]
        c.replace_throughput(throughput + 100)
        assert c.get_throughput().offer_throughput == throughput + 100
    finally:
        database.delete_container(c)


def test_container_autoscale_throughput(database):
    c = database.create_container(unique("auto"), partition_key=PartitionKey("/pk"),
                                  offer_throughput=ThroughputProperties(auto_scale_max_throughput=4000))
    try:
        tp = c.get_throughput()
        assert tp.auto_scale_max_throughput == 4000
        c.replace_throughput(ThroughputProperties(auto_scale_max_throughput=5000))
        assert c.get_throughput().auto_scale_max_throughput == 5000
    finally:
        database.delete_container(c)


def test_shared_database_throughput(client):
    db = client.create_database(unique("shared"), offer_throughput=1000)
    try:
        c = db.create_container(unique("c"), partition_key=PartitionKey("/pk"))
        assert db.get_throughput().offer_throughput == 1000
        # the container has no offer of its own (azure-cosmos 4.17.1's ContainerProxy.get_throughput
        # cannot say so: its synthetic 404 for an empty offer list makes it re-read the container
        # through a link it does not have, an AttributeError whatever the server; so ask the REST API)
        offers = control("GET", "offers")["Offers"]
        rid = c.read()["_rid"]
        assert [o for o in offers if o["offerResourceId"] == rid] == []
        assert [o["content"]["offerThroughput"] for o in offers
                if o["offerResourceId"] == db.read()["_rid"]] == [1000]
        db.replace_throughput(1200)
        assert db.get_throughput().offer_throughput == 1200
    finally:
        client.delete_database(db)


def test_indexing_policy_round_trip_and_replace(database):
    policy = {
        "indexingMode": "consistent",
        "automatic": True,
        "includedPaths": [{"path": "/name/?"}],
        "excludedPaths": [{"path": "/*"}, {"path": '/"_etag"/?'}],
        "compositeIndexes": [[{"path": "/name", "order": "ascending"}, {"path": "/age", "order": "descending"}]],
    }
    c = make_container(database, indexing_policy=policy)
    try:
        got = c.read()["indexingPolicy"]
        assert got["indexingMode"] == "consistent"
        assert {"path": "/name/?"} in [{"path": p["path"]} for p in got["includedPaths"]]
        assert got["compositeIndexes"][0][1] == {"path": "/age", "order": "descending"}
        for i, (name, age) in enumerate([("b", 1), ("a", 2), ("a", 3)]):
            c.create_item({"id": str(i), "pk": "p", "name": name, "age": age})
        rows = list(c.query_items("SELECT VALUE c.id FROM c ORDER BY c.name ASC, c.age DESC", partition_key="p"))
        assert rows == ["2", "1", "0"]
        database.replace_container(c, partition_key=PartitionKey("/pk"),
                                   indexing_policy={"indexingMode": "consistent", "includedPaths": [{"path": "/*"}],
                                                    "excludedPaths": [{"path": "/secret/*"}]})
        got = c.read()["indexingPolicy"]
        assert [p["path"] for p in got["excludedPaths"]][:1] == ["/secret/*"]
    finally:
        database.delete_container(c)


def test_unique_keys_conflict(database):
    c = make_container(database, unique_key_policy={"uniqueKeys": [{"paths": ["/email"]}]})
    try:
        assert c.read()["uniqueKeyPolicy"]["uniqueKeys"][0]["paths"] == ["/email"]
        c.create_item({"id": "1", "pk": "a", "email": "x@example.com"})
        with pytest.raises(exceptions.CosmosResourceExistsError) as err:
            c.create_item({"id": "2", "pk": "a", "email": "x@example.com"})
        assert err.value.status_code == 409
        # unique per logical partition: another partition key may reuse it
        c.create_item({"id": "2", "pk": "b", "email": "x@example.com"})
        with pytest.raises(exceptions.CosmosResourceExistsError):
            c.upsert_item({"id": "3", "pk": "b", "email": "x@example.com"})
        assert len(list(c.query_items("SELECT * FROM c", enable_cross_partition_query=True))) == 2
    finally:
        database.delete_container(c)


def test_computed_properties(database):
    computed = [{"name": "cp_lower", "query": "SELECT VALUE LOWER(c.name) FROM c"}]
    c = make_container(database, computed_properties=computed)
    try:
        assert c.read()["computedProperties"] == computed
        c.create_item({"id": "1", "pk": "a", "name": "ALICE"})
        c.create_item({"id": "2", "pk": "a", "name": "Bob"})
        # computed properties are not stored with the item, only queryable
        assert "cp_lower" not in c.read_item("1", "a")
        rows = list(c.query_items("SELECT c.id, c.cp_lower FROM c WHERE c.cp_lower = 'alice'", partition_key="a"))
        assert rows == [{"id": "1", "cp_lower": "alice"}]
    finally:
        database.delete_container(c)


VECTOR_POLICY = {"vectorEmbeddings": [
    {"path": "/embedding", "dataType": "float32", "distanceFunction": "cosine", "dimensions": 3}]}
FULL_TEXT_POLICY = {"defaultLanguage": "en-US", "fullTextPaths": [{"path": "/text", "language": "en-US"}]}


def test_vector_and_full_text_policies(database):
    indexing = {
        "indexingMode": "consistent",
        "includedPaths": [{"path": "/*"}],
        "excludedPaths": [{"path": "/embedding/*"}],
        "vectorIndexes": [{"path": "/embedding", "type": "flat"}],
        "fullTextIndexes": [{"path": "/text"}],
    }
    c = make_container(database, vector_embedding_policy=VECTOR_POLICY,
                       full_text_policy=FULL_TEXT_POLICY, indexing_policy=indexing)
    try:
        props = c.read()
        assert props["vectorEmbeddingPolicy"] == VECTOR_POLICY
        assert props["fullTextPolicy"] == FULL_TEXT_POLICY
        assert props["indexingPolicy"]["vectorIndexes"] == [{"path": "/embedding", "type": "flat"}]
        assert props["indexingPolicy"]["fullTextIndexes"] == [{"path": "/text"}]
    finally:
        database.delete_container(c)
    # a vector index without its embedding in the policy is refused, as on the service
    with pytest.raises(exceptions.CosmosHttpResponseError) as err:
        make_container(database, indexing_policy={"vectorIndexes": [{"path": "/v", "type": "flat"}]})
    assert err.value.status_code == 400


def test_container_query_and_delete(database):
    c = make_container(database)
    cid = c.id
    assert cid in [x["id"] for x in database.list_containers()]
    found = list(database.query_containers("SELECT * FROM r WHERE r.id = @id",
                                           parameters=[{"name": "@id", "value": cid}]))
    assert len(found) == 1 and found[0]["partitionKey"]["paths"] == ["/pk"]
    database.delete_container(cid)
    with pytest.raises(exceptions.CosmosResourceNotFoundError):
        database.get_container_client(cid).read()
