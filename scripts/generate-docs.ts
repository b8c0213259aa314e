/**
 * `npm run docs`: rewrites the generated parts of docs/ (between markers) from the code they describe.
 * `test/unit/docs-current.test.ts` fails when the committed docs differ from what this produces.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { apiTable } from './docs/api-table';
import { configurationTable } from './docs/config-table';
import { errorTable } from './docs/error-table';
import { replaceBetweenMarkers } from './docs/markers';

const ROOT = resolve(__dirname, '..');

/** Each generated part: the file it lives in, its marker name, and how to produce it. */
const GENERATED = [
  { file: 'docs/configuration.md', marker: 'config-table', render: configurationTable },
  { file: 'docs/api.md', marker: 'error-table', render: errorTable },
  { file: 'docs/api.md', marker: 'api-table', render: apiTable },
];

/** The path of each file with generated parts, with the text it should have. */
export function generatedDocs(): Map<string, string> {
  const texts = new Map<string, string>();
  for (const part of GENERATED) {
    const current = texts.get(part.file) ?? readFileSync(resolve(ROOT, part.file), 'utf8');
    texts.set(part.file, replaceBetweenMarkers(current, part.marker, part.render()));
  }
  return texts;
}

if (require.main === module) {
  for (const [file, text] of generatedDocs()) {
    const path = resolve(ROOT, file);
    const changed = readFileSync(path, 'utf8') !== text;
    if (changed) writeFileSync(path, text);
    console.log(`${file}: ${changed ? 'updated' : 'up to date'}`);
  }
}
