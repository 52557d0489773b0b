"""Reads through ipfsrt in process equal the folder's; fsspec's calls
(ranges, listings, info, open) answer as fsspec's own filesystems do."""
import asyncio
import concurrent.futures
import threading

import fsspec
import numpy as np
import pytest
import xarray as xr
import zarr

import ipfsrt
from conftest import EXE, run


def equal(a, b):
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def test_xarray_reads_the_sample_as_the_folder(sample, gateway):
    folder, car, root = sample
    gw = gateway([car])
    through = xr.open_zarr(f"ipfs://{root}", storage_options={"gateways": [gw.url]})
    local = xr.open_zarr(folder)
    assert sorted(through.data_vars) == sorted(local.data_vars) == ["anom", "err", "ice", "sst"]
    for name in list(local.data_vars) + list(local.coords):
        assert equal(through[name].values, local[name].values), name
    assert through.attrs == local.attrs


def test_zarr_reads_through_the_mapper(sample, gateway):
    folder, car, root = sample
    gw = gateway([car])
    mapper = fsspec.get_mapper(f"ipfs://{root}", gateways=[gw.url])
    through, local = zarr.open_consolidated(mapper), zarr.open_consolidated(folder)
    assert equal(through["sst"][:, 0, 100:300, 500:900], local["sst"][:, 0, 100:300, 500:900])
    assert through["sst"].attrs.asdict() == local["sst"].attrs.asdict()


def test_a_local_car_reads_verified(sample):
    folder, car, root = sample
    fs = ipfsrt.car.open(car)
    assert fs.roots == [root] and fs.root == root
    local = xr.open_zarr(folder)
    assert equal(xr.open_zarr(fs.get_mapper(fs.root)).sst.values, local.sst.values)
    by_url = xr.open_zarr(f"car://{root}", storage_options={"car": car})
    assert equal(by_url.ice.values, local.ice.values)


def test_a_corrupt_car_raises(sample, tmp_path):
    folder, car, root = sample
    data = bytearray(open(car, "rb").read())
    chunk = open(f"{folder}/sst/0.0.1.2", "rb").read()
    data[data.find(chunk[1000:1100]) + 50] ^= 0xFF  # inside that chunk's block
    bad = tmp_path / "bad.car"
    bad.write_bytes(bytes(data))
    fs = ipfsrt.car.open(bad)
    with pytest.raises((ipfsrt.VerificationError, ipfsrt.Error)) as caught:
        xr.open_zarr(fs.get_mapper(fs.root)).sst.values
    assert isinstance(caught.value, ipfsrt.VerificationError) and caught.value.cid in str(caught.value)


def test_ranges(sample, gateway):
    folder, car, root = sample
    fs = ipfsrt.IPFSFileSystem(gateways=[gateway([car]).url])
    whole = open(f"{folder}/.zmetadata", "rb").read()
    path = f"ipfs://{root}/.zmetadata"
    assert fs.cat_file(path) == whole
    assert fs.cat_file(path, 10, 100) == whole[10:100]
    assert fs.cat_file(path, -50) == whole[-50:]
    assert fs.cat_file(path, 10, -10) == whole[10:-10]
    assert fs.cat_file(path, len(whole) + 5, len(whole) + 50) == b""
    assert fs.cat_file(path, 20, 20) == b""
    assert fs.cat_ranges([path, path], [0, 5], [4, 9]) == [whole[0:4], whole[5:9]]
    with fs.open(path) as f:
        assert f.size == len(whole)
        f.seek(1000)
        assert f.read(64) == whole[1000:1064]
    chunk = open(f"{folder}/sst/0.0.1.1", "rb").read()
    assert fs.cat_file(f"{root}/sst/0.0.1.1", 7, 70000) == chunk[7:70000]


def test_listings_and_info(sample, gateway):
    folder, car, root = sample
    fs = ipfsrt.IPFSFileSystem(gateways=[gateway([car]).url])
    names = sorted(fs.ls(root, detail=False))
    assert f"{root}/sst" in names and f"{root}/.zmetadata" in names
    detail = {e["name"]: e for e in fs.ls(f"ipfs://{root}/sst")}
    assert detail[f"{root}/sst/.zarray"]["type"] == "file"
    assert detail[f"{root}/sst/.zarray"]["size"] == len(open(f"{folder}/sst/.zarray", "rb").read())
    assert fs.info(f"{root}/sst")["type"] == "directory" and fs.isdir(f"/ipfs/{root}/sst")
    assert fs.info(root)["CID"] == root and fs.ukey(f"{root}/sst/.zarray").startswith("baf")
    assert fs.isfile(f"{root}/sst/.zarray") and not fs.isfile(f"{root}/sst")
    assert len(fs.find(f"{root}/err")) == 4 * 8 + 2  # the chunks, .zarray, .zattrs
    day = fs.cat(f"ipfs://{root}/ice/1.0.*")  # a glob: listed, then one batch
    assert sorted(day) == [f"{root}/ice/1.0.{i}.{j}" for i in range(2) for j in range(4)]
    assert all(v == open(f"{folder}/ice/{k.split('/')[-1]}", "rb").read() for k, v in day.items())


