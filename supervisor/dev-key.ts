/** Where embedded mode keeps its development API key (in DATA_DIR), so scripts started beside it can read it. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEV_KEY_FILE = 'dev-api-key';

export function readDevKey(dataDir: string): string | undefined {
  const file = join(dataDir, DEV_KEY_FILE);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}
