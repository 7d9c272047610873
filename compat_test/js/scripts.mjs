// Stored procedures through @azure/cosmos: the well-known examples of
// /work/shared/server-side-js.md §7 (Microsoft's docs, the
// azure-cosmosdb-js-server samples and the JS SDK's own sproc tests) with
// the results they document. Prints "OK <name>" per check; compat_test's
// TestJSStoredProcedures compares the lines.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
//
// Exit status 0 when every check passed, 1 otherwise.
import assert from "node:assert/strict";
import { CosmosClient, PartitionKeyKind } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("scripts", 240);

const ok = (name) => console.log(`OK ${name}`);

// ---- the scripts, as published (function bodies are sent as fn.toString())

function helloWorld() {
  var context = getContext();
  var response = context.getResponse();
  response.setBody("Hello, World");
}

function createToDoItems(items) {
  var collection = getContext().getCollection();
  var collectionLink = collection.getSelfLink();
  var count = 0;
  if (!items) throw new Error("The array is undefined or null.");
  var numItems = items.length;
  if (numItems == 0) {
    getContext().getResponse().setBody(0);
    return;
  }
  tryCreate(items[count], callback);
  function tryCreate(item, callback) {
    var options = { disableAutomaticIdGeneration: false };
    var isAccepted = collection.createDocument(collectionLink, item, options, callback);
    if (!isAccepted) getContext().getResponse().setBody(count);
  }
  function callback(err, item, options) {
    if (err) throw err;
    count++;
    if (count >= numItems) {
      getContext().getResponse().setBody(count);
    } else {
      tryCreate(items[count], callback);
    }
  }
}

function bulkImport(docs) {
  var collection = getContext().getCollection();
  var collectionLink = collection.getSelfLink();
  var count = 0;
  if (!docs) throw new Error("The array is undefined or null.");
  var docsLength = docs.length;
  if (docsLength == 0) {
    getContext().getResponse().setBody(0);
    return;
  }
  tryCreate(docs[count], callback);
  function tryCreate(doc, callback) {
    var isAccepted = collection.createDocument(collectionLink, doc, callback);
    if (!isAccepted) getContext().getResponse().setBody(count);
  }
  function callback(err, doc, options) {
    if (err) throw err;
    count++;
    if (count >= docsLength) {
      getContext().getResponse().setBody(count);
    } else {
      tryCreate(docs[count], callback);
    }
  }
}

function tradePlayers(playerId1, playerId2) {
  var context = getContext();
  var container = context.getCollection();
  var response = context.getResponse();
  var player1Item, player2Item;
  var filterQuery = { query: "SELECT * FROM Players p where p.id = @playerId1", parameters: [{ name: "@playerId1", value: playerId1 }] };
  var accept = container.queryDocuments(container.getSelfLink(), filterQuery, {}, function (err, items, responseOptions) {
    if (err) throw new Error("Error" + err.message);
    if (items.length != 1) throw "Unable to find both names";
    player1Item = items[0];
    var filterQuery2 = { query: "SELECT * FROM Players p where p.id = @playerId2", parameters: [{ name: "@playerId2", value: playerId2 }] };
    var accept2 = container.queryDocuments(container.getSelfLink(), filterQuery2, {}, function (err2, items2, responseOptions2) {
      if (err2) throw new Error("Error" + err2.message);
      if (items2.length != 1) throw "Unable to find both names";
      player2Item = items2[0];
      swapTeams(player1Item, player2Item);
      return;
    });
    if (!accept2) throw "Unable to read player details, abort ";
  });
  if (!accept) throw "Unable to read player details, abort ";
  function swapTeams(player1, player2) {
    var player2NewTeam = player1.team;
    player1.team = player2.team;
    player2.team = player2NewTeam;
    var accept = container.replaceDocument(player1._self, player1, function (err, itemReplaced) {
      if (err) throw "Unable to update player 1, abort ";
      var accept2 = container.replaceDocument(player2._self, player2, function (err, itemReplaced) {
        if (err) throw "Unable to update player 2, abort";
      });
      if (!accept2) throw "Unable to update player 2, abort";
    });
    if (!accept) throw "Unable to update player 1, abort";
  }
}

