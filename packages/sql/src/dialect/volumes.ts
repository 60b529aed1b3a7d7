/** `/Volumes/...` paths in SQL file arguments -> the volume's real directory, through Unity Catalog. */
import type { Session } from './session.js';
import { sqlError, unsupported } from './sql-error.js';

/**
 * `/Volumes/<catalog>/<schema>/<volume>/<path>` -> the volume's real directory + path, through Unity Catalog.
 * `..` segments that would leave the volume are refused; a missing volume is a clear error.
 */
export async function resolveVolumes(paths: string[], s: Session): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const p of paths) {
    const parts = p
      .replace(/^dbfs:/, '')
      .split('/')
      .slice(2);
    const [cat, sch, vol] = parts;
    if (!cat || !sch || !vol)
      throw sqlError(
        'INVALID_PARAMETER_VALUE',
        '22023',
        `The path '${p}' does not name a volume: expected /Volumes/<catalog>/<schema>/<volume>/<path>.`,
      );
    const rest: string[] = [];
    for (const seg of parts.slice(3)) {
      if (seg === '' || seg === '.') continue;
      if (seg === '..') {
        if (rest.length === 0)
          throw sqlError(
            'INVALID_PARAMETER_VALUE',
            '22023',
            `The path '${p}' leaves the volume \`${cat}\`.\`${sch}\`.\`${vol}\`.`,
          );
        rest.pop();
      } else rest.push(seg);
    }
    if (!s.uc) throw unsupported('/Volumes paths without the Unity Catalog service');
    let dir: string;
    try {
      // A statement reads the volume paths it names (read_files, COPY INTO's source): READ VOLUME.
      dir = await s.uc.volumeDirectory(cat, sch, vol, 'read');
    } catch (e) {
      // A refusal (MINILAKE_ENFORCE=1) is reported as one (INSUFFICIENT_PERMISSIONS), not as a missing volume.
      if ((e as { errorCode?: string } | null)?.errorCode === 'PERMISSION_DENIED') throw e;
      throw sqlError(
        'UC_VOLUME_NOT_FOUND',
        '42704',
        `Volume \`${cat}\`.\`${sch}\`.\`${vol}\` does not exist. Verify the spelling and that the volume exists (path '${p}').`,
      );
    }
    out.set(p, [dir.replace(/\/+$/, ''), ...rest].join('/'));
  }
  return out;
}
