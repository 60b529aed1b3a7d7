/**
 * The UI's addresses: `/ui/<view>/<names...>` (`/ui/catalog/<c>/<s>/<t>`, `/ui/jobs/<job>/runs/<run>`). Views
 * read the address to open what it names, and put what one clicks into it, so every object has a link that
 * can be shared, reloaded and reached from the API's own links (the server sends Databricks' addresses here).
 */
import { useEffect, useState } from 'preact/hooks';

const ROUTE_EVENT = 'minilake:route';

/** The address's parts after `/ui/`, decoded. */
export const routeParts = (): string[] =>
  location.pathname
    .replace(/^\/ui\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });

export const uiPath = (...parts: (string | number)[]): string =>
  `/ui/${parts.map((p) => encodeURIComponent(String(p))).join('/')}`;

/** Puts `path` in the address bar (a new history entry) and tells every view. */
export function navigate(path: string): void {
  if (location.pathname === path) return;
  history.pushState(null, '', path);
  window.dispatchEvent(new Event(ROUTE_EVENT));
}

/** The current address's parts, updated on navigate() and on back/forward. */
export function useRoute(): string[] {
  const [parts, setParts] = useState(routeParts);
  useEffect(() => {
    const on = () => setParts(routeParts());
    window.addEventListener('popstate', on);
    window.addEventListener(ROUTE_EVENT, on);
    return () => {
      window.removeEventListener('popstate', on);
      window.removeEventListener(ROUTE_EVENT, on);
    };
  }, []);
  return parts;
}
