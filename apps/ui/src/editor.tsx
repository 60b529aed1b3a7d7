/** Monaco set up for Databricks SQL: its one worker bundled by Vite, the language registered once. */
import EditorWorker from 'monaco-esm/editor/editor.worker.js?worker';
import * as monaco from './monaco';
import { catalogCache, LANGUAGE_ID, registerDatabricksSql } from './sql-language';

declare global {
  interface Window {
    MonacoEnvironment?: { getWorker(id: string, label: string): Worker };
  }
}
self.MonacoEnvironment = { getWorker: () => new EditorWorker() };

registerDatabricksSql(monaco, catalogCache);

export { monaco, LANGUAGE_ID };

export function createEditor(host: HTMLElement): monaco.editor.IStandaloneCodeEditor {
  return monaco.editor.create(host, {
    language: LANGUAGE_ID,
    automaticLayout: true,
    minimap: { enabled: false },
    fontSize: 14,
    scrollBeyondLastLine: false,
    wordBasedSuggestions: 'off',
    quickSuggestions: { other: true, comments: false, strings: false },
    suggestOnTriggerCharacters: true,
    tabSize: 2,
    ariaLabel: 'SQL editor',
    fixedOverflowWidgets: true,
  });
}
