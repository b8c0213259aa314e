/** The generated parts of docs/ match the code they describe: `npm run docs` rewrites them. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { envSchema } from '../../platform/config';
import { configParts } from '../../scripts/docs/config-table';
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

  it('docs - the configuration reference has one row for every variable of the schema', () => {
    const text = readFileSync(resolve(ROOT, 'docs/configuration.md'), 'utf8');
    for (const variable of Object.keys(envSchema.shape)) {
      assert.equal(text.split(`\n| \`${variable}\` |`).length - 1, 1, `rows for ${variable}`);
    }
  });

  it('docs - config parts: the schema is its parts, each variable in one, in the order the reference lists them', () => {
    const parts = configParts();
    assert.ok(parts.length >= 10, `${parts.length} parts`);
    for (const part of parts) assert.match(part.heading, /^[A-Z][\w -]+$/, part.heading);
    assert.deepEqual(
      parts.flatMap((part) => part.variables.map((v) => v.name)),
      Object.keys(envSchema.shape),
    );
    const text = readFileSync(resolve(ROOT, 'docs/configuration.md'), 'utf8');
    const headings = parts.map((part) => text.indexOf(`\n### ${part.heading}\n`));
    assert.ok(!headings.includes(-1), 'a part without its heading');
    assert.deepEqual(
      headings,
      [...headings].sort((a, b) => a - b),
    );
  });

  it('docs - config parts: a variable outside the parts, one in two parts, or a part with no heading is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-parts-'));
    try {
      const part = (name: string, doc: string, variable: string) =>
        `${doc}\nexport const ${name} = {\n  /** A knob. @default 1 */\n  ${variable}: z.number().default(1),\n};\n`;
      writeFileSync(join(dir, 'a.ts'), part('aShape', '/** Aa: the first. */', 'ONE'));
      writeFileSync(join(dir, 'b.ts'), part('bShape', '/** Bb: the second. */', 'ONE'));
      writeFileSync(join(dir, 'c.ts'), part('cShape', '/** No heading. */', 'TWO'));
      const config = (body: string) => {
        const file = join(dir, 'config.ts');
        writeFileSync(
          file,
          `import { aShape } from './a';\nimport { bShape } from './b';\nimport { cShape } from './c';\n` +
            `export const envSchema = z.object({ ${body} });\n`,
        );
        return file;
      };
      assert.deepEqual(
        configParts(config('...aShape')).map((p) => [p.heading, p.summary, p.variables.map((v) => v.name)]),
        [['Aa', 'The first.', ['ONE']]],
      );
      assert.throws(() => configParts(config('...aShape, TWO: z.number()')), /put each variable in a part/);
      assert.throws(() => configParts(config('...aShape, ...bShape')), /ONE is in two parts/);
      assert.throws(() => configParts(config('...cShape')), /cShape needs a doc comment `Heading: what it covers.`/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
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
