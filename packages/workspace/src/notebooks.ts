/**
 * Notebook formats: Databricks SOURCE files (`# Databricks notebook source`, cells split by
 * `# COMMAND ----------`, other-language cells as `# MAGIC` lines) and Jupyter `.ipynb`, and the conversions
 * between them that Databricks performs on export.
 */
import { badNotebook } from './errors.js';

export type Language = 'PYTHON' | 'SQL' | 'SCALA' | 'R';
export type NotebookFormat = 'SOURCE' | 'JUPYTER';

const comment: Record<Language, string> = { PYTHON: '#', SQL: '--', SCALA: '//', R: '#' };
export const extensionOf: Record<Language, string> = { PYTHON: 'py', SQL: 'sql', SCALA: 'scala', R: 'r' };

export const headerOf = (lang: Language) => `${comment[lang]} Databricks notebook source`;
const separatorOf = (lang: Language) => `${comment[lang]} COMMAND ----------`;
const magicOf = (lang: Language) => `${comment[lang]} MAGIC`;

/** The language a notebook file name plus its first line identify, for AUTO imports and import-file. */
export function detectSourceNotebook(name: string, content: Buffer): Language | undefined {
  const dot = name.lastIndexOf('.');
  if (dot < 0) return undefined;
  const ext = name.slice(dot + 1).toLowerCase();
  const lang = (Object.keys(extensionOf) as Language[]).find((l) => extensionOf[l] === ext);
  if (!lang) return undefined;
  const head = content.subarray(0, 64).toString('utf8');
  return head.startsWith(headerOf(lang)) ? lang : undefined;
}

/** SOURCE content as Databricks stores it: with the header line (added when the client left it out). */
export function normalizeSource(lang: Language, content: Buffer): Buffer {
  const header = headerOf(lang);
  if (content.subarray(0, header.length).toString('utf8') === header) return content;
  return Buffer.concat([Buffer.from(`${header}\n`), content]);
}

interface Cell {
  kind: 'code' | 'markdown';
  source: string;
}

function splitSource(lang: Language, text: string): Cell[] {
  const lines = text.split('\n');
  if (lines[0]?.trimEnd() === headerOf(lang)) lines.shift();
  const sep = separatorOf(lang);
  const magic = magicOf(lang);
  const raw: string[][] = [[]];
  for (const line of lines) {
    if (line.trimEnd() === sep) raw.push([]);
    else raw[raw.length - 1]!.push(line);
  }
  return raw
    .map((cellLines) => {
      while (cellLines.length && cellLines[0]!.trim() === '') cellLines.shift();
      while (cellLines.length && cellLines[cellLines.length - 1]!.trim() === '') cellLines.pop();
      const isMagic =
        cellLines.length > 0 && cellLines.every((l) => l === magic || l.startsWith(`${magic} `));
      if (!isMagic) return { kind: 'code' as const, source: cellLines.join('\n') };
      const body = cellLines.map((l) => (l === magic ? '' : l.slice(magic.length + 1)));
      if (body[0]?.trim() === '%md' || body[0]?.startsWith('%md ')) {
        const first = body[0].slice(3).trim();
        const rest = body.slice(1);
        return { kind: 'markdown' as const, source: (first ? [first, ...rest] : rest).join('\n') };
      }
      return { kind: 'code' as const, source: body.join('\n') };
    })
    .filter((c, i, all) => c.source !== '' || all.length === 1 || i < all.length - 1);
}

const toLines = (s: string): string[] => {
  if (s === '') return [];
  const parts = s.split('\n');
  return parts.map((p, i) => (i < parts.length - 1 ? `${p}\n` : p));
};

/** SOURCE -> Jupyter, as Databricks exports it (cells split on COMMAND lines, %md cells become markdown). */
export function sourceToJupyter(lang: Language, name: string, content: Buffer): Buffer {
  const cells = splitSource(lang, content.toString('utf8'));
  const langName = lang.toLowerCase();
  const nb = {
    cells: cells.map((c) =>
      c.kind === 'markdown'
        ? { cell_type: 'markdown', metadata: {}, source: toLines(c.source) }
        : { cell_type: 'code', execution_count: 0, metadata: {}, outputs: [], source: toLines(c.source) },
    ),
    metadata: {
      'application/vnd.databricks.v1+notebook': { language: langName, notebookName: name },
      language_info: { name: langName },
    },
    nbformat: 4,
    nbformat_minor: 0,
  };
  return Buffer.from(JSON.stringify(nb, null, 1));
}

interface Ipynb {
  cells?: { cell_type?: string; source?: string | string[] }[];
  metadata?: {
    language_info?: { name?: string };
    kernelspec?: { language?: string };
    'application/vnd.databricks.v1+notebook'?: { language?: string };
  };
}

export function parseJupyter(content: Buffer): Ipynb {
  let nb: unknown;
  try {
    nb = JSON.parse(content.toString('utf8'));
  } catch {
    throw badNotebook('the content is not a valid .ipynb JSON document.');
  }
  if (!nb || typeof nb !== 'object' || !Array.isArray((nb as Ipynb).cells)) {
    throw badNotebook('the .ipynb document has no cells array.');
  }
  return nb as Ipynb;
}

/** The notebook language a Jupyter document declares (Python when it says nothing). */
export function jupyterLanguage(nb: Ipynb): Language {
  const name = (
    nb.metadata?.['application/vnd.databricks.v1+notebook']?.language ??
    nb.metadata?.language_info?.name ??
    nb.metadata?.kernelspec?.language ??
    'python'
  ).toUpperCase();
  return (['PYTHON', 'SQL', 'SCALA', 'R'] as const).find((l) => l === name) ?? 'PYTHON';
}

/** Jupyter -> SOURCE, as Databricks exports it. */
export function jupyterToSource(lang: Language, content: Buffer): Buffer {
  const nb = parseJupyter(content);
  const magic = magicOf(lang);
  const cells = (nb.cells ?? []).map((c) => {
    const src = Array.isArray(c.source) ? c.source.join('') : (c.source ?? '');
    if (c.cell_type === 'markdown') {
      return [`${magic} %md`, ...src.split('\n').map((l) => (l ? `${magic} ${l}` : magic))].join('\n');
    }
    return src;
  });
  const body = cells.join(`\n\n${separatorOf(lang)}\n\n`);
  return Buffer.from(`${headerOf(lang)}\n${body}\n`);
}