def test_missing_names_are_proven_absent(sample, gateway):
    folder, car, root = sample
    fs = ipfsrt.IPFSFileSystem(gateways=[gateway([car]).url])
    with pytest.raises(FileNotFoundError) as caught:
        fs.cat_file(f"{root}/sst/9.9.9.9")
    assert root in str(caught.value) or "sst" in str(caught.value)
    assert not fs.exists(f"{root}/nothing-here")
    out = fs.cat([f"{root}/sst/.zarray", f"{root}/sst/9.9.9.9"], on_error="omit")
    assert list(out) == [f"{root}/sst/.zarray"]
    # a CID no gateway has is unavailable, which proves nothing: it raises
    other = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"
    with pytest.raises(ipfsrt.Error) as caught:
        fs.exists(other)
    assert not isinstance(caught.value, FileNotFoundError) and other in str(caught.value)
    with pytest.raises(ipfsrt.Error):
        fs.cat([f"{root}/sst/.zarray", other], on_error="omit")


def test_bad_input_raises_with_a_message(sample, gateway):
    folder, car, root = sample
    fs = ipfsrt.IPFSFileSystem(gateways=[gateway([car]).url])
    cases = [f"{root}/../etc/passwd", f"{root}/sst/\0x", "bafynotacid/x", "not a cid at all",
             f"{root}/" + "n" * 100000, f"{root}/sst/.zarray/below-a-file"]
    for path in cases:
        with pytest.raises((ValueError, OSError)) as caught:
            fs.cat_file(path)
        assert str(caught.value), path
    for path in ["bafynotacid/x", "not a cid at all", "Qm123"]:
        with pytest.raises(ValueError, match="not a valid CID"):
            fs.cat_file(path)
    for options, word in [({"gateways": 5}, "gateways"), ({"gateways": ["ftp://x"]}, "ftp"),
                          ({"retries": -1}, "retries"), ({"timeout": "soon"}, "timeout"),
                          ({"policy": 3}, "policy"), ({"cache_dir": 1.5}, "cache_dir"),
                          ({"policy": "no-such-policy"}, "no-such-policy")]:
        with pytest.raises((TypeError, ValueError, ipfsrt.Error)) as caught:
            ipfsrt.IPFSFileSystem(skip_instance_cache=True, **options)
        assert word in str(caught.value), (options, str(caught.value))
    with pytest.raises(TypeError):
        ipfsrt.car.open(None)
    with pytest.raises(OSError):
        ipfsrt.car.open("/nonexistent.car")


def test_threads_and_asyncio_share_a_filesystem(sample, gateway):
    folder, car, root = sample
    fs = ipfsrt.IPFSFileSystem(gateways=[gateway([car]).url], skip_instance_cache=True)
    keys = [f"sst/0.0.{i}.{j}" for i in range(2) for j in range(4)] * 4
    want = {k: open(f"{folder}/{k}", "rb").read() for k in keys}
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda k: fs.cat_file(f"{root}/{k}"), keys))
    assert got == [want[k] for k in keys]

    async def main():
        loop = asyncio.get_running_loop()
        return await asyncio.gather(*[loop.run_in_executor(None, fs.cat_file, f"{root}/{k}") for k in keys[:8]])
    assert asyncio.run(main()) == [want[k] for k in keys[:8]]


def test_the_gil_is_released_while_reading(sample, gateway):
    folder, car, root = sample
    slow = gateway([car], ["--delay", "300"])
    fs = ipfsrt.IPFSFileSystem(gateways=[slow.url], skip_instance_cache=True)
    done, ticks = threading.Event(), [0]
    reader = threading.Thread(target=lambda: (fs.cat_file(f"{root}/.zgroup"), done.set()))
    reader.start()
    while not done.is_set():  # runs only while the reader's call has let go of the GIL
        ticks[0] += 1
        done.wait(0.001)
    reader.join()
    assert ticks[0] > 10


def test_an_ipns_name_opens_the_version_it_points_at(sample, gateway, tmp_path):
    """ipns://NAME: the record made by `ipfsrt name publish`, served by
    `ipfsrt serve --ipns-records`, verified in process; then xarray reads the
    version it names; a name no gateway holds raises."""
    folder, car, root = sample
    keys, records = str(tmp_path / "keys"), tmp_path / "records"
    records.mkdir()
    name = run(EXE, "key", "gen", "sample", "--keystore", keys).strip()
    run(EXE, "name", "publish", "/ipfs/" + root, "--key", "sample", "--keystore", keys,
        "-o", str(records / (name + ".ipns-record")))
    gw = gateway([car, "--ipns-records", str(records)])
    options = {"gateways": [gw.url]}
    ds = xr.open_zarr("ipns://" + name, storage_options=options, consolidated=True)
    assert ds.sst.shape == xr.open_zarr(folder).sst.shape
    fs = fsspec.filesystem("ipns", **options)
    assert fs.info("ipns://" + name)["CID"] == root
    with pytest.raises(ipfsrt.Error):
        fs.cat("ipns://" + run(EXE, "key", "gen", "other", "--keystore", keys).strip() + "/.zgroup")
