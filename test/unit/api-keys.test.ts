/** API keys: format, scopes, bootstrap keys from API_KEYS, the bounded lookup cache. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiKeyStore } from '../../store/api-keys';
import { loadConfig } from '../../platform/config';
import { hashSecret } from '../../rules/ids';
import { apiKeySecretMatches, hasScope, looksLikeApiKey, newApiKey, parseApiKey } from '../../rules/api-key';
import { configKeyEntry, parseConfigKeys } from '../../rules/config-keys';

describe('api keys', () => {
  it('api keys - a new key parses back to its id, and only its secret matches the stored hash', () => {
    const made = newApiKey();
    assert.match(made.key, /^rk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    const parsed = parseApiKey(made.key)!;
    assert.equal(parsed.keyId, made.keyId);
    assert.equal(hashSecret(parsed.secret), made.secretHash);
    assert.ok(apiKeySecretMatches(parsed.secret, made.secretHash));
    assert.ok(!apiKeySecretMatches(`${parsed.secret.slice(0, -1)}x`, made.secretHash));
    assert.ok(looksLikeApiKey(made.key) && !looksLikeApiKey('ars_secret'));
    for (const bad of [
      'rk_abc',
      `rk_${'g'.repeat(12)}_${'a'.repeat(43)}`,
      `${made.key}x`,
      made.key.replace('rk_', 'RK_'),
    ])
      assert.equal(parseApiKey(bad), undefined, bad);
  });

  it('api keys - admin holds every built-in scope; custom scopes are held only as such', () => {
    const admin = { scopes: ['admin'] };
    for (const scope of ['read', 'send', 'register', 'admin']) assert.ok(hasScope(admin, scope));
    assert.ok(!hasScope(admin, 'metrics'));
    assert.ok(!hasScope(admin, 'refunds'));
    assert.ok(hasScope({ scopes: ['read', 'refunds'] }, 'refunds'));
    assert.ok(!hasScope({ scopes: ['read'] }, 'send'));
  });

  it('api keys - API_KEYS entries are parsed, and a bad one stops start-up without echoing the key', () => {
    const one = newApiKey();
    const two = newApiKey();
    const text = [configKeyEntry('acme', ['admin'], one.key), configKeyEntry('beta', ['send', 'read'], two.key)].join(
      ',',
    );
    const parsed = parseConfigKeys(text);
    assert.ok('keys' in parsed);
    assert.deepEqual(
      parsed.keys.map((k) => [k.tenant, k.key_id, k.scopes]),
      [
        ['acme', one.keyId, ['admin']],
        ['beta', two.keyId, ['send', 'read']],
      ],
    );
    assert.equal(parsed.keys[0]!.secret_hash, one.secretHash);
    for (const bad of [
      'acme:admin',
      `Acme:admin:${one.key}`,
      `acme::${one.key}`,
      'acme:admin:rk_short',
      `acme:admin:${one.key},acme:read:${one.key}`,
    ]) {
      const result = parseConfigKeys(bad);
      assert.ok('problem' in result, bad);
      assert.ok(!result.problem.includes(one.key.slice(20)), 'the key itself is not repeated');
    }
    assert.throws(() => loadConfig({ API_KEYS: 'acme:admin:nope' }), /API_KEYS/);
  });

  it('api keys - the lookup cache is bounded: made-up key ids, each looked up once, do not grow it past its size', async () => {
    let lookups = 0;
    const model = { findById: () => ({ lean: async () => ((lookups += 1), null) }) };
    const store = new ApiKeyStore(model as never, { configKeys: [], cacheMs: 60_000, cacheEntries: 100 });
    for (let i = 0; i < 1_000; i++) {
      assert.equal(await store.authenticate(`rk_${i.toString(16).padStart(12, '0')}_${'A'.repeat(43)}`), undefined);
    }
    assert.equal(lookups, 1_000);
    assert.equal(store.cachedKeys, 100);
    // A recent one is still answered from the cache.
    await store.authenticate(`rk_${(999).toString(16).padStart(12, '0')}_${'A'.repeat(43)}`);
    assert.equal(lookups, 1_000);
  });
});
