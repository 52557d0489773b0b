// Prints CIDs made by the multiformats library, in many bases, as JSON for
// check-cids.lua to compare with ipfsrt's parser. Deterministic (seeded).
import { CID } from 'multiformats/cid'
import * as Digest from 'multiformats/hashes/digest'
import { bases } from 'multiformats/basics'

let seed = 20261130
const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n }
const codecs = [0x55, 0x70, 0x71, 0x72, 0x0129, 0x0200, 0x0202, 0x51, 0x78, 0x300000]
const hashes = [[0x12, 32], [0x13, 64], [0x00, null], [0x1e, 32], [0xb220, 32], [0x16, 32]]
const baseNames = ['base32', 'base32upper', 'base36', 'base36upper', 'base58btc', 'base16',
  'base16upper', 'base64', 'base64url', 'base64pad', 'base64urlpad', 'base32pad']
const out = []
for (let i = 0; i < 600; i++) {
  const [code, size] = hashes[rand(hashes.length)]
  const len = size ?? rand(129)
  const digest = Digest.create(code, Uint8Array.from({ length: len }, () => rand(256)))
  const v0 = code === 0x12 && rand(4) === 0
  const cid = v0 ? CID.createV0(digest) : CID.createV1(codecs[rand(codecs.length)], digest)
  const baseName = v0 ? 'base58btc' : baseNames[rand(baseNames.length)]
  out.push({
    string: v0 ? cid.toString() : cid.toString(bases[baseName]),
    base: baseName,
    version: cid.version,
    codec: cid.code,
    hash: code,
    digest: Buffer.from(digest.digest).toString('hex'),
    bytes: Buffer.from(cid.bytes).toString('hex'),
    v1: cid.toV1().toString()
  })
}
process.stdout.write(JSON.stringify(out))
