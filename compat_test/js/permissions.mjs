// Users, permissions, resource tokens and the conflicts feed through
// @azure/cosmos: replays the SDK's own tests (users-permissions.md §4.2):
// user.spec and permission.spec (plain and upsert, and over multiple
// partitions), authorization.spec (functional and integration: clients
// built from resourceTokens keyed by container/item id or link and from a
// permissionFeed, 403 and 401 cases, a partition-key-scoped token) and
// conflict.spec. Prints "PASS <test>" per test; any failed check throws
// (exit status 1). compat_test's TestJSPermissions checks the lines.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        prefix of the database ids to create (required)
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, signedRequest, startWatchdog } from "./emulator.mjs";

const prefix = requireDatabase();
startWatchdog("permissions", 90);

const master = new CosmosClient({ endpoint, key });

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

// expectStatus awaits p and checks it fails with HTTP status code.
async function expectStatus(p, code, what) {
  try {
    await p;
  } catch (err) {
    if (err.code === code) return err;
    throw new Error(`${what}: got ${err.code} (${err.message}), want ${code}`);
  }
  throw new Error(`${what}: succeeded, want ${code}`);
}

let dbCount = 0;
async function freshDatabase() {
  const { database } = await master.databases.create({ id: `${prefix}-${++dbCount}` });
  return database;
}

// ---- user.spec: "Validate User CRUD"
async function userCRUD(isUpsert) {
  const database = await freshDatabase();
  const { resources: users } = await database.users.readAll().fetchAll();
  check(Array.isArray(users), "users is an array");
  const before = users.length;
  const userDef = { id: "new user" };
  const { resource: user } = isUpsert ? await database.users.upsert(userDef) : await database.users.create(userDef);
  check(user.id === userDef.id, "created user id");
  const { resources: after } = await database.users.readAll().fetchAll();
  check(after.length === before + 1, "one more user");
  const { resources: results } = await database.users
    .query({ query: "SELECT * FROM root r WHERE r.id=@id", parameters: [{ name: "@id", value: userDef.id }] })
    .fetchAll();
  check(results.length > 0, "query finds the user");
  user.id = "replaced user";
  const { resource: replaced } = isUpsert ? await database.users.upsert(user) : await database.user(userDef.id).replace(user);
  check(replaced.id === "replaced user", "replaced id");
  check(user.id === replaced.id, "replaced id matches");
  const { resource: read } = await database.user(replaced.id).read();
  check(read.id === replaced.id, "read replaced");
  await database.user(replaced.id).delete();
  await expectStatus(database.user(replaced.id).read(), 404, "read deleted user");
}

// ---- permission.spec: "Validate Permission CRUD"
async function permissionCRUD(isUpsert, multiPartition) {
  const database = await freshDatabase();
  const { container } = await database.containers.create(
    multiPartition ? { id: "coll1", partitionKey: { paths: ["/id"] } } : { id: "coll1" },
  );
  const { user } = await database.users.create({ id: "new user" });
  const { resources: permissions } = await user.permissions.readAll().fetchAll();
  check(Array.isArray(permissions), "permissions is an array");
  const before = permissions.length;
  const permissionDef = { id: "new permission", permissionMode: "read", resource: container.url };
  if (multiPartition) permissionDef.resourcePartitionKey = [1];
  const { resource: permission } = isUpsert
    ? await user.permissions.upsert(permissionDef)
    : await user.permissions.create(permissionDef);
  check(permission.id === permissionDef.id, "created permission id");
  check(typeof permission._token === "string" && permission._token.startsWith("type=resource"), "created permission has a _token");
  if (multiPartition) {
    check(JSON.stringify(permission.resourcePartitionKey) === JSON.stringify([1]), "resourcePartitionKey echoed");
  }
  const { resources: after } = await user.permissions.readAll().fetchAll();
  check(after.length === before + 1, "one more permission");
  const { resources: results } = await user.permissions
    .query({ query: "SELECT * FROM root r WHERE r.id=@id", parameters: [{ name: "@id", value: permissionDef.id }] })
    .fetchAll();
  check(results.length > 0, "query finds the permission");
  permission.permissionMode = "all";
  const { resource: replaced } = isUpsert
    ? await user.permissions.upsert(permission)
    : await user.permission(permissionDef.id).replace(permission);
  check(replaced.permissionMode === "all", "replaced permissionMode echoed as sent");
  check(replaced.id === permissionDef.id, "replaced permission id");
  if (multiPartition) {
    check(JSON.stringify(replaced.resourcePartitionKey) === JSON.stringify([1]), "resourcePartitionKey after replace");
  }
  permission.id = "replaced permission";
  const { resource: renamed } = await user.permission(permissionDef.id).replace(permission);
  check(renamed.id === "replaced permission", "renamed permission");
  const { resource: read } = await user.permission(renamed.id).read();
  check(read.id === renamed.id, "read renamed permission");
  await user.permission(renamed.id).delete();
  await expectStatus(user.permission(renamed.id).read(), 404, "read deleted permission");
}

