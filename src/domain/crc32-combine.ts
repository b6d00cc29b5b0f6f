/**
 * CRC-32 (the ZIP's, reflected polynomial 0xEDB88320) of two byte strings joined, from the CRC-32 of each and
 * the second one's length: zlib's crc32_combine. A CRC is the message's remainder modulo the polynomial over
 * GF(2), so appending n bytes multiplies the first CRC by x^(8n) mod p; x^(8n) is built from the powers
 * x^(2^k) mod p by square-and-multiply. Lets a file's CRC be known from its chunks' without reading it again.
 */
const POLY = 0xedb88320;

/** a · b modulo p (both polynomials in reflected order: bit 31 is x^0). */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** X2N[k] = x^(2^k) mod p. */
const X2N: number[] = (() => {
  const t: number[] = [];
  let p = 0x40000000; // x^1
  t.push(p);
  for (let k = 1; k < 32; k++) t.push((p = multModP(p, p)));
  return t;
})();

/** x^(n · 2^k) mod p, for any safe integer n. */
function x2nModP(n: number, k: number): number {
  let p = 0x80000000; // x^0
  while (n > 0) {
    if (n % 2 === 1) p = multModP(X2N[k & 31], p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** CRC-32 of A ‖ B from crc(A), crc(B) and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multModP(x2nModP(lengthB, 3), crcA >>> 0) ^ (crcB >>> 0)) >>> 0;
}
