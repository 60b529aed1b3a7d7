// json-bigint ships no types; the one call used here (results.ts).
declare module 'json-bigint' {
  interface Options {
    storeAsString?: boolean;
  }
  export default function jsonBigint(o?: Options): { parse(text: string): unknown };
}
