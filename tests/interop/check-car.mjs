// Reads the CARs ipfsrt wrote (write-cars.lua) with @ipld/car, re-hashes every
// block with multiformats, and compares version, roots and blocks with what
// ipfsrt was given. Usage: node check-car.mjs OUTDIR
import { CarReader } from '@ipld/car'
import { sha256, sha512 } from 'multiformats/hashes/sha2'
import { identity } from 'multiformats/hashes/identity'
import fs from 'node:fs'
import path from 'node:path'

const hashers = { [sha256.code]: sha256, [sha512.code]: sha512, [identity.code]: identity }
const dir = process.argv[2]
const listing = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8'))
let failures = 0
let passes = 0
for (const [file, want] of Object.entries(listing)) {
  const problems = []
  const reader = await CarReader.fromBytes(fs.readFileSync(file))
  if (reader.version !== want.version) problems.push(`version ${reader.version}`)
  const roots = (await reader.getRoots()).map(String)
  if (JSON.stringify(roots) !== JSON.stringify(want.roots)) problems.push(`roots ${roots}`)
  const got = []
  for await (const b of reader.blocks()) {
    const digest = await hashers[b.cid.multihash.code].digest(b.bytes)
    if (!Buffer.from(digest.bytes).equals(Buffer.from(b.cid.multihash.bytes))) problems.push(`hash of ${b.cid}`)
    got.push({ cid: b.cid.toString(), bytes: Buffer.from(b.bytes).toString('base64') })
  }
  const flat = (blocks) => blocks.map((b) => `${b.cid} ${b.bytes}`).join('\n')
  if (flat(got) !== flat(want.blocks)) problems.push('blocks differ')
  if (problems.length) {
    failures++
    console.log(`FAIL ${file}: ${problems.join('; ')}`)
  } else {
    passes++
    console.log(`ok   ${file}: CARv${reader.version}, ${got.length} blocks read back by @ipld/car`)
  }
}
console.log(`${passes} passed, ${failures} failed`)
process.exit(failures ? 1 : 0)
