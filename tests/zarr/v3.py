"""Zarr v3 arrays written by hand from the specification (numpy lays out the
elements, numcodecs compresses, the CRC-32C is a table here), sharded ones
included: index at the start or the end, with or without its checksum, inner
chunks in shuffled order with gaps, empty inner chunks, shards never written.
zarrita (v3.mjs check) reads every one back to confirm the writing follows the
spec; ipfsrt (v3.lua) must read the same values.
`v3.py write DIR` writes DIR/NAME (the arrays), DIR/NAME.raw (the values,
little-endian C order; float16 as float32) and DIR/manifest.json."""
import itertools
import json
import os
import random
import sys

import numpy as np
from numcodecs import Blosc, GZip, Zstd

out = sys.argv[2]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3)
shuffler = random.Random(5)


def crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


TABLE = crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283

DTYPES = {"int16": "i2", "uint8": "u1", "float32": "f4", "float64": "f8", "int64": "i8", "bool": "b1",
          "float16": "f2", "complex64": "c8"}


def encode(codecs, arr):
    """arr (already laid out: transposed if asked) through the codec chain."""
    data = None
    for c in codecs:
        name, conf = c["name"], c.get("configuration", {})
        if name == "transpose":
            arr = np.ascontiguousarray(arr.transpose(conf["order"]))
        elif name == "bytes":
            dt = arr.dtype.newbyteorder(">" if conf.get("endian") == "big" else "<")
            data = np.ascontiguousarray(arr.astype(dt)).tobytes()
        elif name == "gzip":
            data = GZip(conf["level"]).encode(data)
        elif name == "zstd":
            data = Zstd(conf["level"]).encode(data)
        elif name == "blosc":
            shuffle = {"noshuffle": Blosc.NOSHUFFLE, "shuffle": Blosc.SHUFFLE, "bitshuffle": Blosc.BITSHUFFLE}
            typed = np.frombuffer(data, dtype="u%d" % conf["typesize"]) if conf["typesize"] in (1, 2, 4, 8) else data
            data = Blosc(conf["cname"], conf["clevel"], shuffle[conf["shuffle"]], conf["blocksize"]).encode(typed)
        elif name == "crc32c":
            data = data + crc32c(data).to_bytes(4, "little")
        else:
            raise ValueError(name)
    return bytes(data)


def shard(codecs, index_codecs, at_start, block, inner_shape, empty):
    """A shard of block (the shard's full-size values): inner chunks in a
    shuffled order, with gaps, those in empty left out."""
    grid = [b // i for b, i in zip(block.shape, inner_shape)]
    n = int(np.prod(grid))
    pieces = {}
    for e, idx in enumerate(itertools.product(*[range(g) for g in grid])):
        if e in empty:
            continue
        sl = tuple(slice(i * s, (i + 1) * s) for i, s in zip(idx, inner_shape))
        pieces[e] = encode(codecs, block[sl])
    index = np.full((n, 2), np.iinfo("u8").max, dtype="u8")
    index_size = 16 * n + (4 if len(index_codecs) > 1 else 0)
    body = bytearray(b"\x00" * 3 if at_start else b"")  # a gap before the first chunk
    order = list(pieces)
    shuffler.shuffle(order)
    base = index_size if at_start else 0
    for e in order:
        index[e] = (base + len(body), len(pieces[e]))
        body += pieces[e] + b"\xee" * shuffler.randint(0, 2)  # gaps between chunks
    big = index_codecs[0].get("configuration", {}).get("endian") == "big"
    idx = index.astype(">u8" if big else "<u8").tobytes()
    if len(index_codecs) > 1:
        idx += crc32c(idx).to_bytes(4, "little")
    return bytes(idx + body) if at_start else bytes(body + idx)


def values(dtype, shape):
    n = int(np.prod(shape)) if shape else 1
    base = np.cumsum(rng.integers(-4, 5, n))
    if dtype == "bool":
        v = base % 3 == 0
    elif dtype == "complex64":
        v = (base + 1j * base[::-1]).astype("c8")
    else:
        v = (base / (8.0 if dtype.startswith("float") else 1)).astype(DTYPES[dtype])
        if dtype == "uint8":
            v = (base % 250).astype("u1")
    return v.reshape(shape)


def fill_json(dtype, fill):
    if dtype == "float16":
        return "0x3800"  # 0.5 as float16 bits (zarrita reads no float16: no clash with its hex reading)
    if dtype.startswith("float") and np.isnan(fill):
        return "NaN"
    if dtype == "bool":
        return bool(fill)
    if dtype == "complex64":
        return [float(fill), 0.0]
    return fill.item() if hasattr(fill, "item") else fill


def key(idx, sep):
    return "c" + "".join(sep + str(i) for i in idx) if idx else "c"


CHAINS = {
    "raw": [{"name": "bytes", "configuration": {"endian": "little"}}],
    "big-gzip": [{"name": "bytes", "configuration": {"endian": "big"}}, {"name": "gzip", "configuration": {"level": 5}}],
    "zstd-crc": [{"name": "bytes", "configuration": {"endian": "little"}},
                 {"name": "zstd", "configuration": {"level": 3, "checksum": False}}, {"name": "crc32c"}],
    "T-blosc": [{"name": "transpose", "configuration": {"order": "REVERSED"}},
                {"name": "bytes", "configuration": {"endian": "little"}},
                {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 3, "shuffle": "shuffle",
                                                    "typesize": "ITEMSIZE", "blocksize": 0}}],
}
SHAPES = [((11, 9), (4, 3), (2, 3)), ((20,), (8,), (4,)), ((5, 4, 6), (2, 4, 6), (1, 2, 3))]


