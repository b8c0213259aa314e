import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../platform/config';

describe('config', () => {
  it('config - defaults apply when nothing is set', () => {
    const config = loadConfig({});
    assert.equal(config.API_PORT, 3000);
    assert.equal(config.TEMPORAL_ADDRESS, 'localhost:7233');
    assert.equal(config.MONGODB_URI, 'mongodb://127.0.0.1:27017/agent-reach');
    assert.equal(config.DELIVERY_MAX_ATTEMPTS, 5);
    assert.equal(config.DELIVERY_INITIAL_BACKOFF_MS, 5000);
    assert.equal(config.PUBLIC_URL, 'http://127.0.0.1:3000');
  });

  it('config - numbers are read from strings and empty strings count as unset', () => {
    const config = loadConfig({ API_PORT: '8080', DELIVERY_MAX_ATTEMPTS: '', API_HOST: '0.0.0.0' });
    assert.equal(config.API_PORT, 8080);
    assert.equal(config.DELIVERY_MAX_ATTEMPTS, 5);
    assert.equal(config.PUBLIC_URL, 'http://127.0.0.1:8080');
  });

  it('config - PUBLIC_URL loses its trailing slash', () => {
    assert.equal(loadConfig({ PUBLIC_URL: 'https://reach.example.com/' }).PUBLIC_URL, 'https://reach.example.com');
  });

  it('config - a bad value names the variable', () => {
    assert.throws(
      () => loadConfig({ API_PORT: 'eighty', MONGODB_URI: 'postgres://x' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems.map((p) => p.variable).sort(), ['API_PORT', 'MONGODB_URI']);
        assert.match(error.message, /^Invalid configuration:\n {2}API_PORT: /);
        return true;
      },
    );
  });

  it('config - the judge is off by default; llm needs a chat model; a bad kind or share is refused', () => {
    const config = loadConfig({});
    assert.equal(config.ROUTER_JUDGE, 'auto');
    assert.throws(() => loadConfig({ ROUTER_JUDGE: 'llm' }), /ROUTER_JUDGE: llm needs a chat model/);
    assert.equal(loadConfig({ ROUTER_JUDGE: 'llm', LLM_MODEL: 'gpt-x' }).ROUTER_JUDGE, 'llm');
    assert.throws(() => loadConfig({ ROUTER_JUDGE: 'gpu' }), /ROUTER_JUDGE/);
  });

  it('config - out-of-range values are refused', () => {
    assert.throws(() => loadConfig({ API_PORT: '70000' }), /API_PORT/);
    assert.throws(() => loadConfig({ DELIVERY_MAX_ATTEMPTS: '0' }), /DELIVERY_MAX_ATTEMPTS/);
    assert.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), /LOG_LEVEL/);
    assert.throws(() => loadConfig({ DEFAULT_TENANT: 'a:b' }), /DEFAULT_TENANT/);
  });

  it('config - MAX_INSTANCES_PER_AGENT: 64 by default, at least the 50 a registration may list, at most 10000', () => {
    assert.equal(loadConfig({}).MAX_INSTANCES_PER_AGENT, 64);
    assert.equal(loadConfig({ MAX_INSTANCES_PER_AGENT: '50' }).MAX_INSTANCES_PER_AGENT, 50);
    for (const bad of ['49', '10001', '64.5', 'many'])
      assert.throws(() => loadConfig({ MAX_INSTANCES_PER_AGENT: bad }), /MAX_INSTANCES_PER_AGENT/, bad);
  });

  it('config - the checks across variables name the variable they refuse', () => {
    assert.throws(
      () => loadConfig({ HEARTBEAT_TTL_MS: '20000', HEARTBEAT_WRITE_EVERY_MS: '15000' }),
      /HEARTBEAT_WRITE_EVERY_MS: must be at most half of HEARTBEAT_TTL_MS/,
    );
    assert.equal(loadConfig({ HEARTBEAT_TTL_MS: '30000' }).HEARTBEAT_WRITE_EVERY_MS, 15_000);
    assert.throws(() => loadConfig({ API_KEYS: 'acme:admin:nope' }), /\n {2}API_KEYS: /);
  });
});
