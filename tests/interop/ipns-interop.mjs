// IPNS both ways with npm's `ipns` and `@libp2p/crypto` (js-libp2p's):
//   node ipns-interop.mjs make DIR   records made by js (Ed25519 and RSA, V1+V2
//                                    and V2-only) as DIR/NAME_KIND.ipns-record,
//                                    and DIR/expected.json: what each says
//   node ipns-interop.mjs check DIR  every DIR/NAME_KIND.ipns-record (made by
//                                    ipfsrt) validated by js for NAME, and
//                                    DIR/KEY.key (ipfsrt's keystore files) read
//                                    as libp2p private keys; prints JSON results
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { generateKeyPair, privateKeyFromProtobuf } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey, peerIdFromString } from '@libp2p/peer-id'
import { createIPNSRecord, marshalIPNSRecord, unmarshalIPNSRecord, multihashToIPNSRoutingKey } from 'ipns'
import { ipnsValidator } from 'ipns/validator'
import { base36 } from 'multiformats/bases/base36'

const [mode, dir] = process.argv.slice(2)
const VALUE = '/ipfs/bafkqaddwgevxmmraojswg33smq/js'
const DAY = 24 * 3600 * 1000

if (mode === 'make') {
  const expected = {}
  for (const [type, v1] of [['Ed25519', true], ['Ed25519', false], ['RSA', true]]) {
    const key = type === 'RSA' ? await generateKeyPair('RSA', 2048) : await generateKeyPair('Ed25519')
    const name = peerIdFromPrivateKey(key).toCID().toString(base36)
    const seq = v1 ? 7 : 8
    const record = await createIPNSRecord(key, VALUE, seq, DAY, v1 ? {} : { v1Compatible: false })
    const file = `${name}_js-${type}-${v1 ? 'v1-v2' : 'v2'}.ipns-record`
    writeFileSync(`${dir}/${file}`, marshalIPNSRecord(record))
    expected[file] = { name, value: VALUE, sequence: seq }
  }
  writeFileSync(`${dir}/expected.json`, JSON.stringify(expected))
} else if (mode === 'check') {
  const out = {}
  for (const file of readdirSync(dir)) {
    const m = file.match(/^([a-z0-9]+)_.*\.ipns-record$/)
    const k = file.match(/^(.+)\.key$/)
    try {
      if (m) {
        const peer = peerIdFromString(m[1])
        const bytes = readFileSync(`${dir}/${file}`)
        await ipnsValidator(multihashToIPNSRoutingKey(peer.toMultihash()), bytes)
        const record = unmarshalIPNSRecord(bytes)
        out[file] = { valid: true, value: record.value, sequence: Number(record.sequence) }
      } else if (k) {
        const key = privateKeyFromProtobuf(readFileSync(`${dir}/${file}`))
        out[file] = { type: key.type, name: peerIdFromPrivateKey(key).toCID().toString(base36) }
      }
    } catch (e) {
      out[file] = { valid: false, error: String(e) }
    }
  }
  console.log(JSON.stringify(out))
} else {
  console.error('usage: node ipns-interop.mjs make|check DIR')
  process.exit(2)
}
