// Triggers through @azure/cosmos: the JS SDK's trigger.spec.ts triggers
// and the docs' validateToDoItemTimestamp pre-trigger and updateMetadata
// post-trigger (/work/shared/server-side-js.md §3, §7), with the results
// they document. Prints "OK <name>" per check; compat_test's
// TestJSTriggers compares the lines.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
//
// Exit status 0 when every check passed, 1 otherwise.
import assert from "node:assert/strict";
import { CosmosClient, TriggerOperation, TriggerType } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("triggers", 120);
const ok = (name) => console.log(`OK ${name}`);

// trigger.spec.ts
const specTriggers = [
  {
    id: "t1",
    body: function () {
      const item = getContext().getRequest().getBody();
      item.id = item.id.toUpperCase() + "t1";
      getContext().getRequest().setBody(item);
    },
    triggerType: TriggerType.Pre,
    triggerOperation: TriggerOperation.All,
  },
  { id: "t2", body: "function() { }", triggerType: TriggerType.Pre, triggerOperation: TriggerOperation.All },
  {
    id: "t3",
    body: function () {
      const item = getContext().getRequest().getBody();
      item.id = item.id.toLowerCase() + "t3";
      getContext().getRequest().setBody(item);
    },
    triggerType: TriggerType.Pre,
    triggerOperation: TriggerOperation.All,
  },
  {
    id: "response1",
    body: function () {
      const prebody = getContext().getRequest().getBody();
      if (prebody.id !== "TESTING POST TRIGGERt1") throw new Error("name mismatch");
      const postbody = getContext().getResponse().getBody();
      if (postbody.id !== "TESTING POST TRIGGERt1") throw new Error("name mismatch");
    },
    triggerType: TriggerType.Post,
    triggerOperation: TriggerOperation.All,
  },
  { id: "triggerOpType", body: "function() { }", triggerType: TriggerType.Post, triggerOperation: TriggerOperation.Delete },
];

// the docs' samples
function validateToDoItemTimestamp() {
  var context = getContext();
  var request = context.getRequest();
  var itemToCreate = request.getBody();
  if (!("timestamp" in itemToCreate)) {
    var ts = new Date();
    itemToCreate["timestamp"] = ts.getTime();
  }
  request.setBody(itemToCreate);
}

function updateMetadata() {
  var context = getContext();
  var container = context.getCollection();
  var response = context.getResponse();
  var createdItem = response.getBody();
  var filterQuery = 'SELECT * FROM root r WHERE r.id = "_metadata"';
  var accept = container.queryDocuments(container.getSelfLink(), filterQuery, updateMetadataCallback);
  if (!accept) throw "Unable to update metadata, abort";
  function updateMetadataCallback(err, items, responseOptions) {
    if (err) throw new Error("Error" + err.message);
    if (items.length != 1) throw "Unable to find metadata document";
    var metadataItem = items[0];
    metadataItem.createdItems += 1;
    metadataItem.createdNames += " " + createdItem.id;
    var accept = container.replaceDocument(metadataItem._self, metadataItem, function (err, itemReplaced) {
      if (err) throw "Unable to update metadata, abort";
    });
    if (!accept) throw "Unable to update metadata, abort";
    return;
  }
}

// the .NET emulator tests' setJobNumber: setBody before the query
// callback mutates the same object
function setJobNumber() {
  var context = getContext();
  var request = context.getRequest();
  var containerLink = context.getCollection().getSelfLink();
  var doc = request.getBody();
  var query = { query: "SELECT VALUE MAX(r.jobNumber) FROM root r WHERE r.investigationKey = @k", parameters: [{ name: "@k", value: doc.investigationKey }] };
  var accepted = context.getCollection().queryDocuments(containerLink, query, function (err, items) {
    if (err) throw err;
    doc.jobNumber = (items.length > 0 && items[0] !== undefined ? items[0] : 0) + 1;
  });
  if (!accepted) throw "not accepted";
  request.setBody(doc);
}

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
async function rejects(p, status, includes) {
  try {
    await p;
  } catch (err) {
    assert.equal(err.code, status, err.message);
    if (includes) assert.ok(err.message.includes(includes), err.message);
    return err;
  }
  assert.fail("expected a failure");
}

