export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Logger {
  readonly level: LogLevel;
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Plain one-line logs on stderr. Never pass secret values in fields: there is no redaction pass. */
export function createLogger(
  level: LogLevel = 'info',
  scope = 'minilake',
  write = (line: string) => process.stderr.write(line),
): Logger {
  const emit = (at: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (order[at] < order[level]) return;
    const extra = fields && Object.keys(fields).length ? ' ' + JSON.stringify(fields) : '';
    write(`${new Date().toISOString()} ${at.toUpperCase().padEnd(5)} [${scope}] ${msg}${extra}\n`);
  };
  return {
    level,
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (s) => createLogger(level, `${scope}:${s}`, write),
  };
}

export const silentLogger: Logger = createLogger('silent');
