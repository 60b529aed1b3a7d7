/**
 * What a workspace import creates, decided from its format, name and first bytes: a notebook (its language
 * and stored format), a file, or an object another service imports (by its suffix). Only the head of the
 * bytes is read, except for Jupyter, whose JSON is parsed whole.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { conversionNotImplemented, languageRequired } from './errors.js';
import {
  detectSourceNotebook,
  jupyterLanguage,
  normalizeSource,
  parseJupyter,
  type Language,
  type NotebookFormat,
} from './notebooks.js';
import { baseName } from './paths.js';
import type { ImportFormat } from './store.js';

export interface ImportRequest {
  path: string;
  format: ImportFormat;
  language?: Language | undefined;
  overwrite: boolean;
}

/**
 * An import's bytes, already streamed to a temp file from `WorkspaceStore.tempPath()`. The store moves it
 * into place (or replaces it); the caller removes it afterwards whatever happened (a no-op once moved).
 */
export interface Spooled {
  tmp: string;
  size: number;
}

/** Enough of the start of a file to tell a notebook header (see detectSourceNotebook, normalizeSource). */
const HEAD_BYTES = 256;

async function readHead(file: string): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** What classify needs of the store: foreign types by import suffix, and where temp files go. */
export interface ImportTarget {
  importedTypeFor(name: string): string | undefined;
  tempPath(): string;
}

/**
 * Decides what an import creates: a notebook (with its language and stored format) or a file. Only the
 * head of the bytes is read, except for Jupyter, whose JSON must be parsed whole (it is a notebook).
 */
export async function classify(
  req: ImportRequest,
  content: Spooled,
  store: ImportTarget,
): Promise<{
  path: string;
  type: 'NOTEBOOK' | 'FILE' | (string & {});
  language?: Language;
  format?: NotebookFormat;
  content: Spooled;
}> {
  const name = baseName(req.path);
  if (req.format === 'AUTO') {
    const foreign = store.importedTypeFor(name);
    if (foreign) return { path: req.path, type: foreign, content };
  }
  switch (req.format) {
    case 'RAW':
      return { path: req.path, type: 'FILE', content };
    case 'SOURCE': {
      if (!req.language) throw languageRequired();
      return {
        path: req.path,
        type: 'NOTEBOOK',
        language: req.language,
        format: 'SOURCE',
        content: await withHeader(req.language, content, store.tempPath()),
      };
    }
    case 'JUPYTER': {
      const nb = parseJupyter(await readFile(content.tmp));
      const stripped = name.toLowerCase().endsWith('.ipynb') ? req.path.slice(0, -'.ipynb'.length) : req.path;
      return {
        path: stripped,
        type: 'NOTEBOOK',
        language: jupyterLanguage(nb),
        format: 'JUPYTER',
        content,
      };
    }
    case 'AUTO': {
      const lang = detectSourceNotebook(name, await readHead(content.tmp));
      if (lang) {
        const stripped = req.path.slice(0, req.path.lastIndexOf('.'));
        return { path: stripped, type: 'NOTEBOOK', language: lang, format: 'SOURCE', content };
      }
      if (name.toLowerCase().endsWith('.ipynb'))
        return classify({ ...req, format: 'JUPYTER' }, content, store);
      return { path: req.path, type: 'FILE', content };
    }
    default:
      throw conversionNotImplemented(`Importing the ${req.format} format`);
  }
}

/** SOURCE bytes with the notebook header line (normalizeSource), copied through a stream when added. */
async function withHeader(lang: Language, content: Spooled, tmp: string): Promise<Spooled> {
  const head = await readHead(content.tmp);
  const normalized = normalizeSource(lang, head);
  if (normalized === head) return content;
  const added = normalized.length - head.length;
  try {
    const out = createWriteStream(tmp, { flags: 'wx' });
    out.write(normalized.subarray(0, added));
    await pipeline(createReadStream(content.tmp), out);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  await rm(content.tmp, { force: true });
  return { tmp, size: content.size + added };
}
