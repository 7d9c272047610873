"""Users, permissions and resource tokens: a client built from a resource token reads what its
permission allows and gets 403 elsewhere."""

import pytest
from azure.cosmos import exceptions

from conftest import make_container, new_client, unique


def test_users_and_resource_tokens(database):
    readable = make_container(database)
    other = make_container(database)
    try:
        readable.create_item({"id": "r1", "pk": "a", "v": 1})
        readable.create_item({"id": "r2", "pk": "b", "v": 2})
        other.create_item({"id": "o1", "pk": "a"})

        user = database.create_user({"id": unique("user")})
        assert user.read()["id"] == user.id
        assert user.id in [u["id"] for u in database.list_users()]
        perm = user.create_permission({"id": "read-one", "permissionMode": "Read",
                                       "resource": readable.container_link})
        token = perm.properties["_token"]
        assert token.startswith("type=resource")
        assert [p["id"] for p in user.list_permissions()] == ["read-one"]

        with new_client(credential={readable.container_link: token}) as tclient:
            db = tclient.get_database_client(database.id)
            tc = db.get_container_client(readable.id)
            assert tc.read_item("r1", "a")["v"] == 1
            assert sorted(i["id"] for i in tc.query_items("SELECT * FROM c", enable_cross_partition_query=True)) == ["r1", "r2"]
            with pytest.raises(exceptions.CosmosHttpResponseError) as err:
                tc.upsert_item({"id": "r3", "pk": "a"})
            assert err.value.status_code == 403
            with pytest.raises(exceptions.CosmosHttpResponseError) as err:
                db.get_container_client(other.id).read_item("o1", "a")
            assert err.value.status_code == 403

        # an All permission scoped to one partition key
        perm2 = user.create_permission({"id": "write-a", "permissionMode": "All",
                                        "resource": readable.container_link, "resourcePartitionKey": ["a"]})
        with new_client(credential={readable.container_link: perm2.properties["_token"]}) as tclient:
            tc = tclient.get_database_client(database.id).get_container_client(readable.id)
            assert tc.upsert_item({"id": "r3", "pk": "a", "v": 3})["v"] == 3
            with pytest.raises(exceptions.CosmosHttpResponseError) as err:
                tc.upsert_item({"id": "r4", "pk": "b"})
            assert err.value.status_code == 403
        assert readable.read_item("r3", "a")["v"] == 3

        user.delete_permission("read-one")
        assert [p["id"] for p in user.list_permissions()] == ["write-a"]
        database.delete_user(user.id)
        with pytest.raises(exceptions.CosmosResourceNotFoundError):
            database.get_user_client(user.id).read()
    finally:
        database.delete_container(readable)
        database.delete_container(other)
