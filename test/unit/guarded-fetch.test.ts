/** The fetch that checks the addresses it connects to (DNS rebinding), against a real local server. */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../platform/config';
import { endpointPolicy } from '../../rules/endpoint-policy';
import { guardedFetch } from '../../platform/guarded-fetch';

const server = createServer((_req, res) => res.end('ok'));
let port: number;

describe('guarded fetch', () => {
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, resolve)); // dual-stack: ::1 and 127.0.0.1
    port = (server.address() as AddressInfo).port;
  });
  after(() => server.close());

  it('guarded fetch - a name resolving to a refused address is not connected to', async () => {
    const strict = guardedFetch(endpointPolicy(loadConfig({})));
    const error = await strict(`http://localhost:${port}/`).then(
      () => assert.fail('connected'),
      (e: unknown) => e as { cause?: { code?: string; message?: string } },
    );
    assert.equal(error.cause?.code, 'ENDPOINT_NOT_ALLOWED');
    assert.match(error.cause?.message ?? '', /localhost resolves to .* is loopback/);
  });

  it('guarded fetch - the same name is reached where the policy allows it', async () => {
    const dev = guardedFetch(endpointPolicy(loadConfig({ ENDPOINT_ALLOW_LOOPBACK: 'true' })));
    const response = await dev(`http://localhost:${port}/`);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), 'ok');
  });

  it('guarded fetch - an IP literal the policy refuses is not connected to (there is no lookup to hook)', async () => {
    const strict = guardedFetch(endpointPolicy(loadConfig({})));
    for (const url of [
      `http://127.0.0.1:${port}/`,
      `http://[::1]:${port}/`,
      `http://2130706433:${port}/`,
      'http://169.254.169.254/latest/meta-data',
    ]) {
      const error = await strict(url).then(
        () => assert.fail(`connected to ${url}`),
        (e: unknown) => e as { cause?: { code?: string; message?: string } },
      );
      assert.equal(error.cause?.code, 'ENDPOINT_NOT_ALLOWED', url);
    }
    const dev = guardedFetch(endpointPolicy(loadConfig({ ENDPOINT_ALLOW_LOOPBACK: 'true' })));
    assert.equal((await dev(`http://127.0.0.1:${port}/`)).status, 200);
  });
});
