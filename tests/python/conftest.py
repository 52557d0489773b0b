"""Fixtures for the Python package's tests: the OISST-like sample (4 days)
and a 366-day series made here, each packed into a CAR, and local gateways
(`ipfsrt serve` on 127.0.0.1, honest or injecting faults) started and
stopped by the tests themselves. BUILD names the build tree (default build)."""
import os
import subprocess

import numpy as np
import pytest
import xarray as xr

BUILD = os.environ.get("BUILD", "build")
EXE = os.path.join(BUILD, "ipfsrt")


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True, timeout=600).stdout


@pytest.fixture(scope="session")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("python")


@pytest.fixture(scope="session")
def sample(work):
    """(folder, car, root) of the OISST-like sample, 4 days, Zarr v2."""
    folder, car = str(work / "sample"), str(work / "sample.car")
    root = run(EXE, "scripts/sample/oisst.lua", folder, "--days", "4", "--car", car).split()[-1]
    return folder, car, root


@pytest.fixture(scope="session")
def series(work):
    """(folder, car, root) of a Zarr v2 array "v" of 366 days x 4 x 4, a
    chunk a day: a point's time series is 366 keys."""
    folder, car = str(work / "series"), str(work / "series.car")
    values = np.arange(366 * 16, dtype="float32").reshape(366, 4, 4)
    xr.Dataset({"v": (("time", "y", "x"), values)}).to_zarr(folder, encoding={"v": {"chunks": (1, 4, 4)}})
    root = run(EXE, "pack", folder, "-o", car).split()[-1]
    return folder, car, root


class Gateway:
    """`ipfsrt serve CARS... [faults]` on 127.0.0.1; url, stopped on close."""

    def __init__(self, cars, faults=()):
        self.proc = subprocess.Popen([EXE, "serve", *cars, *faults, "-q"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.url = self.proc.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), f"serve printed {self.url!r}"

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def gateway():
    """gateway(cars, faults=()) -> Gateway, stopped after the test."""
    started = []

    def start(cars, faults=()):
        started.append(Gateway(cars, faults))
        return started[-1]
    yield start
    for g in started:
        g.close()
