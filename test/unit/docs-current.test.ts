/** The generated parts of docs/ match the code they describe: `npm run docs` rewrites them. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { envSchema } from '../../platform/config';
import { generatedDocs } from '../../scripts/generate-docs';
import { cell, replaceBetweenMarkers } from '../../scripts/docs/markers';

const ROOT = resolve(__dirname, '../..');

describe('generated docs', () => {
  it('docs - the committed docs are what `npm run docs` generates', () => {
    const generated = generatedDocs();
    assert.deepEqual([...generated.keys()], ['docs/configuration.md', 'docs/api.md']);
    for (const [file, expected] of generated) {
      assert.equal(
        readFileSync(resolve(ROOT, file), 'utf8'),
        expected,
        `${file} is stale: run \`npm run docs\` and commit it`,
      );
    }
  });

  it('docs - the configuration table has a row for every variable of the schema', () => {
    const text = readFileSync(resolve(ROOT, 'docs/configuration.md'), 'utf8');
    for (const variable of Object.keys(envSchema.shape)) {
      assert.ok(text.includes(`\n| \`${variable}\` |`), `no row for ${variable}`);
    }
  });

  it('docs - markers: only what lies between them is replaced; missing markers are an error', () => {
    const text =
      'before\n<!-- generated:t begin (npm run docs; do not edit by hand) -->\nold\n<!-- generated:t end -->\nafter\n';
    assert.equal(
      replaceBetweenMarkers(text, 't', 'new'),
      'before\n<!-- generated:t begin (npm run docs; do not edit by hand) -->\nnew\n<!-- generated:t end -->\nafter\n',
    );
    assert.throws(() => replaceBetweenMarkers('no markers', 't', 'new'), /markers "t" not found/);
  });

  it('docs - table cells keep pipes and newlines from breaking the row', () => {
    assert.equal(cell('a | b\n c'), 'a \\| b c');
  });
});
