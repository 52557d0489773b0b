// @helia/verified-fetch in a browser page: with one trustless gateway (another
// origin) as its only source of blocks, it fetches each path under a root,
// checks every block itself, and writes each file's status, length and
// SHA-256 into the page as JSON (read back by chromium --dump-dom). Bundled
// for the page by esbuild (tests/interop/verified-fetch-browser.lua).
import { createHeliaLight } from 'helia'
import { withHTTP } from '@helia/http'
import { fallbackRouter } from '@helia/fallback-router'
import { createVerifiedFetch } from '@helia/verified-fetch'

const args = new URLSearchParams(location.search)
const gateway = args.get('gw')
const root = args.get('root')
const paths = args.get('paths').split(',')

const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('')

async function main () {
  // no delegated routers and no recursive gateways: the gateway is the only source
  const helia = withHTTP(createHeliaLight(), {
    delegatedRouters: [], recursiveGateways: [], allowInsecure: true, allowLocal: true
  })
  // a plain router offering the fallback router's providers (see verified-fetch/fetch.mjs)
  const fallback = fallbackRouter({ gateways: [gateway], shuffle: false })
  helia.addRouter({ name: 'local-gateway', findProviders: (cid, options) => fallback.findProviders(cid, options) })
  await helia.start()
  const fetch = await createVerifiedFetch(helia)
  const out = {}
  for (const path of paths) {
    try {
      // no timeout of its own: under chromium's virtual time it would fire while
      // the gateway answers (the test's run is bounded from outside)
      const res = await fetch(`ipfs://${root}/${path}`)
      const bytes = await res.arrayBuffer()
      out[path] = { status: res.status, length: bytes.byteLength, sha256: hex(await crypto.subtle.digest('SHA-256', bytes)) }
    } catch (e) {
      out[path] = { error: String(e) }
    }
  }
  await fetch.stop()
  await helia.stop()
  return out
}

main().then((out) => { document.body.textContent = JSON.stringify(out) },
  (e) => { document.body.textContent = JSON.stringify({ error: String(e) }) })
