"""Past one call: 1,000 filesystems opened and closed keep memory bounded;
a filesystem pickles as its options; Dask's distributed workers read
verified, each with clients of its own."""
import os
import pickle
import subprocess
import sys

import numpy as np
import xarray as xr

import ipfsrt


def rss_kib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def test_a_thousand_opens_keep_memory_bounded(sample, gateway):
    folder, car, root = sample
    gw = gateway([car])
    want = open(f"{folder}/sst/.zarray", "rb").read()

    def one():
        fs = ipfsrt.IPFSFileSystem(gateways=[gw.url], skip_instance_cache=True)
        assert fs.cat_file(f"{root}/sst/.zarray") == want
        fs.close()
        cf = ipfsrt.car.open(car)
        assert cf.cat_file(f"{root}/sst/.zarray") == want
        cf.close()
    for _ in range(100):
        one()
    after_100 = rss_kib()
    for _ in range(900):
        one()
    grown = rss_kib() - after_100
    assert grown < 16 * 1024, f"RSS grew by {grown} KiB over 900 opens"


def test_the_filesystem_pickles_as_its_options(sample, gateway, tmp_path):
    folder, car, root = sample
    gw = gateway([car])
    fs = ipfsrt.IPFSFileSystem(gateways=[gw.url], retries=1, skip_instance_cache=True)
    blob = tmp_path / "fs.pickle"
    blob.write_bytes(pickle.dumps(fs))
    code = ("import pickle, sys; fs = pickle.load(open(sys.argv[1], 'rb')); "
            "sys.stdout.buffer.write(fs.cat_file(sys.argv[2]))")
    out = subprocess.run([sys.executable, "-c", code, str(blob), f"{root}/sst/.zattrs"], check=True,
                         capture_output=True, timeout=120, env=os.environ).stdout
    assert out == open(f"{folder}/sst/.zattrs", "rb").read()


def test_dask_distributed_workers_read_verified(sample, gateway):
    from distributed import Client, LocalCluster
    folder, car, root = sample
    gw = gateway([car])
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        ds = xr.open_zarr(f"ipfs://{root}", storage_options={"gateways": [gw.url]})
        got = ds.sst.mean(dim=("lat", "lon")).compute()
        want = xr.open_zarr(folder).sst.mean(dim=("lat", "lon")).compute()
        assert np.allclose(got.values, want.values, equal_nan=True)

        def reads_here():
            from ipfsrt.fs import IPFSFileSystem
            return sum(fs.calls["get_many"] for fs in IPFSFileSystem._cache.values())
        per_worker = client.run(reads_here)
        assert len(per_worker) == 2 and all(n > 0 for n in per_worker.values()), per_worker


def test_installed_the_entry_points_register_without_an_import():
    """make install's layout: PREFIX/lib/python3/dist-packages, its dist-info
    naming the protocols, and PREFIX/lib/python3.X/dist-packages/ipfsrt.pth
    naming it: the folder Debian's python3 reads for /usr/local (checked
    below) adds the package's. Installed where test-embed installs (the
    prefix is compiled in: one prefix, no rebuild)."""
    build = os.environ.get("BUILD", "build")
    prefix = os.path.join(os.getcwd(), build, "stage")
    subprocess.run(["make", "--no-print-directory", "install", f"BUILD={build}", f"PREFIX={prefix}"], check=True,
                   capture_output=True, timeout=600)
    version = "python%d.%d" % sys.version_info[:2]
    site = os.path.join(prefix, "lib", "python3", "dist-packages")
    versioned = os.path.join(prefix, "lib", version, "dist-packages")
    code = ("import site, sys; site.addsitedir(sys.argv[1]); import fsspec; "
            "cls = fsspec.get_filesystem_class('ipfs'); car = fsspec.get_filesystem_class('car'); "
            "print(cls.__module__, car.__module__, sys.modules['ipfsrt'].__file__)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(["/usr/bin/python3", "-c", code, versioned], check=True, capture_output=True, text=True,
                         env=env, timeout=120).stdout.split()
    assert out[:2] == ["ipfsrt.fs", "ipfsrt.car"] and out[2].startswith(site)
    paths = subprocess.run(["/usr/bin/python3", "-c", "import sys; print(sys.path)"], capture_output=True,
                           text=True, env={"PATH": "/usr/bin:/bin"}).stdout
    assert f"/usr/local/lib/{version}/dist-packages" in paths
