/** Where the router's local model files are looked for: the explicit folder first, then the cache; never fetched. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { locateModel, modelCacheDir } from '../../router/embeddings/model-files';

function modelFolder(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'model.onnx'), 'onnx');
  writeFileSync(join(dir, 'tokenizer.json'), '{}');
}

describe('model files', () => {
  it('model files - EMBEDDING_MODEL_DIR/<id> first, then the cache, else nothing', () => {
    const root = mkdtempSync(join(tmpdir(), 'models-'));
    const env = { AGENT_REACH_CACHE_DIR: join(root, 'cache'), EMBEDDING_MODEL_DIR: join(root, 'mine') };
    assert.equal(locateModel('bge-small-zh-v1.5-q', env), undefined);
    modelFolder(modelCacheDir('bge-small-zh-v1.5-q', env));
    assert.equal(
      locateModel('bge-small-zh-v1.5-q', env)?.model,
      join(root, 'cache', 'models', 'bge-small-zh-v1.5-q', 'model.onnx'),
    );
    modelFolder(join(root, 'mine', 'bge-small-zh-v1.5-q'));
    assert.equal(
      locateModel('bge-small-zh-v1.5-q', env)?.tokenizer,
      join(root, 'mine', 'bge-small-zh-v1.5-q', 'tokenizer.json'),
    );
    // Each model of a pair has its own folder: the English one is not found where only the Chinese one is.
    assert.equal(locateModel('bge-small-en-v1.5-q', env), undefined);
  });
});
