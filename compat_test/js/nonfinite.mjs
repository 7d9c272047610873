// NaN and Infinity in queries through @azure/cosmos: runs queries that
// use them against COSMOS_ENDPOINT, in one partition and across
// partitions (where the SDK's pipeline sends the query plan's rewritten
// query back), and prints "<name> <JSON of the results>" per query.
// compat_test's TestJSNonFiniteNumbers checks the lines.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("nonfinite", 60);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
for (const item of [
  { id: "a", pk: "p", n: 5 },
  { id: "b", pk: "q", n: 0 },
  { id: "c", pk: "p", n: -2 },
  { id: "d", pk: "q", n: "x" },
  { id: "e", pk: "q", n: 1 },
]) {
  await container.items.create(item);
}

const queries = [
  // in one partition
  ["tostring", `SELECT VALUE [ToString(NaN), ToString(Infinity), ToString(-Infinity), ToString(Infinity - 1), ToString(NaN + 1)] FROM c WHERE c.id = "a"`, "p"],
  ["types", `SELECT VALUE [IS_NUMBER(NaN), IS_FINITE_NUMBER(Infinity), Infinity > 5, NaN = NaN, NaN < 1] FROM c WHERE c.id = "a"`, "p"],
  ["stringtonumber", `SELECT VALUE StringToNumber(NaN) FROM c WHERE c.id = "a"`, "p"],
  ["value", `SELECT VALUE NaN FROM c WHERE c.id = "a"`, "p"],
  ["object", `SELECT {a: Infinity, b: c.n} AS o FROM c WHERE c.id = "a"`, "p"],
  // across partitions, through the SDK's query pipeline
  ["where", `SELECT VALUE c.id FROM c WHERE c.n > -Infinity AND c.n < Infinity`, undefined],
  ["orderby", `SELECT VALUE c.id FROM c WHERE c.n < Infinity ORDER BY c.n`, undefined],
  ["orderby-infinite-key", `SELECT c.id FROM c ORDER BY 1 / c.n`, undefined],
  ["top", `SELECT TOP 2 VALUE c.id FROM c WHERE c.n BETWEEN -Infinity AND Infinity ORDER BY c.n DESC`, undefined],
  ["count", `SELECT VALUE COUNT(1) FROM c WHERE IS_FINITE_NUMBER(1 / c.n)`, undefined],
];
for (const [name, query, partitionKey] of queries) {
  const { resources } = await container.items.query(query, partitionKey === undefined ? {} : { partitionKey }).fetchAll();
  const out = name === "where" ? resources.slice().sort() : resources;
  console.log(`${name} ${JSON.stringify(out)}`);
}
