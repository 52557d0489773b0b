"""A local CAR file read verified: its UnixFS trees as an fsspec filesystem,
every block hashed against its CID as it is read (libipfsrt's CAR reader).

    fs = ipfsrt.car.open("sample.car")
    ds = xr.open_zarr(fs.get_mapper(fs.root))

or by URL: xr.open_zarr("car://ROOT", storage_options={"car": "sample.car"}).
Paths are CID[/path]; fs.root is the CAR's first root, fs.roots all of them.
"""
import os
import threading

from . import _ipfsrt
from ._verified import VerifiedFileSystem


class CARFileSystem(VerifiedFileSystem):
    """car://CID/path inside one CAR file, every block verified."""

    protocol = ("car",)

    def __init__(self, car=None, **kwargs):
        if not isinstance(car, (str, os.PathLike)):
            raise TypeError(f"car: the CAR file's path is required: car=PATH (got {car!r})")
        super().__init__(**kwargs)
        self.path = os.fspath(car)
        self._car_lock = threading.Lock()
        self._car = _ipfsrt.CarFile(self.path)
        self.roots = self._car.roots()
        self.root = self.roots[0] if self.roots else None

    def _call(self, method, *args):
        with self._car_lock:
            if self._car is None:  # closed: fsspec hands out the same instance again
                self._car = _ipfsrt.CarFile(self.path)
            car = self._car
        return getattr(car, method)(*args)

    def close(self):
        """Unmaps the file (a later read maps it again)."""
        with self._car_lock:
            car, self._car = self._car, None
        if car is not None:
            car.close()


def open(path):  # noqa: A001 (ipfsrt.car.open, as the Lua library says it)
    """The CAR file at path, as a CARFileSystem."""
    return CARFileSystem(car=path)
