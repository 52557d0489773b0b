"""Gateways that lie, truncate or stall; policies; batching: the counts the
client reports, never the time it took."""
import fsspec
import numpy as np
import pytest
import xarray as xr
import zarr

import ipfsrt

POLICY = """
-- the gateways in reverse order: the last one configured first
return function(ctx)
  local p = {}
  function p:order(request, gateways)
    local out = {}
    for i = #gateways, 1, -1 do out[#out + 1] = gateways[i] end
    return out
  end
  function p:observe(request, gateway, outcome)
    if outcome.verification_failed then ctx.log("lied: " .. gateway.url) end
  end
  return p
end
"""


def test_a_lying_gateway_alone_raises(sample, gateway):
    folder, car, root = sample
    liar = gateway([car], ["--tamper", "1", "--seed", "3"])
    fs = ipfsrt.IPFSFileSystem(gateways=[liar.url], retries=1, skip_instance_cache=True)
    with pytest.raises(ipfsrt.VerificationError) as caught:
        fs.cat_file(f"{root}/sst/0.0.1.1")
    assert isinstance(caught.value, OSError) and liar.url in str(caught.value)
    assert caught.value.code == "fetch_failed"
    with pytest.raises(ipfsrt.VerificationError):
        xr.open_zarr(f"ipfs://{root}", storage_options={"gateways": [liar.url], "retries": 1}).sst.values
    assert fs.stats()[0]["verify_failures"] > 0


def test_wrong_blocks_are_refused_and_the_honest_gateway_answers(sample, gateway):
    folder, car, root = sample
    liar = gateway([car], ["--tamper", "0.5", "--wrong-block", "0.3", "--seed", "11"])
    honest = gateway([car])
    fs = ipfsrt.IPFSFileSystem(gateways=[liar.url, honest.url], policy="failover", skip_instance_cache=True)
    through = xr.open_zarr(fs.get_mapper(root))
    local = xr.open_zarr(folder)
    for name in local.data_vars:
        assert np.array_equal(through[name].values, local[name].values, equal_nan=True), name
    stats = fs.stats()
    assert stats[0]["url"] == liar.url and stats[0]["verify_failures"] > 0
    assert stats[1]["ok"] > 0


def test_truncating_and_stalling_gateways_raise(sample, gateway):
    folder, car, root = sample
    cutter = gateway([car], ["--truncate", "1"])
    fs = ipfsrt.IPFSFileSystem(gateways=[cutter.url], retries=1, skip_instance_cache=True)
    with pytest.raises(ipfsrt.Error) as caught:
        fs.cat_file(f"{root}/sst/0.0.0.0")
    assert cutter.url in str(caught.value) and "broke off" in str(caught.value)
    assert not isinstance(caught.value, ipfsrt.VerificationError)
    staller = gateway([car], ["--delay", "60000"])
    fs = ipfsrt.IPFSFileSystem(gateways=[staller.url], timeout=0.5, retries=1, give_up=2,
                               skip_instance_cache=True)
    with pytest.raises(OSError) as caught:
        fs.cat_file(f"{root}/.zgroup")
    assert staller.url in str(caught.value)


def test_a_policy_file_from_python(sample, gateway, tmp_path, caplog):
    folder, car, root = sample
    liar = gateway([car], ["--tamper", "1"])
    honest = gateway([car])
    policy = tmp_path / "reverse.lua"
    policy.write_text(POLICY)
    fs = ipfsrt.IPFSFileSystem(gateways=[liar.url, honest.url], policy=str(policy), skip_instance_cache=True)
    assert fs.cat_file(f"{root}/.zgroup") == open(f"{folder}/.zgroup", "rb").read()
    stats = fs.stats()
    assert stats[0]["requests"] == 0 and stats[1]["requests"] > 0  # the honest one, asked first
    with pytest.raises(ipfsrt.Error) as caught:
        ipfsrt.IPFSFileSystem(gateways=[honest.url], policy=str(tmp_path / "missing.lua"),
                              skip_instance_cache=True)
    assert "missing.lua" in str(caught.value)


