/** What a Git folder shows of a checkout: its files and folders (not `.git`), and which files are notebooks. */
import { access, open, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  detectSourceNotebook,
  jupyterLanguage,
  parseJupyter,
  type Language,
  type NotebookFormat,
} from './notebooks.js';

export async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}

/** Every folder and file under `root`, parents first, `.git` left out; symbolic links are not followed. */
export async function checkoutEntries(root: string): Promise<{ rel: string; dir: boolean }[]> {
  const out: { rel: string; dir: boolean }[] = [];
  const walk = async (rel: string) => {
    const entries = await readdir(path.join(root, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name === '.git') continue;
      const child = rel ? path.join(rel, e.name) : e.name;
      if (e.isDirectory()) {
        out.push({ rel: child, dir: true });
        await walk(child);
      } else if (e.isFile()) out.push({ rel: child, dir: false });
    }
  };
  await walk('');
  return out;
}

/** A notebook's language and stored format when the file is one (as an AUTO import would see it). */
export async function repoFileKind(
  name: string,
  file: string,
): Promise<{ language: Language; format: NotebookFormat } | undefined> {
  if (name.toLowerCase().endsWith('.ipynb')) {
    try {
      return { language: jupyterLanguage(parseJupyter(await readFile(file))), format: 'JUPYTER' };
    } catch {
      return undefined;
    }
  }
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(64);
    const { bytesRead } = await fh.read(buf, 0, 64, 0);
    const language = detectSourceNotebook(name, buf.subarray(0, bytesRead));
    return language ? { language, format: 'SOURCE' } : undefined;
  } finally {
    await fh.close();
  }
}
