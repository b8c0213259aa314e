/** Unsupported methods on known paths answer 405 with Allow; OPTIONS answers 204 with Allow; unknown paths go on. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { methodGuard } from '../../api/method-guard';
import { OPERATIONS } from '../../api/openapi';

async function withApp<T>(run: (base: string) => Promise<T>): Promise<T> {
  const app = express();
  app.use(methodGuard(OPERATIONS));
  app.use((_req, res) => {
    res.status(299).end();
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    return await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.close();
  }
}

describe('method guard', () => {
  it('method guard - an unsupported method on a known path is 405 with Allow and the error shape', async () => {
    await withApp(async (base) => {
      const response = await fetch(`${base}/v1/messages`, { method: 'PATCH' });
      assert.equal(response.status, 405);
      assert.equal(response.headers.get('allow'), 'POST, GET, HEAD, OPTIONS');
      const body = (await response.json()) as { error: { code: string; details: unknown } };
      assert.equal(body.error.code, 'method_not_allowed');
      assert.deepEqual(body.error.details, { allow: ['POST', 'GET', 'HEAD'] });
    });
  });

  it('method guard - a literal path wins over a parameterised one, as Express routes it', async () => {
    await withApp(async (base) => {
      const literal = await fetch(`${base}/v1/agents/import`, { method: 'GET' });
      assert.equal(literal.status, 405);
      assert.equal(literal.headers.get('allow'), 'POST, OPTIONS');
      const parameterised = await fetch(`${base}/v1/agents/agt_0123/`, { method: 'POST' });
      assert.equal(parameterised.status, 405);
      assert.equal(parameterised.headers.get('allow'), 'GET, HEAD, PUT, DELETE, OPTIONS');
    });
  });

  it('method guard - OPTIONS answers 204 with Allow; served methods and unknown paths go on', async () => {
    await withApp(async (base) => {
      const options = await fetch(`${base}/v1/keys/abc`, { method: 'OPTIONS' });
      assert.equal(options.status, 204);
      assert.equal(options.headers.get('allow'), 'DELETE, OPTIONS');
      assert.equal((await fetch(`${base}/V1/KEYS`, { method: 'GET' })).status, 299);
      assert.equal((await fetch(`${base}/healthz`, { method: 'HEAD' })).status, 299);
      assert.equal((await fetch(`${base}/nowhere`, { method: 'PATCH' })).status, 299);
    });
  });
});
