// Just enough of Python's unpickler to read one pickled `str` (protocols 2–5): LiveCodeBench stores
// each problem's private tests as base64(zlib(pickle(json string))). Anything else is refused, so a
// pickle can never make this code do more than copy bytes.

export class PickleError extends Error {}

/** The string a pickle of a single Python `str` holds; throws PickleError on any other content. */
export function unpickleString(bytes: Buffer): string {
  let pos = 0;
  let value: string | undefined;
  const need = (n: number) => {
    if (pos + n > bytes.length) throw new PickleError("truncated pickle");
  };
  const readLength = (size: 1 | 4 | 8): number => {
    need(size);
    const n = size === 1 ? bytes.readUInt8(pos) : size === 4 ? bytes.readUInt32LE(pos) : Number(bytes.readBigUInt64LE(pos));
    pos += size;
    return n;
  };
  while (pos < bytes.length) {
    const op = bytes[pos++]!;
    switch (op) {
      case 0x80: // PROTO
        readLength(1);
        break;
      case 0x95: // FRAME
        readLength(8);
        break;
      case 0x8c: // SHORT_BINUNICODE
      case 0x58: // BINUNICODE
      case 0x8d: {
        // BINUNICODE8
        const n = readLength(op === 0x8c ? 1 : op === 0x58 ? 4 : 8);
        need(n);
        if (value !== undefined) throw new PickleError("pickle holds more than one string");
        value = bytes.toString("utf8", pos, pos + n);
        pos += n;
        break;
      }
      case 0x94: // MEMOIZE
        break;
      case 0x71: // BINPUT
        readLength(1);
        break;
      case 0x72: // LONG_BINPUT
        readLength(4);
        break;
      case 0x2e: // STOP
        if (value === undefined) throw new PickleError("pickle holds no string");
        return value;
      default:
        throw new PickleError(`unsupported pickle opcode 0x${op.toString(16)} (only a pickled str is read)`);
    }
  }
  throw new PickleError("pickle has no STOP opcode");
}
