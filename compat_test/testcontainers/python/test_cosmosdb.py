import socket
import ssl

from azure.cosmos import PartitionKey
from testcontainers.community.cosmosdb import CosmosDBNoSQLEndpointContainer

IMAGE = "cosmos-emulator:local"
# Any base64 key of 64 bytes; the module's default is the emulator's well-known key.
KEY = "dGVzdGNvbnRhaW5lcnMtcHl0aG9uIGtleSBmb3IgdGhlIENvc21vcyBEQiBlbXVsYXRvciwgNjQgYnl0ZXMuLg=="


def create_and_read(client, database_id):
    db = client.create_database_if_not_exists(database_id)
    container = db.create_container_if_not_exists(id="products", partition_key=PartitionKey(path="/category"))
    container.upsert_item({"id": "1", "category": "gear", "name": "tent", "quantity": 3})
    assert container.read_item("1", partition_key="gear")["name"] == "tent"
    found = list(
        container.query_items(
            "SELECT * FROM c WHERE c.quantity > @min",
            parameters=[{"name": "@min", "value": 1}],
            enable_cross_partition_query=True,
        )
    )
    assert [item["id"] for item in found] == ["1"]


def test_host_port_8081():
    # As the module starts Microsoft's image: host port 8081, https.
    with CosmosDBNoSQLEndpointContainer(image=IMAGE).with_env("PROTOCOL", "https") as emulator:
        assert emulator.url == f"https://{emulator.host}:8081"
        create_and_read(emulator.insecure_sync_client(), "testdb")


def test_random_port_key_and_certificate():
    # bind_ports=False: a free host port; the account the client reads
    # advertises that host and port. The module passes its key to the
    # container, and the certificate it copies out of the container is the
    # one the emulator serves.
    with CosmosDBNoSQLEndpointContainer(image=IMAGE, bind_ports=False, key=KEY).with_env("PROTOCOL", "https") as emulator:
        assert emulator.port != 8081
        client = emulator.insecure_sync_client()
        account = client.get_database_account()
        assert [loc["databaseAccountEndpoint"] for loc in account.WritableLocations] == [emulator.url + "/"]
        create_and_read(client, "testdb")

        tls = ssl.create_default_context(cadata=emulator.server_certificate_pem.decode())
        with socket.create_connection((emulator.host, int(emulator.port))) as sock:
            with tls.wrap_socket(sock, server_hostname=emulator.host) as conn:
                assert conn.version() is not None
