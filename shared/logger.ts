// Structured JSON logs (pino). SKIFF_LOG_LEVEL sets the level (default info).
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(name: string): Logger {
  return pino({
    name,
    level: process.env.SKIFF_LOG_LEVEL ?? 'info',
    base: { component: name },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
