/**
 * Wire frames: MessagePack, as the server's `msgpack` (strings as str, bytes as bin). The
 * network layer sends and receives these over the WebSocket; the message shapes come with
 * the protocol.
 */

import { decode, encode } from '@msgpack/msgpack';

/** Refuse frames larger than this before decoding (the server has its own limits too). */
export const MAX_FRAME_BYTES = 64 * 1024;

export function encodeFrame(message: unknown): Uint8Array {
  return encode(message);
}

export function decodeFrame(frame: Uint8Array): unknown {
  if (frame.byteLength > MAX_FRAME_BYTES) throw new RangeError(`frame of ${frame.byteLength} bytes is too large`);
  return decode(frame);
}