// ---- functional/authorization.spec: "Validate Authorization"
async function keyOptions() {
  for (const client of [new CosmosClient({ endpoint, key }), new CosmosClient({ endpoint, key: key }), new CosmosClient(`AccountEndpoint=${endpoint};AccountKey=${key};`)]) {
    const { resources } = await client.databases.readAll().fetchAll();
    check(Array.isArray(resources), "databases listed");
  }
}

async function authorizationNameBased(isUpsert) {
  const anonymous = new CosmosClient({ endpoint });
  await expectStatus(anonymous.databases.readAll().fetchAll(), 401, "list databases without credentials");

  const database = await freshDatabase();
  const { container: container1, resource: coll1 } = await database.containers.create({ id: "Validate Authorization container" });
  const { resource: doc1 } = await container1.items.create({ id: "coll1doc1", foo: "bar", key: "value" });
  const { resource: doc2 } = await container1.items.create({ id: "coll1doc2", foo: "bar2", key: "value" });
  const { resource: coll2 } = await database.containers.create({ id: "sample container2" });
  const { user: user1 } = await database.users.create({ id: "user1" });
  const perm = (def) => (isUpsert ? user1.permissions.upsert(def) : user1.permissions.create(def));
  const { resource: permission1 } = await perm({ id: "permission On Coll1", permissionMode: "read", resource: coll1._self });
  const { resource: permission2 } = await perm({ id: "permission On Doc1", permissionMode: "all", resource: doc2._self });
  const { user: user2 } = await database.users.create({ id: "user2" });
  const { resource: permission3 } = await (isUpsert ? user2.permissions.upsert : user2.permissions.create).call(user2.permissions, {
    id: "permission On coll2",
    permissionMode: "all",
    resource: coll2._self,
  });
  for (const p of [permission1, permission2, permission3]) check(typeof p._token === "string", "permission has a _token");

  const resourceTokens = { [coll1.id]: permission1._token, [doc1.id]: permission1._token };
  const col1Client = new CosmosClient({ endpoint, resourceTokens });
  const { resource: readColl } = await col1Client.database(database.id).container(coll1.id).read();
  check(readColl.id === coll1.id, "read container with a resource token");
  await expectStatus(col1Client.database(database.id).container(coll1.id).delete(), 403, "delete container with a Read token");
  const { resources: docs } = await col1Client.database(database.id).container(coll1.id).items.readAll().fetchAll();
  check(docs.length === 2, `read all items with a container token: ${docs.length}`);
  const { resource: readDoc } = await col1Client.database(database.id).container(coll1.id).item(doc1.id, undefined).read();
  check(readDoc.id === doc1.id, "read item with a container token");
  // the item-scoped All token reads its item, not the other one
  const doc2Client = new CosmosClient({ endpoint, resourceTokens: { [doc2.id]: permission2._token, [doc1.id]: permission2._token, [coll1.id]: permission2._token } });
  const { resource: readDoc2 } = await doc2Client.database(database.id).container(coll1.id).item(doc2.id, undefined).read();
  check(readDoc2.id === doc2.id, "read item with its item token");
  await expectStatus(doc2Client.database(database.id).container(coll1.id).item(doc1.id, undefined).read(), 403, "read another item with an item token");
}

async function authorizationOverMultiplePartitions() {
  const database = await freshDatabase();
  const { container } = await database.containers.create({ id: "coll1", partitionKey: { paths: ["/key"] } });
  const { user } = await database.users.create({ id: "user1" });
  const { resource: permission } = await user.permissions.create({
    id: "permission1",
    permissionMode: "all",
    resource: container.url,
    resourcePartitionKey: [1],
  });
  const client = new CosmosClient({ endpoint, resourceTokens: { [container.id]: permission._token } });
  const c = client.database(database.id).container(container.id);
  const { resource: created } = await c.items.create({ id: "document1", key: 1 });
  check(created.id === "document1", "create in the token's partition");
  await expectStatus(c.items.create({ id: "document2", key: 2 }), 403, "create in another partition");
}

