/**
 * A cache entry's vector as a short string, exact to float32, for the stores that keep it as text (a Postgres
 * column, a Redis value). As JSON numbers one question's 768 were thousands of characters to move and parse, and a
 * similarity scan reads a thousand: a lookup that missed cost a median 77 ms on Redis and 151 ms on a Postgres server
 * at 1,000 entries (S-079's open half; `npm run bench:cache`, docs/BENCHMARKS-CACHE.md at d775842). The hashing
 * embedder's vectors are mostly zeros (a question's code is under a fifth of its JSON: vector-code.test.ts), so a vector is
 * written sparse, each non-zero's place and value, when that is shorter, else dense:
 *
 *   `d` + base64 of the float32 values, little-endian;
 *   `s<length>.` + base64 of the uint32 places, then of their float32 values.
 */
export function encodeVector(vector: ArrayLike<number>): string {
  const values = Float32Array.from(vector);
  const places: number[] = [];
  for (let i = 0; i < values.length; i++) if (values[i] !== 0 || Object.is(values[i], -0)) places.push(i);
  if (places.length * 2 >= values.length) return `d${base64(bytesOf(values))}`;
  const packed = new Uint32Array(places.length * 2);
  const asFloats = new Float32Array(packed.buffer);
  places.forEach((place, j) => {
    packed[j] = place;
    asFloats[places.length + j] = values[place]!;
  });
  return `s${values.length}.${base64(bytesOf(packed))}`;
}

/** The vector `encodeVector` wrote. Throws on a string it did not write: a store reads that as no vector. */
export function decodeVector(code: string): Float32Array {
  if (code.startsWith('d')) return new Float32Array(littleEndian(bytesFrom(code.slice(1)), 4).buffer);
  const dot = code.indexOf('.');
  const length = Number(code.slice(1, dot));
  if (!code.startsWith('s') || dot < 0 || !Number.isInteger(length) || length < 0) throw new Error('not a vector code');
  const bytes = littleEndian(bytesFrom(code.slice(dot + 1)), 4);
  const n = bytes.length / 8;
  if (!Number.isInteger(n)) throw new Error('not a vector code');
  const places = new Uint32Array(bytes.buffer, 0, n);
  const values = new Float32Array(bytes.buffer, n * 4, n);
  const vector = new Float32Array(length);
  for (let j = 0; j < n; j++) {
    if (places[j]! >= length) throw new Error('not a vector code');
    vector[places[j]!] = values[j]!;
  }
  return vector;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The bytes of a typed array in little-endian order, whatever the machine's. */
function bytesOf(array: Float32Array | Uint32Array): Uint8Array {
  return littleEndian(new Uint8Array(array.buffer, array.byteOffset, array.byteLength).slice(), 4);
}

/** Swaps each `width`-byte word on a big-endian machine (the swap is its own inverse); a copy is never shared. */
function littleEndian(bytes: Uint8Array, width: number): Uint8Array {
  if (bytes.length % width !== 0) throw new Error('not a vector code');
  if (!LITTLE_ENDIAN) for (let i = 0; i < bytes.length; i += width) bytes.subarray(i, i + width).reverse();
  return bytes;
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function bytesFrom(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
