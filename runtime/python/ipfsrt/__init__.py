"""ipfsrt for Python: IPFS data read in process through untrusted gateways,
every byte checked against its CID by libipfsrt.

    import xarray as xr
    ds = xr.open_zarr("ipfs://bafy.../", storage_options={"gateways": ["http://127.0.0.1:8080"]})

Importing ipfsrt registers fsspec's "ipfs" protocol (ipfsrt.fs.IPFSFileSystem),
"ipns" (ipfsrt.fs.IPNSFileSystem: ipns://NAME/path, the name's signed record
verified, then read as ipfs://) and "car" (ipfsrt.car.CARFileSystem: a local
CAR file, read verified); the installed package's entry points register them
without the import.
"""
import fsspec

from ._ipfsrt import Error, VerificationError, version
from . import car
from .fs import IPFSFileSystem, IPNSFileSystem
from .car import CARFileSystem

__version__ = version
__all__ = ["Error", "VerificationError", "IPFSFileSystem", "IPNSFileSystem", "CARFileSystem", "car", "version"]

fsspec.register_implementation("ipfs", IPFSFileSystem, clobber=True)
fsspec.register_implementation("ipns", IPNSFileSystem, clobber=True)
fsspec.register_implementation("car", CARFileSystem, clobber=True)
