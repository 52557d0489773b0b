"""Codec interop with numcodecs (Debian's python3-numcodecs, an independent
implementation). `codecs.py write DIR`: numcodecs encodes seeded arrays with
every codec configuration below (DIR/manifest.json, NAME.raw, NAME.enc, and
NAME.dec: what numcodecs decodes its encoding to, the raw bytes but for the
lossy filters). `codecs.lua DIR` (ipfsrt) decodes each and compares with
NAME.dec, and encodes each raw array itself (NAME.ours). `codecs.py check
DIR`: numcodecs decodes ipfsrt's encodings to NAME.dec too."""
import json
import os
import sys

import numpy as np
import numcodecs

CASES = [
    ("zstd", {"id": "zstd", "level": 0}, "<i4"),
    ("zstd-l9", {"id": "zstd", "level": 9}, "<f8"),
    ("gzip", {"id": "gzip", "level": 1}, "<i2"),
    ("gzip-l9", {"id": "gzip", "level": 9}, "<f4"),
    ("zlib", {"id": "zlib", "level": 1}, "<u2"),
    ("bz2", {"id": "bz2", "level": 1}, "<i4"),
    ("lz4", {"id": "lz4", "acceleration": 1}, "<i8"),
    ("shuffle", {"id": "shuffle", "elementsize": 4}, "<i4"),
    ("delta-i4", {"id": "delta", "dtype": "<i4"}, "<i4"),
    ("delta-u1", {"id": "delta", "dtype": "|u1"}, "|u1"),
    ("delta-f8", {"id": "delta", "dtype": "<f8"}, "<f8"),
    ("fso-f8-i2", {"id": "fixedscaleoffset", "offset": 10.5, "scale": 10, "dtype": "<f8", "astype": "<i2"}, "<f8"),
    ("fso-f4-i4", {"id": "fixedscaleoffset", "offset": -3, "scale": 1000, "dtype": "<f4", "astype": "<i4"}, "<f4"),
    ("fso-i4-i2", {"id": "fixedscaleoffset", "offset": 100, "scale": 1, "dtype": "<i4", "astype": "<i2"}, "<i4"),
    ("fso-f8-be", {"id": "fixedscaleoffset", "offset": 0, "scale": 4, "dtype": "<f8", "astype": ">i4"}, "<f8"),
    ("quantize-f8", {"id": "quantize", "digits": 2, "dtype": "<f8"}, "<f8"),
    ("quantize-f4", {"id": "quantize", "digits": 1, "dtype": "<f4", "astype": "<f4"}, "<f4"),
    ("quantize-f8-f4", {"id": "quantize", "digits": 3, "dtype": "<f8", "astype": "<f4"}, "<f8"),
    ("astype-f8-f4", {"id": "astype", "encode_dtype": "<f4", "decode_dtype": "<f8"}, "<f8"),
    ("astype-i8-i2", {"id": "astype", "encode_dtype": "<i2", "decode_dtype": "<i8"}, "<i8"),
    ("astype-f4-i8", {"id": "astype", "encode_dtype": "<i8", "decode_dtype": "<f4"}, "<f4"),
]
for cname in numcodecs.blosc.list_compressors():
    for shuffle in (0, 1, 2):
        for dtype in ("<i2", "<f8", "|u1"):
            CASES.append((f"blosc-{cname}-{shuffle}-{dtype[1:]}",
                          {"id": "blosc", "cname": cname, "clevel": 5, "shuffle": shuffle, "blocksize": 0}, dtype))
CASES.append(("blosc-lz4-clevel0", {"id": "blosc", "cname": "lz4", "clevel": 0, "shuffle": 1}, "<i4"))
CASES.append(("blosc-zstd-auto", {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": -1}, "|u1"))


def data(dtype, n=30011, seed=7):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    smooth = np.cumsum(rng.integers(-3, 4, n))  # compressible, with noise
    if dt.kind == "f":
        return (smooth / 7.0).astype(dt)
    return smooth.astype(dt)


def as_bytes(got):
    return bytes(np.asarray(got).view(np.uint8).reshape(-1)) if not isinstance(got, bytes) else got


def write(out):
    os.makedirs(out, exist_ok=True)
    manifest = []
    for name, config, dtype in CASES:
        raw = data(dtype).tobytes()
        codec = numcodecs.get_codec(dict(config))
        enc = bytes(codec.encode(np.frombuffer(raw, dtype=dtype)))
        dec = as_bytes(codec.decode(enc))
        open(os.path.join(out, name + ".raw"), "wb").write(raw)
        open(os.path.join(out, name + ".enc"), "wb").write(enc)
        open(os.path.join(out, name + ".dec"), "wb").write(dec)
        cfg = {k: v for k, v in config.items() if k != "id"}
        manifest.append({"name": name, "codec": config["id"], "config": cfg,
                         "itemsize": np.dtype(dtype).itemsize, "size": len(raw)})
    json.dump(manifest, open(os.path.join(out, "manifest.json"), "w"), indent=1)
    print(f"numcodecs {numcodecs.__version__} wrote {len(manifest)} encodings")


def check(out):
    bad = 0
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    for m in manifest:
        dec = open(os.path.join(out, m["name"] + ".dec"), "rb").read()
        ours = open(os.path.join(out, m["name"] + ".ours"), "rb").read()
        codec = numcodecs.get_codec(dict(m["config"], id=m["codec"]))
        if as_bytes(codec.decode(ours)) != dec:
            bad += 1
            print(f"{m['name']}: numcodecs decodes ipfsrt's encoding to other bytes")
    print(f"numcodecs read back {len(manifest) - bad} of ipfsrt's {len(manifest)} encodings")
    sys.exit(1 if bad else 0)


{"write": write, "check": check}[sys.argv[1]](sys.argv[2])
