"""Zarr v2 interop: Debian's zarr-python (2.13) writes arrays over a grid of
dtype x compressor x filters (shuffle, delta, fixedscaleoffset, quantize,
astype) x order x chunk shape (edge chunks included) x fill value, some chunks
never written (`v2.py check DIR`: zarr-python reads ipfsrt's arrays back); v2.lua (ipfsrt) decodes every chunk and
assembles each array, which must equal numpy's values byte for byte.
`v2.py write DIR` writes DIR/NAME (the Zarr folders) and DIR/NAME.raw (the
values, little-endian C order; float16 as float32), and DIR/manifest.json."""
import itertools
import json
import os
import sys
import warnings

import numpy as np
import zarr
from numcodecs import Blosc, Zstd, GZip, Zlib, BZ2, LZ4, Shuffle, Delta, FixedScaleOffset, Quantize, AsType

# NaN fill values through fixedscaleoffset into integers: numpy warns, and both sides read the same
warnings.filterwarnings("ignore", "invalid value encountered in cast")
out = sys.argv[2]


def check(dir):
    """zarr-python reads the v2 arrays of dir's manifest (written by ipfsrt) back."""
    manifest = json.load(open(os.path.join(dir, "manifest.json")))
    bad = ok = 0
    for m in manifest:
        if m.get("zarr_format", 2) != 2:
            continue
        try:
            v = zarr.open(os.path.join(dir, m["name"]), mode="r")[...]
            want = open(os.path.join(dir, m["name"] + ".raw"), "rb").read()
            got = v.astype("<f4") if v.dtype == np.float16 else v.astype(v.dtype.newbyteorder("<"))
            if v.dtype.kind == "U":  # ipfsrt holds them as UTF-8
                got = np.array([s.encode("utf-8") for s in v.reshape(-1)], dtype="|S%d" % v.dtype.itemsize)
            if np.ascontiguousarray(got).tobytes() == want:
                ok += 1
                continue
            problem = "other values"
        except Exception as e:  # noqa: BLE001 - every failure is reported
            problem = repr(e)[:300]
        bad += 1
        print(f"{m['name']} ({m['dtype']} {m.get('chain')}): {problem}")
    print(f"zarr {zarr.__version__} read {ok} of ipfsrt's {ok + bad} v2 arrays identically")
    sys.exit(1 if bad or not ok else 0)


if sys.argv[1] == "check":
    check(out)
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(42)

DTYPES = ["<i2", "<i4", "<u1", "<u8", "<f4", "<f8", ">i4", ">f8", "<f2", "|b1", "<c8", "|S5", "<M8[s]", "<U3", ">U2"]
COMPRESSORS = {
    "none": None, "blosc-lz4": Blosc("lz4", 5, Blosc.SHUFFLE), "blosc-zstd-bit": Blosc("zstd", 3, Blosc.BITSHUFFLE),
    "zstd": Zstd(3), "gzip": GZip(5), "zlib": Zlib(1), "bz2": BZ2(1), "lz4": LZ4(),
}
SHAPES = [((37, 23), (10, 7)), ((100,), (100,)), ((5, 6, 7), (2, 6, 3)), ((), ())]


def values(dtype, shape):
    dt = np.dtype(dtype)
    n = int(np.prod(shape)) if shape else 1
    base = np.cumsum(rng.integers(-5, 6, n))
    if dt.kind == "b":
        v = base % 3 == 0
    elif dt.kind == "S":
        v = np.array([b"ab%d" % (x % 1000) for x in base], dtype=dt)
    elif dt.kind == "U":  # beyond ASCII: 2-, 3- and 4-byte UTF-8
        v = np.array([["é", "€x", "😀y", "z"][x % 4] + str(x % 10) for x in base], dtype=dt)
    elif dt.kind == "M":
        v = (base + 1_600_000_000).astype("int64").astype(dt)
    elif dt.kind == "c":
        v = (base + 1j * base[::-1]).astype(dt)
    else:
        v = (base / (7.0 if dt.kind == "f" else 1)).astype(dt)
    return v.reshape(shape)


manifest = []
cases = itertools.product(DTYPES, COMPRESSORS.items(), SHAPES, ("C", "F"))
for i, (dtype, (cname, comp), (shape, chunks), order) in enumerate(cases):
    if i % 3 and not (dtype in ("<i2", "<f4") or shape == ()):  # a thinned grid; every pair still appears
        continue
    dt = np.dtype(dtype)
    filters = None
    if cname == "zstd" and dt.kind in "iuf" and dt.itemsize > 1 and dt.byteorder != ">":
        filters = [Shuffle(elementsize=dt.itemsize)]
    if cname == "gzip" and dtype == "<i4":
        filters = [Delta(dtype="<i4")]
    if cname == "blosc-lz4" and dtype in ("<f8", "<f4"):
        filters = [FixedScaleOffset(offset=1.5, scale=100, dtype=dtype, astype="<i4")]
    if cname == "bz2" and dtype in ("<f8", "<f4"):
        filters = [Quantize(digits=2, dtype=dtype)]
    if cname in ("lz4", "none") and dtype == "<i4":
        filters = [AsType(encode_dtype="<i2", decode_dtype="<i4")]
    fill = {"f": np.nan, "i": -1, "u": 7, "b": True, "S": b"fill", "c": 0, "M": 0, "U": "ø"}[dt.kind]
    if dtype == "<f2":
        fill = 1.5
    name = f"a{i:04d}"
    path = os.path.join(out, name)
    a = zarr.open(path, mode="w", shape=shape, chunks=chunks, dtype=dtype, compressor=comp, filters=filters,
                  order=order, fill_value=fill)
    v = values(dtype, shape)
    if shape and len(shape) >= 2:
        a[1:, :] = v[1:, :]  # the first row of chunks is partly never written: fill value
        v[:1, :] = np.asarray(fill, dtype=dt) if not (dt.kind == "f" and np.isnan(fill)) else np.nan
    else:
        a[...] = v
    a.attrs["_ARRAY_DIMENSIONS"] = [f"d{k}" for k in range(len(shape))]
    a.attrs["note"] = name
    if filters and filters[0].codec_id in ("fixedscaleoffset", "quantize"):
        v = a[...]  # lossy: what zarr-python reads back
    want = v.astype("<f4") if dtype == "<f2" else v.astype(dt.newbyteorder("<")) if dt.byteorder == ">" else v
    if dt.kind == "M":
        want = v.astype("<i8")
    if dt.kind == "U":  # held as UTF-8, NUL-padded to 4 bytes a character
        want = np.array([s.encode("utf-8") for s in v.reshape(-1)], dtype="|S%d" % (4 * (dt.itemsize // 4)))
    open(path + ".raw", "wb").write(np.ascontiguousarray(want).tobytes())
    manifest.append({"name": name, "dtype": dtype, "compressor": cname, "order": order, "shape": list(shape)})
json.dump(manifest, open(os.path.join(out, "manifest.json"), "w"), indent=1)
print(f"zarr {zarr.__version__} wrote {len(manifest)} v2 arrays")
