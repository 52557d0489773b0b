"""fsspec's "ipfs" protocol on libipfsrt's verified client, in process:
ipfs://CID/path, read through untrusted HTTP gateways (the trustless gateway
protocol), every block checked against its CID before a byte of it is
returned. Options are the CLI's:

    gateways         URL or [URL, ...]; default: IPFS_GATEWAY, else the first
                     line of the IPIP-280 files ($IPFS_PATH/gateway,
                     ~/.ipfs/gateway, $XDG_CONFIG_HOME/ipfs/gateway,
                     /etc/ipfs/gateway), else public gateways
    policy           a built-in policy's name (round_robin, fastest, hedged,
                     failover, trust) or a FILE.lua; default: IPFSRT_POLICY
    trusted_policy   True runs the policy outside the sandbox (io, os, ...)
    cache_dir        verified blocks kept on disk (default $IPFSRT_CACHE_DIR/blocks
                     when that is set); cache_trust skips re-hashing them;
                     cache_size bytes the folder is kept under (default 10 GiB,
                     False = no limit); cache_memory bytes in memory (default
                     64 MiB, 0 = none)
    retries          rounds over the gateways after all failed (default 2)
    timeout          seconds to a first byte, or between bytes (default 30)
    deadline         seconds one request may take (default none)
    give_up          seconds a call waits while no gateway answers (default 60,
                     False = never)
    min_rate         bytes/s a body must keep up (default 1024, False = none)
    concurrency      requests in flight per gateway, fixed (default adapted,
                     up to max_concurrency, 128)
    threads          hashing threads (default: the CPUs usable, at most 4)
    cacert           PEM file of CAs for https gateways
    verify           False reads unchecked bytes (benchmarks only)

The filesystem pickles as its options: a Dask worker that unpickles it opens
a client of its own. A client is not used across fork(): the child opens one.
"""
import logging
import os
import threading
from collections import Counter

from . import _ipfsrt
from ._verified import VerifiedFileSystem

log = logging.getLogger("ipfsrt")


def _count(name, value):
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError(f"ipfs: {name} must be a whole number, not negative (got {value!r})")
    return value


def _positive(name, value, unit="seconds", off_allowed=False):
    """0.0 for the default (None), -1.0 for off (False, where allowed)."""
    if value is None:
        return 0.0
    if value is False and off_allowed:
        return -1.0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        what = f"a positive number of {unit}" + (", or False" if off_allowed else "")
        raise TypeError(f"ipfs: {name} must be {what} (got {value!r})")
    return float(value)


def _path_or_none(name, value):
    if value is not None and not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"ipfs: {name} must be a path (got {value!r})")
    return None if value is None else os.fspath(value)


def _gateways(value):
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(u, str) for u in value):
        raise TypeError(f"ipfs: gateways must be a URL or a list of URLs (got {value!r})")
    return list(value)


def client_options(gateways=None, policy=None, trusted_policy=False, verify=True, cache_dir=None,
                   cache_trust=False, cache_size=None, cache_memory=None, concurrency=None,
                   max_concurrency=None, retries=None, timeout=None, deadline=None, give_up=None,
                   min_rate=None, threads=None, cacert=None):
    """The options checked, defaults from the environment as the CLI takes
    them, as ipfsrt._ipfsrt.Client's keywords."""
    if policy is not None and not isinstance(policy, (str, os.PathLike)):
        raise TypeError(f"ipfs: policy must be a policy's name or a FILE.lua (got {policy!r})")
    if cache_dir is None and os.environ.get("IPFSRT_CACHE_DIR"):
        cache_dir = os.path.join(os.environ["IPFSRT_CACHE_DIR"], "blocks")
    return {
        "gateways": _gateways(gateways),
        "policy": os.fspath(policy) if policy is not None else os.environ.get("IPFSRT_POLICY") or None,
        "trusted_policy": bool(trusted_policy), "verify": bool(verify),
        "cache_dir": _path_or_none("cache_dir", cache_dir), "cache_trust": bool(cache_trust),
        "cache_size": 2**64 - 1 if cache_size is False else _count("cache_size", cache_size),
        # the C options' 0 is the default and UINT64_MAX none
        "cache_memory": 0 if cache_memory is None else _count("cache_memory", cache_memory) or 2**64 - 1,
        "concurrency": _count("concurrency", concurrency),
        "max_concurrency": _count("max_concurrency", max_concurrency),
        "retries": _count("retries", retries), "threads": _count("threads", threads),
        "timeout": _positive("timeout", timeout), "deadline": _positive("deadline", deadline),
        "give_up": _positive("give_up", give_up, off_allowed=True),
        "min_rate": _positive("min_rate", min_rate, "bytes/s", off_allowed=True),
        "cacert": _path_or_none("cacert", cacert),
    }


