/**
 * Just enough protobuf to add one Databricks-only field to an Apache Spark Connect reply, without a schema
 * compiler: walk a message's top-level fields, and append a length-delimited field inside one of them.
 */

function readVarint(b: Buffer, i: number): [value: number, next: number] {
  let v = 0;
  let mul = 1;
  for (;;) {
    if (i >= b.length) throw new RangeError('truncated varint');
    const byte = b[i++]!;
    v += (byte & 0x7f) * mul;
    if ((byte & 0x80) === 0) return [v, i];
    mul *= 128;
    if (mul > 2 ** 63) throw new RangeError('varint too long');
  }
}

export function varint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

export interface Field {
  number: number;
  wireType: number;
  /** The whole field, tag included. */
  start: number;
  end: number;
  /** For length-delimited fields: where the payload is. */
  payloadStart?: number;
}

/** The top-level fields of a message, in order; throws on a malformed one. */
export function fields(b: Buffer): Field[] {
  const out: Field[] = [];
  let i = 0;
  while (i < b.length) {
    const start = i;
    const [tag, afterTag] = readVarint(b, i);
    const number = Math.floor(tag / 8);
    const wireType = tag % 8;
    i = afterTag;
    if (wireType === 0) i = readVarint(b, i)[1];
    else if (wireType === 1) i += 8;
    else if (wireType === 5) i += 4;
    else if (wireType === 2) {
      const [len, p] = readVarint(b, i);
      out.push({ number, wireType, start, end: p + len, payloadStart: p });
      i = p + len;
      if (i > b.length) throw new RangeError('truncated field');
      continue;
    } else throw new RangeError(`unsupported wire type ${wireType}`);
    if (i > b.length) throw new RangeError('truncated field');
    out.push({ number, wireType, start, end: i });
  }
  return out;
}

/** A length-delimited field: tag, length, payload. */
export function lengthDelimited(number: number, payload: Buffer): Buffer {
  return Buffer.concat([varint(number * 8 + 2), varint(payload.length), payload]);
}

/**
 * The message with `extra` appended inside the length-delimited field `number` (a sub-message), or
 * undefined when the message has no such field.
 */
export function appendInside(msg: Buffer, number: number, extra: Buffer): Buffer | undefined {
  const f = fields(msg).find((x) => x.number === number && x.wireType === 2);
  if (!f) return undefined;
  const payload = Buffer.concat([msg.subarray(f.payloadStart!, f.end), extra]);
  return Buffer.concat([msg.subarray(0, f.start), lengthDelimited(number, payload), msg.subarray(f.end)]);
}

/** The string value of a length-delimited field inside the sub-message `outer` (first occurrence). */
export function stringInside(msg: Buffer, outer: number, inner: number): string | undefined {
  const f = fields(msg).find((x) => x.number === outer && x.wireType === 2);
  if (!f) return undefined;
  const sub = msg.subarray(f.payloadStart!, f.end);
  const g = fields(sub).find((x) => x.number === inner && x.wireType === 2);
  return g ? sub.subarray(g.payloadStart!, g.end).toString('utf8') : undefined;
}
