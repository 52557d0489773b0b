/* MurmurHash3 x64_128 with seed 0, as UnixFS HAMTs use it: only the first 64-bit
 * word is kept. Not a cryptographic hash; it only places names in buckets. */
#include <string.h>

#include "ipfsrt/unixfs.h"
#include "base/base_internal.h"

static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t fmix64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

uint64_t ipfsrt_murmur3_x64_64(const uint8_t *data, size_t len) {
    const uint64_t c1 = 0x87c37b91114253d5ull, c2 = 0x4cf5ad432745937full;
    uint64_t h1 = 0, h2 = 0;
    size_t blocks = len / 16;
    for (size_t i = 0; i < blocks; i++) {
        uint64_t k1 = ipfsrt_le64(data + 16 * i), k2 = ipfsrt_le64(data + 16 * i + 8);
        k1 *= c1; k1 = rotl64(k1, 31); k1 *= c2; h1 ^= k1;
        h1 = rotl64(h1, 27); h1 += h2; h1 = h1 * 5 + 0x52dce729;
        k2 *= c2; k2 = rotl64(k2, 33); k2 *= c1; h2 ^= k2;
        h2 = rotl64(h2, 31); h2 += h1; h2 = h2 * 5 + 0x38495ab5;
    }
    const uint8_t *tail = data + blocks * 16;
    uint64_t k1 = 0, k2 = 0;
    size_t rest = len & 15;
    for (size_t i = rest; i > 8; i--) k2 |= (uint64_t)tail[i - 1] << (8 * (i - 9));
    if (rest > 8) { k2 *= c2; k2 = rotl64(k2, 33); k2 *= c1; h2 ^= k2; }
    for (size_t i = rest < 8 ? rest : 8; i > 0; i--) k1 |= (uint64_t)tail[i - 1] << (8 * (i - 1));
    if (rest > 0) { k1 *= c1; k1 = rotl64(k1, 31); k1 *= c2; h1 ^= k1; }
    h1 ^= len;
    h2 ^= len;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    return h1;
}