class IPFSFileSystem(VerifiedFileSystem):
    """ipfs://CID/path through untrusted gateways, every byte verified."""

    protocol = ("ipfs",)

    def __init__(self, gateways=None, policy=None, trusted_policy=False, verify=True, cache_dir=None,
                 cache_trust=False, cache_size=None, cache_memory=None, concurrency=None,
                 max_concurrency=None, retries=None, timeout=None, deadline=None, give_up=None,
                 min_rate=None, threads=None, cacert=None, **kwargs):
        super().__init__(**kwargs)
        self._options = client_options(
            gateways=gateways, policy=policy, trusted_policy=trusted_policy, verify=verify,
            cache_dir=cache_dir, cache_trust=cache_trust, cache_size=cache_size, cache_memory=cache_memory,
            concurrency=concurrency, max_concurrency=max_concurrency, retries=retries, timeout=timeout,
            deadline=deadline, give_up=give_up, min_rate=min_rate, threads=threads, cacert=cacert)
        # A client serves one call at a time: threads reading at once (Dask's)
        # each take an idle one, or open another, so their reads overlap.
        self._idle = []
        self._pool_pid = os.getpid()
        self._pool_lock = threading.Lock()
        self.calls = Counter()  # reader calls made: stat, ls, get_many
        self._give_back(self._take())  # a bad gateway or policy fails here, not at the first read

    def _take(self):
        with self._pool_lock:
            if self._pool_pid != os.getpid():  # forked: the parent's clients stay the parent's
                self._idle, self._pool_pid = [], os.getpid()
            if self._idle:
                return self._idle.pop()
        return _ipfsrt.Client(**self._options)

    def _give_back(self, client):
        with self._pool_lock:
            if self._pool_pid == os.getpid():
                self._idle.append(client)

    def _call(self, method, *args):
        self.calls[method] += 1
        client = self._take()
        try:
            return getattr(client, method)(*args)
        finally:
            if self._options["policy"]:
                for line in client.take_log():
                    log.info("%s", line)
            self._give_back(client)

    def _with_client(self, fn):
        client = self._take()
        try:
            return fn(client)
        finally:
            self._give_back(client)

    def stats(self):
        """What each gateway has done, summed over the filesystem's clients:
        requests, ok, bytes, verify_failures, errors by kind."""
        with self._pool_lock:
            clients = list(self._idle) if self._pool_pid == os.getpid() else []
        total = []
        for client in clients:
            for i, gw in enumerate(client.stats()):
                if i == len(total):
                    total.append({"url": gw["url"], "requests": 0, "ok": 0, "bytes": 0, "verify_failures": 0,
                                  "errors": Counter()})
                for key in ("requests", "ok", "bytes", "verify_failures"):
                    total[i][key] += gw[key]
                total[i]["errors"].update(gw["errors"])
        return total

    def gateways(self):
        """([url, ...], where the list came from)."""
        return self._with_client(lambda c: c.gateways())

    def close(self):
        """Stops the idle clients' threads and connections (a later read opens another)."""
        with self._pool_lock:
            idle, self._idle = (self._idle if self._pool_pid == os.getpid() else []), []
        for client in idle:
            client.close()


class IPNSFileSystem(IPFSFileSystem):
    """ipns://NAME/path: the name's signed record asked of the gateways (each
    answer verified, the highest sequence kept for its TTL), then the path
    read as ipfs:// is, every byte verified."""

    protocol = ("ipns",)

    def _call(self, method, *args):
        if method == "get_many":
            requests = [("ipns://" + r[0],) + tuple(r[1:]) for r in args[0]]
            return super()._call(method, requests, *args[1:])
        return super()._call(method, "ipns://" + args[0], *args[1:])

    def ukey(self, path):
        # what the name points at now: another version is another key
        return self.info(path)["CID"]
