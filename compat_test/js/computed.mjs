// Computed properties through @azure/cosmos against COSMOS_ENDPOINT.
// First the scenario of the JS SDK's own spec (computedProperties.spec.ts):
// containers created with createIfNotExists WITHOUT a partition key, the
// two family items (each with a client-supplied _rid), the query
//   SELECT c.lowerLastName, c.parentsFullName FROM c
// (cross-partition, no options) for no computed properties and for the
// five indexing variants, then replace to [parentsFullName] and to [].
// Then ORDER BY, GROUP BY and aggregates on computed properties across
// partitions, through the SDK's query pipeline. One line per result:
//   "<name> <JSON of the results>"
// compat_test's TestJSComputedProperties checks the lines.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("computed", 120);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });

const lowerLastName = {
  name: "lowerLastName",
  query: "SELECT VALUE LOWER(IS_DEFINED(c.lastName) ? c.lastName : c.parents[0].familyName) FROM c",
};
const parentsFullName = {
  name: "parentsFullName",
  query: "SELECT VALUE CONCAT(CONCAT(c.parents[0].firstName, ' ', c.lastName), ' & ', CONCAT(c.parents[1].firstName, ' ', c.lastName)) FROM c",
};

const items = [
  {
    id: "AndersenFamily",
    _rid: "AAAAAAAAAAA=",
    lastName: "Andersen",
    parents: [{ firstName: "Thomas" }, { firstName: "Mary Kay" }],
    children: [{ firstName: "Henriette Thaulow", gender: "female", grade: 5, pets: [{ givenName: "Fluffy" }] }],
    address: { state: "WA", county: "King", city: "Seattle" },
    creationDate: 1431620472,
    isRegistered: true,
  },
  {
    id: "WakefieldFamily",
    _rid: "AAAAAAAAAAB=",
    parents: [{ familyName: "Wakefield", givenName: "Robin" }, { familyName: "Miller", givenName: "Ben" }],
    children: [{ familyName: "Merriam", givenName: "Jesse", gender: "female", grade: 1 }],
    address: { state: "NY", county: "Manhattan", city: "NY" },
    creationDate: 1431620462,
    isRegistered: false,
  },
];

const spec = "SELECT c.lowerLastName, c.parentsFullName FROM c";

async function specContainer(id, computedProperties, indexingPolicy) {
  const def = { id };
  if (computedProperties) def.computedProperties = computedProperties;
  if (indexingPolicy) def.indexingPolicy = indexingPolicy;
  const { container } = await database.containers.createIfNotExists(def);
  for (const it of items) await container.items.create(it);
  return container;
}

// run prints the results of query; sorted: in JSON order (the order of
// groups and distinct values across ranges is unspecified)
async function run(name, container, query, sorted = false) {
  const { resources } = await container.items.query(query).fetchAll();
  const out = sorted ? resources.map((r) => JSON.stringify(r)).sort().join(",") : JSON.stringify(resources).slice(1, -1);
  console.log(`${name} [${out}]`);
}

await run("SPEC_NONE", await specContainer("none"), spec);

const both = [lowerLastName, parentsFullName];
const variants = [
  ["SPEC_NO_POLICY", undefined],
  ["SPEC_INCLUDE_ALL", { includedPaths: [{ path: "/*" }] }],
  ["SPEC_EXCLUDE_ALL", { excludedPaths: [{ path: "/*" }] }],
  ["SPEC_CP_PATHS_AND_ALL", { includedPaths: [{ path: "/lowerLastName/*" }, { path: "/parentsFullName/*" }, { path: "/*" }] }],
  ["SPEC_CP_PATHS_ONLY", { includedPaths: [{ path: "/lowerLastName/*" }, { path: "/parentsFullName/*" }], excludedPaths: [{ path: "/*" }] }],
];
for (const [i, [name, policy]] of variants.entries()) {
  await run(name, await specContainer(`variant${i}`, both, policy), spec);
}

// replace: the definition read back from create, computed properties swapped
const replaced = await specContainer("replaced", [lowerLastName]);
await run("SPEC_REPLACE_BEFORE", replaced, spec);
const { resource: created } = await replaced.read();
console.log(`SPEC_READ_BACK ${JSON.stringify(created.computedProperties)}`);
const { resource: afterOne } = await replaced.replace({ ...created, computedProperties: [parentsFullName] });
console.log(`SPEC_REPLACE_ECHO ${JSON.stringify(afterOne.computedProperties)}`);
await run("SPEC_REPLACE_PARENTS", replaced, spec);
await replaced.replace({ ...afterOne, computedProperties: [] });
await run("SPEC_REPLACE_EMPTY", replaced, spec);

// across partitions: ten items over five partition keys
const { container: cross } = await database.containers.create({
  id: "cross",
  partitionKey: { paths: ["/pk"] },
  computedProperties: [
    { name: "cp_lower", query: "SELECT VALUE LOWER(c.name) FROM c" },
    { name: "cp_cat", query: "SELECT VALUE SUBSTRING(c.cat, 0, INDEX_OF(c.cat, ',')) FROM c" },
    { name: "cp_double", query: "SELECT VALUE c.n * 2 FROM c" },
  ],
  indexingPolicy: { includedPaths: [{ path: "/*" }, { path: "/cp_lower/?" }] },
});
const names = ["Delta", "alpha", "Echo", "charlie", "Bravo", "hotel", "Golf", "foxtrot", "India", "juliet"];
for (let i = 0; i < 10; i++) {
  await cross.items.create({
    id: `i${i}`,
    pk: `p${i % 5}`,
    name: names[i],
    cat: i % 3 === 0 ? "Bikes, Road" : "Clothing, Caps",
    n: i,
  });
}
await run("CROSS_ORDERBY", cross, "SELECT VALUE c.id FROM c ORDER BY c.cp_lower");
await run("CROSS_ORDERBY_DESC_TOP", cross, "SELECT TOP 3 c.id, c.cp_lower FROM c ORDER BY c.cp_lower DESC");
await run("CROSS_GROUPBY", cross, "SELECT c.cp_cat, COUNT(1) AS n, SUM(c.cp_double) AS s FROM c GROUP BY c.cp_cat", true);
await run("CROSS_VALUE_AGG", cross, "SELECT VALUE MAX(c.cp_double) FROM c WHERE c.cp_cat = 'Bikes'");
await run("CROSS_DISTINCT", cross, "SELECT DISTINCT VALUE c.cp_cat FROM c", true);
// whole items never hold a computed property
const { resources: star } = await cross.items.query("SELECT * FROM c WHERE c.cp_lower = 'alpha'").fetchAll();
console.log(`CROSS_STAR_KEYS ${JSON.stringify(star.map((r) => Object.keys(r).filter((k) => !k.startsWith("_"))))}`);
const { resource: read } = await cross.item("i1", "p1").read();
console.log(`POINT_READ_KEYS ${JSON.stringify(Object.keys(read).filter((k) => !k.startsWith("_")))}`);