async function deleteDocWithContainerToken() {
  const database = await freshDatabase();
  const { container, resource: coll } = await database.containers.create({ id: "coll1", partitionKey: { paths: ["/pk"] } });
  await container.items.create({ id: "doc1", pk: "a" });
  const { user } = await database.users.create({ id: "user1" });
  const { resource: permission } = await user.permissions.create({ id: "p", permissionMode: "all", resource: coll._self });
  const client = new CosmosClient({
    endpoint,
    resourceTokens: { [`dbs/${database.id}/colls/${container.id}`]: permission._token },
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  const res = await client.database(database.id).container(container.id).item("doc1", "a").delete();
  check(res.statusCode === 204, `delete with a container token: ${res.statusCode}`);
}

// ---- integration/authorization.spec: "Authorization"
async function integrationAuthorization() {
  const database = await freshDatabase();
  const { container } = await database.containers.create({ id: "test container", partitionKey: { paths: ["/id"] } });
  const { user: readUser } = await database.users.create({ id: "User With Read Permission" });
  const { user: allUser } = await database.users.create({ id: "User With All Permission" });
  const { resource: readPermission } = await readUser.permissions.create({ id: "Read Permission", permissionMode: "read", resource: container.url });
  const { resource: allPermission } = await allUser.permissions.create({ id: "All Permission", permissionMode: "all", resource: container.url });
  check(allPermission._token && readPermission._token, "tokens");

  const byTokens = new CosmosClient({ endpoint, resourceTokens: { [container.id]: readPermission._token } });
  const { resource: c1 } = await byTokens.database(database.id).container(container.id).read();
  check(c1.id === container.id, "container by resourceTokens");

  const byFeed = new CosmosClient({ endpoint, permissionFeed: [readPermission] });
  const { resource: c2 } = await byFeed.database(database.id).container(container.id).read();
  check(c2.id === container.id, "container by permissionFeed");

  const anonymous = new CosmosClient({ endpoint });
  await expectStatus(anonymous.database(database.id).container(container.id).read(), 401, "container without permission");

  await container.items.create({ id: "document1" });
  const { resource: d } = await byFeed.database(database.id).container(container.id).item("document1", "document1").read();
  check(d.id === "document1", "document by permissionFeed of parent container");
  // a Read token neither writes nor reads the database list
  await expectStatus(byFeed.database(database.id).container(container.id).items.create({ id: "document2" }), 403, "write with a Read token");
  // the SDK finds no token for /dbs in its map and sends "null": 401 (a
  // client sending the container token there gets 403, see the Go tests)
  await expectStatus(byFeed.databases.readAll().fetchAll(), 401, "list databases with a container token map");
  // the All token writes
  const allClient = new CosmosClient({ endpoint, permissionFeed: [allPermission] });
  await allClient.database(database.id).container(container.id).items.upsert({ id: "document2" });
  const { resources: all } = await allClient.database(database.id).container(container.id).items.query("SELECT * FROM c").fetchAll();
  check(all.length === 2, `cross-partition query with a container token: ${all.length}`);
}

// An expired token is a 401: the emulator clock moves past its expiry.
async function expiredToken() {
  const database = await freshDatabase();
  const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/id"] } });
  const { user } = await database.users.create({ id: "u" });
  const { resource: p } = await user.permissions.create(
    { id: "p", permissionMode: "read", resource: container.url },
    { resourceTokenExpirySeconds: 600 },
  );
  const client = new CosmosClient({ endpoint, resourceTokens: { [container.id]: p._token } });
  await client.database(database.id).container(container.id).read();
  const res = await signedRequest("POST", "_emulator/clock", { advanceSeconds: 600 });
  check(res.status === 200, `advance the clock: ${res.status}`);
  await expectStatus(client.database(database.id).container(container.id).read(), 401, "read with an expired token");
  await expectStatus(
    user.permissions.create({ id: "p2", permissionMode: "read", resource: "dbs/x/colls/y" }, { resourceTokenExpirySeconds: 599 }),
    400,
    "expiry below 600",
  );
}

// ---- conflict.spec
async function conflicts() {
  const database = await freshDatabase();
  const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
  const { resources } = await container.conflicts.query("SELECT * from C").fetchNext();
  check(resources.length === 0, "no conflicts");
  const { resources: forced } = await container.conflicts.query("SELECT * from C", { forceQueryPlan: true }).fetchNext();
  check(forced.length === 0, "no conflicts with forceQueryPlan");
  const { resources: all } = await container.conflicts.readAll().fetchAll();
  check(all.length === 0, "conflicts read feed");
}

const tests = [
  ["user CRUD", () => userCRUD(false)],
  ["user CRUD with upsert", () => userCRUD(true)],
  ["permission CRUD", () => permissionCRUD(false, false)],
  ["permission CRUD with upsert", () => permissionCRUD(true, false)],
  ["permission CRUD over multiple partitions", () => permissionCRUD(false, true)],
  ["permission CRUD over multiple partitions with upsert", () => permissionCRUD(true, true)],
  ["should handle all the key options", keyOptions],
  ["should do authorization successfully name based", () => authorizationNameBased(false)],
  ["should do authorization successfully name based with upsert", () => authorizationNameBased(true)],
  ["should do authorization successfully over multiple partitions", authorizationOverMultiplePartitions],
  ["should allow deletion of a doc with container token", deleteDocWithContainerToken],
  ["integration authorization", integrationAuthorization],
  ["expired token", expiredToken],
  ["conflicts", conflicts],
];
for (const [name, fn] of tests) {
  try {
    await fn();
  } catch (err) {
    console.error(`FAIL ${name}: ${err.stack || err}`);
    process.exit(1);
  }
  console.log(`PASS ${name}`);
}
