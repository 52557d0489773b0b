"""What the ipfs and car filesystems share: fsspec's calls turned into the
reader's (a libipfsrt client, or a CAR file) stat, ls and batched get_many.

Only a verified directory without the name is a missing file
(FileNotFoundError): a gateway failure or bytes that failed their check
raise, even where fsspec would drop the key (zarr reads a dropped chunk as
its fill value, and would hand back an answer the data never held)."""
from glob import has_magic

from fsspec.spec import AbstractBufferedFile, AbstractFileSystem

_DIRECTORIES = ("directory", "hamt-shard")


def _kind(node_type):
    if node_type in _DIRECTORIES:
        return "directory"
    if node_type in ("file", "raw"):
        return "file"
    return "other"


def _is_range_past_end(error):
    return getattr(error, "code", None) == "bad_range"


class VerifiedFileSystem(AbstractFileSystem):
    """An fsspec filesystem over a reader with stat, ls and get_many; paths
    are CID[/path]."""

    root_marker = ""

    def _call(self, method, *args):
        """The reader's method called: stat, ls or get_many."""
        raise NotImplementedError

    @classmethod
    def _strip_protocol(cls, path):
        if isinstance(path, (list, tuple)):
            return [cls._strip_protocol(p) for p in path]
        path = str(path)
        for prefix in [p + "://" for p in ([cls.protocol] if isinstance(cls.protocol, str) else cls.protocol)]:
            if path.startswith(prefix):
                path = path[len(prefix):]
        if path.startswith("/ipfs/"):
            path = path[len("/ipfs/"):]
        return path.strip("/")

    def info(self, path, **kwargs):
        path = self._strip_protocol(path)
        node = self._call("stat", path)
        return {"name": path, "size": node["size"], "type": _kind(node["type"]), "CID": node["cid"],
                **{k: node[k] for k in ("mode", "mtime") if k in node}}

    def ls(self, path, detail=True, **kwargs):
        path = self._strip_protocol(path)
        entries = self._call("ls", path, bool(detail))
        if not detail:
            return [f"{path}/{e['name']}" for e in entries]
        return [{"name": f"{path}/{e['name']}", "size": e.get("size"), "type": _kind(e.get("type")),
                 "CID": e["cid"]} for e in entries]

    def exists(self, path, **kwargs):
        try:
            self.info(path)
            return True
        except FileNotFoundError:
            return False

    def isdir(self, path):
        try:
            return self.info(path)["type"] == "directory"
        except FileNotFoundError:
            return False

    def isfile(self, path):
        try:
            return self.info(path)["type"] == "file"
        except FileNotFoundError:
            return False

    def ukey(self, path):
        return self.info(path)["CID"]

    def _request(self, path, start, end):
        """(path, offset, length, from_end) for bytes [start, end) as fsspec
        counts them (negative: from the end), or None when they are none."""
        path = self._strip_protocol(path)
        start = 0 if start is None else int(start)
        if end is None and start < 0:
            return (path, 0, -start, True)
        if start < 0 or (end is not None and end < 0):
            size = self.info(path)["size"]
            start = max(size + start, 0) if start < 0 else start
            end = None if end is None else (max(size + end, 0) if end < 0 else end)
        if end is not None and end <= start:
            return None
        return (path, start, None if end is None else end - start, False)

    def _get_many(self, requests):
        """Each request's bytes or exception, in one batched call."""
        wanted = [r for r in requests if r is not None]
        results = iter(self._call("get_many", wanted) if wanted else [])
        out = []
        for r in requests:
            got = b"" if r is None else next(results)
            out.append(b"" if _is_range_past_end(got) else got)
        return out

    def cat_file(self, path, start=None, end=None, **kwargs):
        got = self._get_many([self._request(path, start, end)])[0]
        if isinstance(got, BaseException):
            raise got
        return got

    def _collect(self, keys, results, on_error):
        out = {}
        for key, got in zip(keys, results):
            if isinstance(got, BaseException):
                if on_error == "raise" or not isinstance(got, FileNotFoundError):
                    raise got
                if on_error == "omit":
                    continue
            out[key] = got
        return out

    def cat(self, path, recursive=False, on_error="raise", **kwargs):
        """Many paths' bytes in one batched, concurrent, verified read."""
        listed = [path] if isinstance(path, str) else list(path)
        if recursive or any(has_magic(p) for p in listed):
            paths = self.expand_path(path, recursive=recursive)
        elif isinstance(path, str):
            return self.cat_file(path)
        else:
            paths = self._strip_protocol(listed)
        results = self._get_many([self._request(p, None, None) for p in paths])
        return self._collect(paths, results, on_error)

    def cat_ranges(self, paths, starts, ends, max_gap=None, on_error="return", **kwargs):
        if not len(paths) == len(starts) == len(ends):
            raise ValueError("cat_ranges: paths, starts and ends differ in length")
        results = self._get_many([self._request(p, s, e) for p, s, e in zip(paths, starts, ends)])
        out = []
        for got in results:
            if isinstance(got, BaseException) and (on_error == "raise" or not isinstance(got, FileNotFoundError)):
                raise got
            out.append(got)
        return out

    def _open(self, path, mode="rb", block_size=None, autocommit=True, cache_options=None, **kwargs):
        if mode != "rb":
            raise NotImplementedError(f"{type(self).__name__} is read-only: mode {mode!r}")
        return VerifiedFile(self, path, mode, block_size or "default", cache_options=cache_options, **kwargs)


class VerifiedFile(AbstractBufferedFile):
    """A file opened for reading: its ranges read verified as they are asked for."""

    def _fetch_range(self, start, end):
        return self.fs.cat_file(self.path, start, end)
