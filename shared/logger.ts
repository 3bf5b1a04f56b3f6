// Structured JSON logs (pino). SKIFF_LOG_LEVEL sets the level (default info).
import { pino, type Logger } from 'pino';

export type { Logger };

/** The levels SKIFF_LOG_LEVEL may name: pino's. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * The level SKIFF_LOG_LEVEL names: unset or empty (an env entry with no value) is info, as every
 * other SKIFF_* variable counts an empty value as unset; anything else not a level is an error.
 */
export function logLevel(env: NodeJS.ProcessEnv = process.env): string {
  const level = env.SKIFF_LOG_LEVEL;
  if (level === undefined || level === '') return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new Error(`SKIFF_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not ${JSON.stringify(level)}`);
  return level;
}

/** For a process's start: the level, or one line on stderr and exit 2 (as a bad flag does). */
export function logLevelOrExit(env: NodeJS.ProcessEnv = process.env): string {
  try {
    return logLevel(env);
  } catch (err) {
    console.error((err as Error).message);
    return process.exit(2);
  }
}

export function createLogger(name: string): Logger {
  return pino({
    name,
    level: logLevel(),
    base: { component: name },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
