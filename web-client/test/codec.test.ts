import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../src/fairdice';
import { MAX_FRAME_BYTES, decodeFrame, encodeFrame } from '../src/net/codec';

// Python: msgpack.packb({'t': 'MOVE', 'v': 3, 'moves': [[8, 5], [6, 5]], 'reveal': bytes(range(4)),
//                        'ok': True, 'x': None, 'big': 2**40, 'neg': -7}).hex()
const PYTHON =
  '88a174a44d4f5645a17603a56d6f76657392920805920605a672657665616cc40400010203a26f6bc3a178c0' +
  'a3626967cf0000010000000000a36e6567f9';

describe('msgpack frames', () => {
  const message = {
    t: 'MOVE',
    v: 3,
    moves: [
      [8, 5],
      [6, 5],
    ],
    reveal: new Uint8Array([0, 1, 2, 3]),
    ok: true,
    x: null,
    big: 2 ** 40,
    neg: -7,
  };

  it('encodes byte for byte like the Python msgpack package', () => {
    expect(toHex(encodeFrame(message))).toBe(PYTHON);
  });

  it('decodes what Python sends (bytes stay bytes)', () => {
    const decoded = decodeFrame(fromHex(PYTHON)) as typeof message;
    expect(decoded).toEqual(message);
    expect(decoded.reveal).toBeInstanceOf(Uint8Array);
  });

  it('refuses oversized frames', () => {
    expect(() => decodeFrame(new Uint8Array(MAX_FRAME_BYTES + 1))).toThrow(/too large/);
  });
});
