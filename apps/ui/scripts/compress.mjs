// Precompresses the built files (gzip and brotli, best level) next to the originals, so the server sends
// compressed bytes without compressing on each request. Files that do not shrink are left alone.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = process.argv[2] ?? 'dist';
const compressible = /\.(js|mjs|css|html|svg|json|ttf|map|txt)$/;
let raw = 0;
let br = 0;
let gz = 0;
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) walk(file);
    else if (compressible.test(name)) {
      const data = readFileSync(file);
      raw += data.length;
      const g = gzipSync(data, { level: 9 });
      const b = brotliCompressSync(data, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
      });
      if (g.length < data.length * 0.9) writeFileSync(`${file}.gz`, g);
      if (b.length < data.length * 0.9) writeFileSync(`${file}.br`, b);
      gz += Math.min(g.length, data.length);
      br += Math.min(b.length, data.length);
    }
  }
}
walk(root);
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.log(`ui: ${kb(raw)} raw, ${kb(gz)} gzip, ${kb(br)} brotli`);