try {
  for (const t of specTriggers) {
    const { resource } = await container.scripts.triggers.create(t);
    assert.equal(resource.body, t.body.toString());
  }
  let { resource } = await container.items.create({ id: "doc1", pk: "p", key: "value" }, { preTriggerInclude: "t1" });
  assert.equal(resource.id, "DOC1t1");
  ({ resource } = await container.items.create({ id: "doc2", pk: "p" }, { preTriggerInclude: "t2" }));
  assert.equal(resource.id, "doc2");
  ({ resource } = await container.items.create({ id: "Doc3", pk: "p", prop: 5 }, { preTriggerInclude: "t3" }));
  assert.equal(resource.id, "doc3t3");
  ({ resource } = await container.items.create({ id: "testing post trigger", pk: "p" }, { preTriggerInclude: "t1", postTriggerInclude: "response1" }));
  assert.equal(resource.id, "TESTING POST TRIGGERt1");
  await rejects(container.items.create({ id: "x", pk: "p" }, { postTriggerInclude: "triggerOpType" }), 400,
    "Trigger 'triggerOpType' was defined with operation type 'Delete', and therefore is invalid for 'Create'.");
  ({ resource } = await container.item("DOC1t1", "p").read());
  assert.equal(resource.key, "value");
  ok("trigger.spec.ts");

  // validateToDoItemTimestamp: a Create pre-trigger stamps the item; it
  // cannot be named on a replace
  await container.scripts.triggers.create({ id: "trgPreValidateToDoItemTimestamp", body: validateToDoItemTimestamp, triggerType: TriggerType.Pre, triggerOperation: TriggerOperation.Create });
  ({ resource } = await container.items.create({ id: "todo", pk: "p", category: "Personal", name: "Groceries" }, { preTriggerInclude: ["trgPreValidateToDoItemTimestamp"] }));
  assert.equal(typeof resource.timestamp, "number");
  await rejects(container.item("todo", "p").replace({ id: "todo", pk: "p" }, { preTriggerInclude: ["trgPreValidateToDoItemTimestamp"] }), 400,
    "was defined with operation type 'Create', and therefore is invalid for 'Replace'.");
  ok("validateToDoItemTimestamp");

  // updateMetadata: the post-trigger's replace commits with the write; with
  // no metadata document it throws and the created item is rolled back
  await container.scripts.triggers.create({ id: "trgPostUpdateMetadata", body: updateMetadata, triggerType: TriggerType.Post, triggerOperation: TriggerOperation.Create });
  await rejects(container.items.create({ id: "orphan", pk: "m" }, { postTriggerInclude: "trgPostUpdateMetadata" }), 400, "Unable to find metadata document");
  assert.equal((await container.item("orphan", "m").read()).statusCode, 404); // item reads do not throw on 404
  await container.items.create({ id: "_metadata", pk: "m", createdItems: 0, createdNames: "" });
  await container.items.create({ id: "first", pk: "m" }, { postTriggerInclude: "trgPostUpdateMetadata" });
  await container.items.create({ id: "second", pk: "m" }, { postTriggerInclude: "trgPostUpdateMetadata" });
  ({ resource } = await container.item("_metadata", "m").read());
  assert.equal(resource.createdItems, 2);
  assert.equal(resource.createdNames, " first second");
  ok("updateMetadata");

  // setJobNumber: the object given to setBody is serialised after the
  // callbacks ran
  await container.scripts.triggers.create({ id: "setJobNumber", body: setJobNumber, triggerType: TriggerType.Pre, triggerOperation: TriggerOperation.Create });
  ({ resource } = await container.items.create({ id: "j1", pk: "j", investigationKey: "k" }, { preTriggerInclude: "setJobNumber" }));
  assert.equal(resource.jobNumber, 1);
  ({ resource } = await container.items.create({ id: "j2", pk: "j", investigationKey: "k" }, { preTriggerInclude: "setJobNumber" }));
  assert.equal(resource.jobNumber, 2);
  ok("setJobNumber");

  // triggers never run unless named
  ({ resource } = await container.items.create({ id: "plain", pk: "p" }));
  assert.equal(resource.id, "plain");
  ok("not named, not run");

  await database.delete();
} catch (err) {
  console.error("FAIL", err);
  process.exit(1);
}
