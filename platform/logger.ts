import pino, { type Logger } from 'pino';
import type { Config } from './config';

/** Structured JSON logs on stdout, one logger per process, tagged with the process role. */
export function createLogger(service: string, config: Pick<Config, 'LOG_LEVEL'>): Logger {
  return pino({ level: config.LOG_LEVEL, base: { service } });
}
