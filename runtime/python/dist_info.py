"""Writes the package's dist-info beside it: its metadata, the fsspec entry
points ("ipfs", "car") and a RECORD of the installed files with their hashes.
Usage: python3 dist_info.py SITE VERSION (SITE holds the package ipfsrt/)."""
import base64
import hashlib
import os
import sys

site, version = sys.argv[1:3]
info = os.path.join(site, f"ipfsrt-{version}.dist-info")
os.makedirs(info, exist_ok=True)
files = {
    "METADATA": f"Metadata-Version: 2.1\nName: ipfsrt\nVersion: {version}\n"
                "Summary: IPFS data read in process through untrusted gateways, every byte verified (libipfsrt)\n"
                "Requires-Dist: fsspec\n",
    "entry_points.txt": "[fsspec.specs]\nipfs = ipfsrt.fs:IPFSFileSystem\nipns = ipfsrt.fs:IPNSFileSystem\n"
                        "car = ipfsrt.car:CARFileSystem\n",
    "top_level.txt": "ipfsrt\n",
    "INSTALLER": "make\n",
}
for name, text in files.items():
    with open(os.path.join(info, name), "w") as f:
        f.write(text)


def record_line(path):
    with open(os.path.join(site, path), "rb") as f:
        data = f.read()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


package = sorted(os.path.join("ipfsrt", n) for n in os.listdir(os.path.join(site, "ipfsrt"))
                 if not n.startswith("__pycache__"))
lines = [record_line(p) for p in package + [os.path.join(os.path.basename(info), n) for n in sorted(files)]]
with open(os.path.join(info, "RECORD"), "w") as f:
    f.write("\n".join(lines + [f"{os.path.basename(info)}/RECORD,,"]) + "\n")
