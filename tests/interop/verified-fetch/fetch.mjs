// Fetches files through @helia/verified-fetch with one trustless gateway as the
// only source of blocks, and prints each file's length and SHA-256 as JSON.
// ROOT may be ipns://NAME: the name's record is then looked up at the gateway
// (its delegated routing API, /routing/v1/ipns/NAME) and verified by Helia.
// Usage: node fetch.mjs GATEWAY_URL ROOT_CID|ipns://NAME PATH...
import { createHash } from 'node:crypto'
import { createHeliaLight } from 'helia'
import { withHTTP } from '@helia/http'
import { fallbackRouter } from '@helia/fallback-router'
import { createVerifiedFetch } from '@helia/verified-fetch'

const [gateway, root, ...paths] = process.argv.slice(2)
// no delegated routers and no recursive gateways: the local gateway is the only source
const ipns = root.startsWith('ipns://')
const helia = withHTTP(createHeliaLight(), {
  delegatedRouters: ipns ? [gateway] : [], recursiveGateways: [], allowInsecure: true, allowLocal: true
})
// Registered as a regular router: Helia asks its non-fallback routers first, and
// with none of them that lookup never completes. So the fallback router's
// providers are offered by a router that does not declare the 'fallback' capability.
const fallback = fallbackRouter({ gateways: [gateway], shuffle: false })
helia.addRouter({
  name: 'local-gateway',
  findProviders: (cid, options) => fallback.findProviders(cid, options)
})
await helia.start()
const fetch = await createVerifiedFetch(helia)
const out = {}
for (const path of paths) {
  const res = await fetch(ipns ? `${root}/${path}` : `ipfs://${root}/${path}`, { signal: AbortSignal.timeout(30000) })
  const bytes = Buffer.from(await res.arrayBuffer())
  out[path] = { status: res.status, length: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }
}
await fetch.stop()
await helia.stop()
console.log(JSON.stringify(out))
process.exit(0)