function async_sample() {
  const ERROR_CODE = { NotAccepted: 429 };
  const asyncHelper = {
    queryDocuments(sqlQuery, options) {
      return new Promise((resolve, reject) => {
        const isAccepted = __.queryDocuments(__.getSelfLink(), sqlQuery, options, (err, feed, options) => {
          if (err) reject(err);
          resolve({ feed, options });
        });
        if (!isAccepted) reject(new Error(ERROR_CODE.NotAccepted, "__.queryDocuments was not accepted."));
      });
    },
    replaceDocument(doc) {
      return new Promise((resolve, reject) => {
        const isAccepted = __.replaceDocument(doc._self, doc, (err, result, options) => {
          if (err) reject(err);
          resolve({ result, options });
        });
        if (!isAccepted) reject(new Error(ERROR_CODE.NotAccepted, "__.replaceDocument was not accepted."));
      });
    },
  };
  async function main() {
    let continuation;
    do {
      let { feed, options } = await asyncHelper.queryDocuments("SELECT * from c", { continuation, pageSize: 2 });
      for (let doc of feed) {
        doc.newProp = 1;
        await asyncHelper.replaceDocument(doc);
      }
      continuation = options.continuation;
    } while (continuation);
  }
  main().catch((err) => getContext().abort(err));
}

// asyncAbort replaces a document, then fails a replace on a stale etag:
// the rejection reaches getContext().abort, which rolls everything back.
function asyncAbort() {
  const replace = (doc, options) =>
    new Promise((resolve, reject) => {
      __.replaceDocument(doc._self, doc, options, (err, result) => (err ? reject(err) : resolve(result)));
    });
  async function main() {
    const docs = await new Promise((resolve, reject) =>
      __.queryDocuments(__.getSelfLink(), "SELECT * FROM c", (err, feed) => (err ? reject(err) : resolve(feed))),
    );
    docs[0].touched = true;
    await replace(docs[0], {});
    await replace(docs[1], { etag: '"stale"' });
  }
  main().catch((err) => getContext().abort(err));
}

function simple(prefix) {
  var collection = getContext().getCollection();
  var isAccepted = collection.queryDocuments(collection.getSelfLink(), "SELECT * FROM root r", function (err, feed, options) {
    if (err) throw err;
    if (!feed || !feed.length) getContext().getResponse().setBody("no docs found");
    else getContext().getResponse().setBody(prefix + JSON.stringify(feed[0]));
  });
  if (!isAccepted) throw new Error("The query was not accepted by the server.");
}

function count(filterQuery, continuationToken) {
  var collection = getContext().getCollection();
  var maxResult = 25;
  var result = 0;
  tryQuery(continuationToken);
  function tryQuery(nextContinuationToken) {
    var responseOptions = { continuation: nextContinuationToken, pageSize: maxResult };
    if (result >= maxResult || !query(responseOptions)) {
      setBody(nextContinuationToken);
    }
  }
  function query(responseOptions) {
    return filterQuery && filterQuery.length
      ? collection.queryDocuments(collection.getSelfLink(), filterQuery, responseOptions, onReadDocuments)
      : collection.readDocuments(collection.getSelfLink(), responseOptions, onReadDocuments);
  }
  function onReadDocuments(err, docFeed, responseOptions) {
    if (err) throw "Error while reading document: " + err;
    result += docFeed.length;
    if (responseOptions.continuation) {
      tryQuery(responseOptions.continuation);
    } else {
      setBody(null);
    }
  }
  function setBody(continuationToken) {
    var body = { count: result, continuationToken: continuationToken };
    getContext().getResponse().setBody(body);
  }
}

