// Runs one SQL query with DuckDB (npm package @duckdb/node-api) and prints
// the result rows as JSON, so tests can check that other tools read lmask's
// Parquet files. Usage: node duckdb_read.mjs "SELECT ... FROM read_parquet('f.parquet')"
// The package is looked up in LMASK_NODE_MODULES, else third_party/node/node_modules.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.LMASK_NODE_MODULES || path.join(here, '..', '..', 'third_party', 'node', 'node_modules');
let entry;
try {
  entry = createRequire(path.join(modules, 'noop.js')).resolve('@duckdb/node-api');
} catch (e) {
  console.error(`duckdb_read: @duckdb/node-api not found under ${modules}`);
  process.exit(3);
}
const { DuckDBInstance } = await import(pathToFileURL(entry).href);
const sql = process.argv[2];
if (!sql) {
  console.error('usage: node duckdb_read.mjs SQL');
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const reader = await conn.runAndReadAll(sql);
const rows = reader.getRowObjectsJson();
console.log(JSON.stringify(rows));
