// User-defined functions in queries through @azure/cosmos: the docs' Tax
// UDF (/work/shared/server-side-js.md §4, §7) in WHERE and in SELECT,
// queries the SDK runs through its pipeline (query plan, ORDER BY, TOP,
// aggregates, DISTINCT; ORDER BY on a UDF), paging
// with a selective UDF filter (every result exactly once), undefined
// arguments, a throwing, an unknown and a looping UDF, and more than 10
// references. Prints "OK <name>" per check; compat_test's TestJSUDFs
// compares the lines.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
//
// Exit status 0 when every check passed, 1 otherwise.
import assert from "node:assert/strict";
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, rejects, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("udf", 120);
const ok = (name) => console.log(`OK ${name}`);

// the documentation's Tax UDF
function tax(income) {
  if (income == undefined) throw "no input";
  if (income < 1000) return income * 0.1;
  else if (income < 10000) return income * 0.2;
  else return income * 0.4;
}

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
const sorted = (a) => [...a].sort();

try {
  const { resource } = await container.scripts.userDefinedFunctions.create({ id: "Tax", body: tax });
  assert.equal(resource.body, tax.toString());
  await container.scripts.userDefinedFunctions.create({ id: "mod", body: "function (n, m) { return n % m; }" });
  await container.scripts.userDefinedFunctions.create({ id: "loop", body: "function (x) { while (true) {} }" });
  const incomes = [
    { id: "a", pk: "x", income: 60000 },
    { id: "b", pk: "y", income: 40000 },
    { id: "c", pk: "x", income: 5000 },
    { id: "d", pk: "y", income: 500 },
    { id: "e", pk: "z", income: 120000 },
    { id: "f", pk: "y" },
  ];
  for (const d of incomes) await container.items.create(d);

  // the docs' filter: a tax above 20,000 means an income above 50,000
  let { resources } = await container.items.query("SELECT * FROM Incomes t WHERE udf.Tax(t.income) > 20000").fetchAll();
  assert.deepEqual(sorted(resources.map((d) => d.id)), ["a", "e"]);
  ({ resources } = await container.items.query("SELECT * FROM Incomes t WHERE udf.Tax(t.income) > 20000", { partitionKey: "x" }).fetchAll());
  assert.deepEqual(resources.map((d) => d.id), ["a"]);
  ok("Tax in WHERE");

  // in a projection; f has no income: the call is skipped, tax undefined
  ({ resources } = await container.items.query("SELECT t.id, udf.Tax(t.income) AS tax FROM t").fetchAll());
  assert.deepEqual(resources.sort((p, q) => p.id.localeCompare(q.id)),
    [{ id: "a", tax: 24000 }, { id: "b", tax: 16000 }, { id: "c", tax: 1000 }, { id: "d", tax: 50 }, { id: "e", tax: 48000 }, { id: "f" }]);
  ({ resources } = await container.items.query("SELECT VALUE udf.Tax(t.missing) FROM t").fetchAll());
  assert.deepEqual(resources, []);
  ok("Tax in SELECT, undefined arguments");

  // queries the SDK runs through its pipeline: ORDER BY and TOP with a
  // UDF filter (the plan's rewritten query keeps the UDF)
  ({ resources } = await container.items.query("SELECT VALUE t.id FROM t WHERE udf.Tax(t.income) >= 1000 ORDER BY t.income DESC", { maxItemCount: 1 }).fetchAll());
  assert.deepEqual(resources, ["e", "a", "b", "c"]);
  ({ resources } = await container.items.query("SELECT TOP 2 t.id, udf.Tax(t.income) AS tax FROM t WHERE udf.Tax(t.income) < 20000 ORDER BY t.income").fetchAll());
  assert.deepEqual(resources, [{ id: "d", tax: 50 }, { id: "c", tax: 1000 }]);
  // ORDER BY a UDF, aggregates, DISTINCT: evaluated over the whole set
  ({ resources } = await container.items.query("SELECT VALUE t.id FROM t WHERE IS_DEFINED(t.income) ORDER BY udf.Tax(t.income)", { maxItemCount: 2 }).fetchAll());
  assert.deepEqual(resources, ["d", "c", "b", "a", "e"]);
  ({ resources } = await container.items.query("SELECT VALUE COUNT(1) FROM t WHERE udf.Tax(t.income) > 10000").fetchAll());
  assert.deepEqual(resources, [3]);
  ({ resources } = await container.items.query("SELECT VALUE SUM(udf.Tax(t.income)) FROM t").fetchAll());
  assert.deepEqual(resources, [89050]);
  // (strings: the SDK's client-side DISTINCT drops a false)
  ({ resources } = await container.items.query("SELECT DISTINCT VALUE (udf.Tax(t.income) > 10000 ? 'high' : 'low') FROM t").fetchAll());
  assert.deepEqual(sorted(resources), ["high", "low"]);
  ok("pipeline queries");

  // paging: 1,000 items, a selective UDF filter, pages of 7
  const ops = [];
  for (let i = 0; i < 1000; i++) ops.push({ operationType: "Create", partitionKey: `p${i % 3}`, resourceBody: { id: `n${i}`, pk: `p${i % 3}`, n: i } });
  for (let i = 0; i < ops.length; i += 100) await container.items.bulk(ops.slice(i, i + 100));
  const it = container.items.query("SELECT VALUE c.n FROM c WHERE udf.mod(c.n, 37) = 5", { maxItemCount: 7 });
  const got = [];
  let pages = 0;
  while (it.hasMoreResults()) {
    const page = await it.fetchNext();
    got.push(...page.resources);
    pages++;
  }
  const want = [];
  for (let i = 5; i < 1000; i += 37) want.push(i);
  assert.deepEqual(got.sort((p, q) => p - q), want);
  assert.ok(pages >= want.length / 7, `${pages} pages`);
  ok("paging exactly once");

  // errors
  await container.items.create({ id: "null", pk: "x", income: null });
  await rejects(container.items.query("SELECT * FROM t WHERE udf.Tax(t.income) > 0", { partitionKey: "x" }).fetchAll(), 400, "no input");
  await rejects(container.items.query("SELECT VALUE udf.Nope(t.id) FROM t", { partitionKey: "x" }).fetchAll(), 400, "'udf.Nope' is not a recognized user-defined function name.");
  await rejects(container.items.query("SELECT VALUE [" + "udf.Tax(t.income), ".repeat(10) + "udf.Tax(1)] FROM t", { partitionKey: "x" }).fetchAll(), 400, "exceeds the maximum of 10");
  await rejects(container.items.query("SELECT VALUE udf.loop(t.id) FROM t", { partitionKey: "x" }).fetchAll(), 408, "did not complete within the allotted execution time");
  ({ resources } = await container.items.query("SELECT VALUE udf.Tax(t.income) FROM t WHERE t.id = 'a'", { partitionKey: "x" }).fetchAll());
  assert.deepEqual(resources, [24000]);
  ok("errors");
} catch (err) {
  console.error("FAIL", err);
  process.exit(1);
}