def test_the_policy_log_reaches_logging(sample, gateway, tmp_path, caplog):
    folder, car, root = sample
    liar = gateway([car], ["--tamper", "1"])
    honest = gateway([car])
    policy = tmp_path / "forward.lua"
    policy.write_text(POLICY.replace("for i = #gateways, 1, -1 do", "for i = 1, #gateways do"))
    fs = ipfsrt.IPFSFileSystem(gateways=[liar.url, honest.url], policy=str(policy), skip_instance_cache=True)
    with caplog.at_level("INFO", logger="ipfsrt"):
        assert fs.cat_file(f"{root}/sst/0.0.0.0") == open(f"{folder}/sst/0.0.0.0", "rb").read()
    assert any(f"lied: {liar.url}" in r.getMessage() for r in caplog.records)


def test_366_keys_through_getitems_are_one_batched_call(series, gateway):
    folder, car, root = series
    gw = gateway([car])
    fs = ipfsrt.IPFSFileSystem(gateways=[gw.url], skip_instance_cache=True)
    array = zarr.open_consolidated(fs.get_mapper(root))["v"]
    before = fs.calls["get_many"]
    got = array[:, 1, 2]
    assert np.array_equal(got, zarr.open_consolidated(folder)["v"][:, 1, 2])
    assert fs.calls["get_many"] - before == 1
    # as many requests as the client needed, far fewer than a request a key
    # would be only through a gateway answering directories whole
    assert sum(s["requests"] for s in fs.stats()) <= 366 + 3


def test_xarray_without_dask_batches_a_time_series(series, gateway):
    folder, car, root = series
    gw = gateway([car])
    fs = fsspec.filesystem("ipfs", gateways=[gw.url], skip_instance_cache=True)
    ds = xr.open_zarr(fs.get_mapper(root), chunks=None)
    before = fs.calls["get_many"]
    assert np.array_equal(ds.v[:, 3, 0].values, zarr.open_consolidated(folder)["v"][:, 3, 0])
    assert fs.calls["get_many"] - before == 1


def test_a_cache_dir_serves_what_was_verified(sample, gateway, tmp_path):
    folder, car, root = sample
    gw = gateway([car])
    cache = tmp_path / "blocks"
    want = open(f"{folder}/sst/0.0.1.1", "rb").read()
    fs = ipfsrt.IPFSFileSystem(gateways=[gw.url], cache_dir=str(cache), skip_instance_cache=True)
    assert fs.cat_file(f"{root}/sst/0.0.1.1") == want
    gw.close()  # nothing answers now: the blocks come from the folder, hashed again
    again = ipfsrt.IPFSFileSystem(gateways=[gw.url], cache_dir=str(cache), retries=1, skip_instance_cache=True)
    assert again.cat_file(f"{root}/sst/0.0.1.1") == want
    assert sum(s["ok"] for s in again.stats()) == 0


def test_the_gateways_a_user_configured(sample, gateway, tmp_path, monkeypatch):
    folder, car, root = sample
    gw = gateway([car])
    want = open(f"{folder}/.zgroup", "rb").read()
    monkeypatch.setenv("IPFS_GATEWAY", gw.url)
    fs = ipfsrt.IPFSFileSystem(skip_instance_cache=True)
    assert fs.gateways() == ([gw.url], "IPFS_GATEWAY")
    assert fs.cat_file(f"{root}/.zgroup") == want
    monkeypatch.delenv("IPFS_GATEWAY")
    (tmp_path / "gateway").write_text(gw.url + "\n")  # IPIP-280: $IPFS_PATH/gateway
    monkeypatch.setenv("IPFS_PATH", str(tmp_path))
    fs = ipfsrt.IPFSFileSystem(skip_instance_cache=True)
    urls, source = fs.gateways()
    assert urls == [gw.url] and source.endswith("/gateway")
    assert fs.cat_file(f"{root}/.zgroup") == want
