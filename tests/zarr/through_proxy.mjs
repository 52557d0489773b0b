// zarrita (an independent Zarr implementation) reading a dataset through
// `ipfsrt serve --upstream` over plain HTTP, beside the same dataset's folder
// read by zarrita's file store: every array whole, compared value by value
// (NaN equal to NaN). Prints one JSON object {arrays, values, differ}.
// Usage: node through_proxy.mjs PROXY_URL ROOT FOLDER
import * as zarr from "zarrita";
import FileSystemStore from "@zarrita/storage/fs";

const [proxy, root, folder] = process.argv.slice(2);
const through = await zarr.withConsolidatedMetadata(new zarr.FetchStore(`${proxy}/ipfs/${root}`));
const local = await zarr.withConsolidatedMetadata(new FileSystemStore(folder));
const same = (a, b) => a === b || (typeof a === "number" && Number.isNaN(a) && Number.isNaN(b));

let arrays = 0, values = 0;
const differ = [];
for (const { path, kind } of local.contents()) {
  if (kind !== "array") continue;
  const [a, b] = await Promise.all([through, local].map(async (store) =>
    zarr.get(await zarr.open(zarr.root(store).resolve(path), { kind: "array" }))));
  let ok = a.data.length === b.data.length && a.shape.join() === b.shape.join();
  for (let i = 0; ok && i < a.data.length; i++) ok = same(a.data[i], b.data[i]);
  if (!ok) differ.push(path);
  arrays += 1;
  values += b.data.length;
}
console.log(JSON.stringify({ arrays, values, differ }));