def chain_for(name, ndim, itemsize):
    out = json.loads(json.dumps(CHAINS[name]))
    for c in out:
        if c["name"] == "bytes" and itemsize == 1:
            del c["configuration"]  # as zarr-python writes single-byte types
        conf = c.get("configuration", {})
        if conf.get("order") == "REVERSED":
            conf["order"] = list(range(ndim))[::-1]
        if conf.get("typesize") == "ITEMSIZE":
            conf["typesize"] = itemsize
    return out


manifest = []
cases = itertools.product(DTYPES, CHAINS, SHAPES, ("plain", "shard-end", "shard-start"))
for i, (dtype, chain, (shape, chunks, inner), layout) in enumerate(cases):
    if i % 4 and dtype not in ("int16", "float32"):  # a thinned grid
        continue
    dt = np.dtype(DTYPES[dtype])
    sharded = layout != "plain"
    inner_codecs = chain_for(chain, len(shape), dt.itemsize)
    fill = {"f": np.nan, "i": -3, "u": 7, "b": False, "c": 0}[dt.kind]
    if dtype == "float16":
        fill = 0.5
    index_codecs = [{"name": "bytes", "configuration": {"endian": "little" if i % 2 else "big"}}]
    if i % 3:
        index_codecs.append({"name": "crc32c"})
    codecs = inner_codecs
    if sharded:
        codecs = [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": list(inner), "codecs": inner_codecs, "index_codecs": index_codecs,
            "index_location": "start" if layout == "shard-start" else "end"}}]
    sep = "/" if i % 2 else "."
    meta = {"zarr_format": 3, "node_type": "array", "shape": list(shape), "data_type": dtype,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": sep}},
            "fill_value": fill_json(dtype, fill), "codecs": codecs,
            "dimension_names": ["d%d" % k for k in range(len(shape))], "attributes": {"case": i}}
    name = "v%04d" % i
    path = os.path.join(out, name)
    os.makedirs(path, exist_ok=True)
    v = values(dtype, shape)
    grid = [-(-s // c) for s, c in zip(shape, chunks)]
    for idx in itertools.product(*[range(g) for g in grid]):
        if idx[0] == 0 and len(idx) > 1 and idx[1] == 0:  # never written: the fill value
            v[tuple(slice(i * c, (i + 1) * c) for i, c in zip(idx, chunks))] = fill
            continue
        block = np.full(chunks, fill, dtype=dt)
        sl = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, chunks, shape))
        block[tuple(slice(0, s.stop - s.start) for s in sl)] = v[sl]
        if sharded:
            empty = {0} if sum(idx) % 2 else set()  # an inner chunk never written
            if empty:
                v[tuple(slice(s.start, min(s.start + n, s.stop)) for s, n in zip(sl, inner))] = fill
                block[tuple(slice(0, n) for n in inner)] = fill
            data = shard(inner_codecs, index_codecs, layout == "shard-start", block, inner, empty)
        else:
            data = encode(inner_codecs, block)
        k = os.path.join(path, *key(idx, sep).split("/"))
        os.makedirs(os.path.dirname(k), exist_ok=True)
        open(k, "wb").write(data)
    json.dump(meta, open(os.path.join(path, "zarr.json"), "w"))
    want = v.astype("<f4") if dtype == "float16" else v.astype(dt.newbyteorder("<"))
    open(path + ".raw", "wb").write(np.ascontiguousarray(want).tobytes())
    manifest.append({"name": name, "dtype": dtype, "chain": chain, "layout": layout, "shape": list(shape)})
json.dump(manifest, open(os.path.join(out, "manifest.json"), "w"), indent=1)
print(f"wrote {len(manifest)} v3 arrays by hand ({sum(m['layout'] != 'plain' for m in manifest)} sharded)")