function bulkDeleteSproc(query) {
  var collection = getContext().getCollection();
  var collectionLink = collection.getSelfLink();
  var response = getContext().getResponse();
  var responseBody = { deleted: 0, continuation: true };
  if (!query) throw new Error("The query is undefined or null.");
  tryQueryAndDelete();
  function tryQueryAndDelete(continuation) {
    var requestOptions = { continuation: continuation };
    var isAccepted = collection.queryDocuments(collectionLink, query, requestOptions, function (err, retrievedDocs, responseOptions) {
      if (err) throw err;
      if (retrievedDocs.length > 0) {
        tryDelete(retrievedDocs);
      } else if (responseOptions.continuation) {
        tryQueryAndDelete(responseOptions.continuation);
      } else {
        responseBody.continuation = false;
        response.setBody(responseBody);
      }
    });
    if (!isAccepted) response.setBody(responseBody);
  }
  function tryDelete(documents) {
    if (documents.length > 0) {
      var isAccepted = collection.deleteDocument(documents[0]._self, {}, function (err, responseOptions) {
        if (err) throw err;
        responseBody.deleted++;
        documents.shift();
        tryDelete(documents);
      });
      if (!isAccepted) response.setBody(responseBody);
    } else {
      tryQueryAndDelete();
    }
  }
}

// the JS SDK's sproc.spec.ts scripts
const storedProcedure1 = function () {
  for (var i = 0; i < 1000; i++) {
    const item = getContext().getResponse().getBody();
    if (i > 0 && item !== i - 1) throw "body mismatch";
    getContext().getResponse().setBody(i);
  }
};
const storedProcedure2 = function () {
  for (var i = 0; i < 10; i++) getContext().getResponse().appendValue("Body", i);
};
const storedProcedure3 = function (input) {
  getContext().getResponse().setBody("a" + input.temp);
};
const querySproc = function () {
  var context = getContext();
  var container = context.getCollection();
  var response = context.getResponse();
  var isAccepted = container.queryDocuments(container.getSelfLink(), "SELECT * FROM root r", function (err, documents, responseOptions) {
    if (err) throw err;
    response.setBody(documents);
  });
  if (!isAccepted) throw "Unable to read documents";
};
const logSproc = function () {
  console.log("The value of %s is %s.", "x", 1);
};
const crossPartition = function () {
  __.createDocument(__.getSelfLink(), { id: "x", pk: "other" }, function (err) {
    if (err) throw new Error("Error" + err.message);
  });
};
const throwNotFound = function () {
  __.readDocument(__.getAltLink() + "/docs/missing", function (err) {
    if (err) throw err;
  });
};

// ---- the checks

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
const sprocs = container.scripts.storedProcedures;
async function define(id, fn) {
  const { resource } = await sprocs.create({ id, body: fn });
  assert.equal(resource.body, fn.toString());
  return container.scripts.storedProcedure(id);
}
async function rejects(p, status, substatus, includes) {
  try {
    await p;
  } catch (err) {
    assert.equal(err.code, status, err.message);
    if (substatus !== undefined) assert.equal(err.substatus, substatus, err.message);
    if (includes) assert.ok(err.message.includes(includes), err.message);
    return err;
  }
  assert.fail("expected a failure");
}
async function allDocs(pk) {
  const { resources } = await container.items.query("SELECT * FROM c", { partitionKey: pk }).fetchAll();
  return resources;
}

