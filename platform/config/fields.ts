/** The field types the configuration's parts share. */
import { z } from 'zod';

export const port = z.coerce.number().int().min(1).max(65535);
export const positiveMs = z.coerce.number().int().positive();
export const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
/** A comma-separated list, its items trimmed, empty ones dropped. */
export const commaList = z.string().transform((v) =>
  v
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);
