// hpack.js ships no types: what grpc-splice.ts uses of its decompressor.
declare module 'hpack.js' {
  interface HeaderField {
    name: string;
    value: string;
    neverIndex: boolean;
  }
  interface Decompressor {
    write(block: Buffer): boolean;
    /** Decodes what was written; an error is emitted ('error'), not thrown. */
    execute(): void;
    read(): HeaderField | null;
    on(event: 'error', listener: (e: Error) => void): this;
  }
  const hpack: {
    decompressor: { create(options: { table: { maxSize: number } }): Decompressor };
  };
  export default hpack;
}
