/** The size of a value as the gateway stores it: bytes of its JSON (UTF-8). */
export function jsonBytes(value: unknown): number {
  return value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value), 'utf8');
}
