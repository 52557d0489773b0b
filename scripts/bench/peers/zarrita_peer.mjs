// One scenario in a cold process, for make bench-peers: zarrita over the
// gateway's plain HTTP, or (--verified) fed block-verified bytes by
// @helia/verified-fetch with the gateway as its only trustless source. Labels
// become indices from the coordinate arrays read at open (zarrita has no
// label selection). Prints {open_ms, run_ms, count, sum} as ipfsrt_peer.lua.
// Usage: node zarrita_peer.mjs GATEWAY ROOT SCENARIO [--verified]
import * as zarr from 'zarrita'

const [gateway, root, name, mode] = process.argv.slice(2)
const t0 = performance.now()
let store, stop = async () => {}
if (mode === '--verified') {
  const { createHeliaLight } = await import('helia')
  const { withHTTP } = await import('@helia/http')
  const { fallbackRouter } = await import('@helia/fallback-router')
  const { createVerifiedFetch } = await import('@helia/verified-fetch')
  const helia = withHTTP(createHeliaLight(), {
    delegatedRouters: [], recursiveGateways: [], allowInsecure: true, allowLocal: true
  })
  const fallback = fallbackRouter({ gateways: [gateway], shuffle: false })
  helia.addRouter({ name: 'local-gateway', findProviders: (cid, options) => fallback.findProviders(cid, options) })
  await helia.start()
  const fetch = await createVerifiedFetch(helia)
  store = {
    async get (key) {
      const res = await fetch(`ipfs://${root}${key}`)
      if (res.status === 404) return undefined
      if (!res.ok) throw new Error(`${key}: HTTP ${res.status}`)
      return new Uint8Array(await res.arrayBuffer())
    }
  }
  stop = async () => { await fetch.stop(); await helia.stop() }
} else {
  store = new zarr.FetchStore(`${gateway}/ipfs/${root}`)
}
const consolidated = await zarr.withConsolidatedMetadata(store)
const group = zarr.root(consolidated)
const open = (path) => zarr.open(group.resolve(path), { kind: 'array' })
const [sst, lat, lon, time] = await Promise.all(['sst', 'lat', 'lon', 'time'].map(open))
const [lats, lons, times] = await Promise.all([lat, lon, time].map(async (a) => (await zarr.get(a)).data))
const t1 = performance.now()

const within = (values, lo, hi) => {
  let first = -1; let last = -1
  values.forEach((v, i) => { if (v >= lo && v <= hi) { if (first < 0) first = i; last = i } })
  return zarr.slice(first, last + 1)
}
const nearest = (values, x) => {
  let best = 0
  values.forEach((v, i) => { if (Math.abs(v - x) <= Math.abs(values[best] - x)) best = i })
  return best
}
let raw
if (name === 'open') raw = null
// (time, zlev, lat, lon), as NOAA's: zlev is one depth, the surface
else if (name === 'spatial') raw = await zarr.get(sst, [Math.min(59, times.length - 1), 0, within(lats, 20, 60), within(lons, 270, 310)])
else if (name === 'timeseries') raw = await zarr.get(sst, [null, 0, nearest(lats, 35), nearest(lons, 285)])
else if (name === 'fullfield') raw = await zarr.get(sst, [0, 0, null, null])
else if (name === 'bulk') raw = await zarr.get(sst, null)
else throw new Error(`no scenario ${name}`)
const t2 = performance.now()
let count = name === 'open' ? 1 : 0; let sum = 0
if (raw) {
  for (const v of raw.data) if (v !== -999) { count++; sum += v } // hundredths: scale_factor 0.01
  if (name === 'bulk') { sum = Math.round(sum / count); count = 1 }
}
await stop()
console.log(JSON.stringify({ open_ms: t1 - t0, run_ms: t2 - t1, count, sum }))
process.exit(0)
