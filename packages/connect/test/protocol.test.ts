/**
 * The wire pieces of the Spark Connect door: gRPC framing and status messages, the protobuf edit that adds
 * Databricks' `dbr_version` to an Apache Spark Connect SparkVersion reply, and the runtime a Databricks
 * Connect client says it targets. Checked against what the real clients decode (AnalyzePlanResponse field
 * numbers from the Spark Connect protocol: spark_version = 8, SparkVersion.version = 1, dbr_version = 800).
 */
import { describe, expect, it } from 'vitest';
import { encodeGrpcMessage, frame, splitFrames } from '../src/grpc.js';
import { appendInside, fields, lengthDelimited, varint } from '../src/protobuf.js';
import { runtimeOfClient, withRuntimeVersion } from '../src/router.js';

/** AnalyzePlanResponse { session_id: "s1", spark_version: { version: "4.1.1" }, server_side_session_id: "x" }. */
function sparkVersionReply(): Buffer {
  return Buffer.concat([
    lengthDelimited(1, Buffer.from('s1')),
    lengthDelimited(8, lengthDelimited(1, Buffer.from('4.1.1'))),
    lengthDelimited(15, Buffer.from('x')),
  ]);
}

function str(msg: Buffer, n: number): string | undefined {
  const f = fields(msg).find((x) => x.number === n);
  return f ? msg.subarray(f.payloadStart!, f.end).toString() : undefined;
}

describe('protobuf', () => {
  it('encodes varints as protobuf does', () => {
    expect([...varint(1)]).toEqual([1]);
    expect([...varint(300)]).toEqual([0xac, 0x02]);
    // Field 800, wire type 2: tag 6402.
    expect([...varint(800 * 8 + 2)]).toEqual([0x82, 0x32]);
  });

  it('adds a field inside a sub-message and keeps the others', () => {
    const out = appendInside(sparkVersionReply(), 8, lengthDelimited(800, Buffer.from('16.1.x-scala2.12')))!;
    expect(str(out, 1)).toBe('s1');
    expect(str(out, 15)).toBe('x');
    const sv = fields(out).find((f) => f.number === 8)!;
    const inner = out.subarray(sv.payloadStart!, sv.end);
    expect(str(inner, 1)).toBe('4.1.1');
    expect(str(inner, 800)).toBe('16.1.x-scala2.12');
  });

  it('leaves a message without the field alone', () => {
    expect(appendInside(lengthDelimited(1, Buffer.from('s')), 8, Buffer.alloc(0))).toBeUndefined();
  });

  it('refuses a truncated message', () => {
    expect(() => fields(Buffer.from([0x0a, 0x05, 0x61]))).toThrow();
  });
});

describe('the Spark version reply', () => {
  it('gets the runtime version inside its gRPC frame', () => {
    const body = frame(sparkVersionReply());
    const out = splitFrames(withRuntimeVersion(body, '16.4.x-scala2.12'))!;
    expect(out).toHaveLength(1);
    const sv = fields(out[0]!).find((f) => f.number === 8)!;
    expect(str(out[0]!.subarray(sv.payloadStart!, sv.end), 800)).toBe('16.4.x-scala2.12');
  });

  it('is left alone when it already has one, or is not a version reply', () => {
    const once = withRuntimeVersion(frame(sparkVersionReply()), 'a.x');
    expect(withRuntimeVersion(once, 'b.x').equals(once)).toBe(true);
    const schemaReply = frame(lengthDelimited(2, Buffer.from('schema')));
    expect(withRuntimeVersion(schemaReply, 'a.x').equals(schemaReply)).toBe(true);
  });

  it('names the runtime a Databricks Connect client targets', () => {
    expect(runtimeOfClient('_SPARK_CONNECT_PYTHON dbconnect/16.1.7 spark/3.5.2 os/linux')).toBe(
      '16.1.x-scala2.12',
    );
    expect(runtimeOfClient('_SPARK_CONNECT_PYTHON spark/4.1.1')).toBeUndefined();
  });
});

describe('gRPC framing', () => {
  it('splits frames and refuses compressed or cut ones', () => {
    const two = Buffer.concat([frame(Buffer.from('a')), frame(Buffer.from('bc'))]);
    expect(splitFrames(two)?.map((b) => b.toString())).toEqual(['a', 'bc']);
    const compressed = frame(Buffer.from('a'));
    compressed[0] = 1;
    expect(splitFrames(compressed)).toBeUndefined();
    expect(splitFrames(two.subarray(0, 8))).toBeUndefined();
  });

  it('percent-encodes grpc-message as the gRPC spec says', () => {
    expect(encodeGrpcMessage('Cluster 1 does not exist')).toBe('Cluster 1 does not exist');
    expect(encodeGrpcMessage('100% ü')).toBe('100%25 %C3%BC');
  });
});