try {
  // helloWorld
  let s = await define("helloWorld", helloWorld);
  let { resource } = await s.execute("p", ["World"]);
  assert.equal(resource, "Hello, World");
  ok("helloWorld");

  // createToDoItems: every item in the request's partition
  s = await define("createToDoItems", createToDoItems);
  const todos = [
    { category: "Personal", name: "Groceries", description: "Pick up strawberries", isComplete: false },
    { category: "Personal", name: "Doctor", description: "Make appointment for check up", isComplete: false },
  ];
  const todoContainer = (await database.containers.create({ id: "todo", partitionKey: { paths: ["/category"] } })).container;
  await todoContainer.scripts.storedProcedures.create({ id: "createToDoItems", body: createToDoItems });
  ({ resource } = await todoContainer.scripts.storedProcedure("createToDoItems").execute("Personal", [todos]));
  assert.equal(resource, 2);
  const created = (await todoContainer.items.query("SELECT * FROM c").fetchAll()).resources;
  assert.equal(created.length, 2);
  assert.ok(created.every((d) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(d.id)), JSON.stringify(created));
  await rejects(todoContainer.scripts.storedProcedure("createToDoItems").execute("Personal", []), 400, undefined, "The array is undefined or null.");
  ok("createToDoItems");

  // bulkImport: isAccepted turns false at the bounds; the client resumes
  // with the rest until everything is in
  s = await define("bulkImport", bulkImport);
  ({ resource } = await s.execute("bulk", [[]]));
  assert.equal(resource, 0);
  const many = Array.from({ length: 6000 }, (_, i) => ({ id: `b${i}`, pk: "bulk" }));
  let rest = many, calls = 0;
  while (rest.length > 0) {
    ({ resource } = await s.execute("bulk", [rest]));
    assert.ok(Number.isInteger(resource) && resource > 0, `imported ${resource}`);
    rest = rest.slice(resource);
    calls++;
  }
  assert.ok(calls >= 2, `one call imported everything (${calls})`);
  const { resources: [n] } = await container.items.query("SELECT VALUE COUNT(1) FROM c", { partitionKey: "bulk" }).fetchAll();
  assert.equal(n, 6000);
  ok("bulkImport");

  // tradePlayers: a swap commits both replaces; a failure commits none
  s = await define("tradePlayers", tradePlayers);
  await container.items.create({ id: "p1", pk: "league", team: "red" });
  await container.items.create({ id: "p2", pk: "league", team: "blue" });
  ({ resource } = await s.execute("league", ["p1", "p2"]));
  assert.equal(resource, "");
  let teams = Object.fromEntries((await allDocs("league")).map((d) => [d.id, d.team]));
  assert.deepEqual(teams, { p1: "blue", p2: "red" });
  const err = await rejects(s.execute("league", ["p1", "nobody"]), 400);
  assert.ok(err.message.includes("Unable to find both names"), err.message);
  // the same swap, then a throw after both replaces: nothing persists
  const failing = tradePlayers.toString().replace('if (err) throw "Unable to update player 2, abort";', 'throw "changed my mind";');
  await sprocs.create({ id: "tradeThenFail", body: failing });
  await rejects(container.scripts.storedProcedure("tradeThenFail").execute("league", ["p1", "p2"]), 400, undefined, "changed my mind");
  teams = Object.fromEntries((await allDocs("league")).map((d) => [d.id, d.team]));
  assert.deepEqual(teams, { p1: "blue", p2: "red" });
  ok("tradePlayers");

  // async_sample: Promises and async/await page through the partition
  s = await define("async_sample", async_sample);
  for (let i = 0; i < 5; i++) await container.items.create({ id: `a${i}`, pk: "async" });
  ({ resource } = await s.execute("async", []));
  assert.ok((await allDocs("async")).every((d) => d.newProp === 1));
  s = await define("asyncAbort", asyncAbort);
  await rejects(s.execute("async", []), 400, 412);
  assert.ok((await allDocs("async")).every((d) => d.touched === undefined), "abort rolled back");
  ok("async_sample");

  // SimpleScript
  s = await define("simple", simple);
  ({ resource } = await s.execute("nothing-here", ["x"]));
  assert.equal(resource, "no docs found");
  ({ resource } = await s.execute("league", ["prefix:"]));
  assert.ok(resource.startsWith('prefix:{"id":"p1"'), resource);
  ok("SimpleScript");

  // Count: pageSize 25 and continuation across executions
  s = await define("count", count);
  for (let i = 0; i < 60; i++) await container.items.create({ id: `c${i}`, pk: "count", even: i % 2 === 0 });
  for (const filter of [undefined, "SELECT * FROM root r WHERE r.even = true"]) {
    let total = 0, token, rounds = 0;
    do {
      ({ resource } = await s.execute("count", [filter ?? "", token]));
      total += resource.count;
      token = resource.continuationToken;
      rounds++;
    } while (token);
    assert.equal(total, filter ? 30 : 60);
    assert.equal(rounds, filter ? 2 : 3);
  }
  ok("Count");

  // bulkDelete
  s = await define("bulkDelete", bulkDeleteSproc);
  ({ resource } = await s.execute("count", ["SELECT * FROM c WHERE c.even = false"]));
  assert.deepEqual(resource, { deleted: 30, continuation: false });
  assert.equal((await allDocs("count")).length, 30);
  ok("bulkDelete");

  // the JS SDK's test procedures, exact values
  ({ resource } = await (await define("storedProcedure1", storedProcedure1)).execute(undefined));
  assert.equal(resource, 999);
  ({ resource } = await (await define("storedProcedure2", storedProcedure2)).execute(undefined));
  assert.equal(resource, "0123456789");
  assert.ok(resource == 123456789);
  ({ resource } = await (await define("storedProcedure3", storedProcedure3)).execute(undefined, [{ temp: "so" }]));
  assert.equal(resource, "aso");
  s = await define("querySproc", querySproc);
  ({ resource } = await s.execute("async"));
  assert.equal(resource.length, 5);
  ok("JS SDK procedures");

  // hierarchical partition keys: each execution sees its own partition
  const { container: hpk } = await database.containers.create({
    id: "hpk",
    partitionKey: { paths: ["/key", "/key2"], version: 2, kind: PartitionKeyKind.MultiHash },
  });
  await hpk.items.create({ id: "doc1", key: null, key2: "a" });
  await hpk.items.create({ id: "doc2", key: 1, key2: "a" });
  await hpk.scripts.storedProcedures.create({ id: "querySproc", body: querySproc });
  for (const [pk, want] of [[[null, "a"], "doc1"], [[1, "a"], "doc2"]]) {
    ({ resource } = await hpk.scripts.storedProcedure("querySproc").execute(pk, []));
    assert.deepEqual(resource.map((d) => d.id), [want]);
  }
  ok("hierarchical partitions");

  // script logging: URL-encoded console.log output, only when asked
  s = await define("log", logSproc);
  let res = await s.execute("p", [], { enableScriptLogging: true });
  assert.equal(res.headers["x-ms-documentdb-script-log-results"], encodeURIComponent("The value of x is 1."));
  res = await s.execute("p", []);
  assert.equal(res.headers["x-ms-documentdb-script-log-results"], undefined);
  res = await s.execute("p", [], { enableScriptLogging: false });
  assert.equal(res.headers["x-ms-documentdb-script-log-results"], undefined);
  ok("logging");

  // errors: another partition, a re-thrown not-found (substatus 404)
  s = await define("crossPartition", crossPartition);
  await rejects(s.execute("p", []), 400, undefined, "Requests originating from scripts cannot reference partition keys other than the one for which client request was submitted.");
  s = await define("throwNotFound", throwNotFound);
  await rejects(s.execute("p", []), 400, 404, "Resource Not Found");
  await rejects(container.scripts.storedProcedure("missing").execute("p", []), 404);
  ok("errors");

  // replace takes effect on the next call; delete is 404 afterwards
  await container.scripts.storedProcedure("helloWorld").replace({ id: "helloWorld", body: "function () { getContext().getResponse().setBody('v2'); }" });
  ({ resource } = await container.scripts.storedProcedure("helloWorld").execute("p"));
  assert.equal(resource, "v2");
  await container.scripts.storedProcedure("helloWorld").delete();
  await rejects(container.scripts.storedProcedure("helloWorld").read(), 404);
  const { resources: listed } = await sprocs.query("SELECT * FROM root r").fetchAll();
  assert.ok(listed.length > 10 && !listed.some((x) => x.id === "helloWorld"));
  ok("replace and delete");

  await database.delete();
} catch (err) {
  console.error("FAIL", err);
  process.exit(1);
}
