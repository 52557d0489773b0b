// Zarr v3 interop, zarrita's side (an independent implementation in
// JavaScript).
//   node v3.mjs write DIR   zarrita writes v3 arrays over a grid of dtype x codec
//                           chain (bytes in either endian, transpose, zstd, blosc,
//                           numcodecs.shuffle and .lz4; zarrita encodes no gzip,
//                           zlib or crc32c) x chunking with edge
//                           chunks x key separator x fill value, some chunks never
//                           written: DIR/NAME, DIR/NAME.raw (little-endian C
//                           order) and DIR/manifest.json
//   node v3.mjs check DIR   zarrita reads the arrays of a manifest and compares
//                           them with the .raw files (those v3.py wrote by hand,
//                           or those ipfsrt wrote)
import fs from "node:fs";
import path from "node:path";
import * as zarr from "zarrita";
import FileSystemStore from "@zarrita/storage/fs";

const [mode, dir] = process.argv.slice(2);

// Element bytes of a zarrita chunk ({data, shape, stride}) in C order.
function cOrderBytes({ data, shape, stride }) {
  const size = data.BYTES_PER_ELEMENT;
  const src = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const n = shape.reduce((a, b) => a * b, 1);
  const out = new Uint8Array(n * size);
  const idx = shape.map(() => 0);
  for (let k = 0; k < n; k++) {
    let off = 0;
    for (let d = 0; d < shape.length; d++) off += idx[d] * stride[d];
    out.set(src.subarray(off * size, off * size + size), k * size);
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return Buffer.from(out);
}

async function check() {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json")));
  const store = new FileSystemStore(dir);
  let ok = 0, bad = 0, skipped = 0;
  for (const m of manifest) {
    // zarrita has no complex or float16 arrays, reads every shard index from the end, has no bz2;
    // its strings are JavaScript's (the .raw holds ipfsrt's UTF-8)
    if (m.dtype === "complex64" || m.dtype === "float16" || m.layout === "shard-start" || m.chain === "bz2" ||
        m.dtype.startsWith("U")) {
      skipped++;
      continue;
    }
    try {
      const a = await zarr.open(zarr.root(store).resolve(m.name), { kind: "array" });
      const got = cOrderBytes(await zarr.get(a, null));
      if (got.equals(fs.readFileSync(path.join(dir, m.name + ".raw")))) ok++;
      else {
        bad++;
        console.log(`${m.name} (${m.dtype} ${m.chain} ${m.layout}): other values`);
      }
    } catch (e) {
      bad++;
      console.log(`${m.name} (${m.dtype} ${m.chain} ${m.layout}): ${String(e).slice(0, 300)}`);
    }
  }
  console.log(`zarrita read ${ok} of ${ok + bad} arrays identically (${skipped} it cannot read)`);
  process.exit(bad === 0 && ok > 0 ? 0 : 1);
}

const TYPES = {
  int16: Int16Array, uint8: Uint8Array, float32: Float32Array, float64: Float64Array, int64: BigInt64Array,
  bool: Uint8Array,
};
const CHAINS = {
  "le": [{ name: "bytes", configuration: { endian: "little" } }],
  "be-zstd": [{ name: "bytes", configuration: { endian: "big" } },
              { name: "zstd", configuration: { level: 5, checksum: false } }],
  "T-zstd": [{ name: "transpose", configuration: { order: "REVERSED" } },
             { name: "bytes", configuration: { endian: "little" } },
             { name: "zstd", configuration: { level: 3, checksum: false } }],
  "blosc": [{ name: "bytes", configuration: { endian: "little" } },
            { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: "ITEMSIZE",
                                              blocksize: 0 } }],
  "shuffle-lz4": [{ name: "bytes", configuration: { endian: "little" } },
                  { name: "numcodecs.shuffle", configuration: { elementsize: "ITEMSIZE" } },
                  { name: "numcodecs.lz4", configuration: { acceleration: 1 } }],
};
const SHAPES = [[[13, 10], [4, 3]], [[30], [7]], [[4, 5, 6], [3, 2, 6]]];

// Single-byte types take bytes without an endian (as zarr-python writes them).
function chain(name, ndim, itemsize) {
  const out = JSON.parse(JSON.stringify(CHAINS[name]), (k, v) =>
    v === "REVERSED" ? [...Array(ndim).keys()].reverse() : v === "ITEMSIZE" ? itemsize : v);
  for (const c of out) if (c.name === "bytes" && itemsize === 1) delete c.configuration;
  return out;
}

function values(dtype, n, seed) {
  const T = TYPES[dtype];
  const out = new T(n);
  let x = seed, acc = 0;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    acc += ((x >> 16) % 9) - 4;
    if (dtype === "int64") out[i] = BigInt(acc) * 1000000007n;
    else if (dtype === "bool") out[i] = acc % 3 === 0 ? 1 : 0;
    else if (dtype === "uint8") out[i] = ((acc % 250) + 250) % 250;
    else if (dtype.startsWith("float")) out[i] = acc / 8;
    else out[i] = acc;
  }
  return out;
}

async function write() {
  fs.mkdirSync(dir, { recursive: true });
  const store = new FileSystemStore(dir);
  const manifest = [];
  let i = 0;
  for (const dtype of Object.keys(TYPES)) {
    for (const name of Object.keys(CHAINS)) {
      for (const [shape, chunks] of SHAPES) {
        const case_ = i++;
        const itemsize = TYPES[dtype].BYTES_PER_ELEMENT;
        const fill = dtype === "bool" ? true : dtype.startsWith("float") ? "NaN" : dtype === "int64" ? -5 : 3;
        const a = await zarr.create(zarr.root(store).resolve(`z${String(case_).padStart(4, "0")}`), {
          shape, chunkShape: chunks, dtype, fillValue: fill, codecs: chain(name, shape.length, itemsize),
          chunkSeparator: case_ % 2 ? "." : "/", attributes: { case: case_ },
          dimensionNames: shape.map((_, d) => `d${d}`),
        });
        const n = shape.reduce((p, q) => p * q, 1);
        const v = values(dtype, n, case_ + 1);
        const stride = shape.map((_, d) => shape.slice(d + 1).reduce((p, q) => p * q, 1));
        // the first row of chunks is never written: it reads as the fill value
        const skip = shape.length > 1 ? chunks[0] : 0;
        const sel = shape.map((_, d) => (d === 0 ? zarr.slice(skip, null) : null));
        const part = v.slice(skip * stride[0]);
        const data = dtype === "bool" ? new zarr.BoolArray(part.buffer) : part;
        await zarr.set(a, sel, { data, shape: [shape[0] - skip, ...shape.slice(1)], stride });
        const want = new TYPES[dtype](n);
        want.set(v);
        const fillValue = dtype === "bool" ? 1 : dtype.startsWith("float") ? NaN : dtype === "int64" ? -5n : 3;
        want.fill(fillValue, 0, skip * stride[0]);
        const name_ = a.path.replace(/^\//, "");
        fs.writeFileSync(path.join(dir, name_ + ".raw"), Buffer.from(want.buffer));
        manifest.push({ name: name_, dtype, chain: name, layout: "plain", shape });
      }
    }
  }
  fs.writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest, null, 1));
  console.log(`zarrita wrote ${manifest.length} v3 arrays`);
}

if (mode === "write") await write();
else if (mode === "check") await check();
else {
  console.error("usage: node v3.mjs write|check DIR");
  process.exit(2);
}
