/** canReach: who may reach a capability. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canReach } from '../../rules/acl';
import type { Caller } from '../../rules/api-key';

const caller = (scopes: string[], key_id = 'aaaaaaaaaaaa', tenant = 'acme'): Caller => ({ tenant, key_id, scopes });

describe('acl', () => {
  it('acl - a capability without an ACL admits every caller of its tenant, and no other tenant', () => {
    assert.deepEqual(canReach(caller(['read']), { tenant: 'acme' }), { allowed: true });
    assert.equal(canReach(caller(['admin'], 'aaaaaaaaaaaa', 'other'), { tenant: 'acme' }).allowed, false);
  });

  it('acl - any listed scope or listed key admits; nothing else does', () => {
    const acl = { scopes: ['refunds', 'finance'], key_ids: ['bbbbbbbbbbbb'] };
    assert.equal(canReach(caller(['send', 'finance']), { tenant: 'acme', acl }).allowed, true);
    assert.equal(canReach(caller(['send'], 'bbbbbbbbbbbb'), { tenant: 'acme', acl }).allowed, true);
    const denied = canReach(caller(['send']), { tenant: 'acme', acl });
    assert.equal(denied.allowed, false);
    assert.equal(
      denied.reason,
      'key aaaaaaaaaaaa has scopes [send]; the capability needs scope "refunds" or scope "finance" or one of 1 listed keys',
    );
  });

  it('acl - a caller without a key reaches only capabilities without an ACL (the router hook)', () => {
    assert.equal(canReach({ tenant: 'acme' }, { tenant: 'acme' }).allowed, true);
    assert.equal(canReach({ tenant: 'acme' }, { tenant: 'acme', acl: { scopes: ['read'] } }).allowed, false);
  });

  it('acl - admin holds the built-in scopes only: a custom scope must be granted explicitly', () => {
    assert.equal(canReach(caller(['admin']), { tenant: 'acme', acl: { scopes: ['send'] } }).allowed, true);
    assert.equal(canReach(caller(['admin']), { tenant: 'acme', acl: { scopes: ['refunds'] } }).allowed, false);
  });
  it('acl - token callers: a listed subject or a listed group admits; a key is in no group, a subject is no key', () => {
    const token = (sub: string, groups: string[]): Caller => ({
      tenant: 'acme',
      subject: { issuer: 'https://idp.example', sub, groups },
      scopes: ['send'],
    });
    const acl = { subjects: ['svc-billing'], groups: ['ops', 'finance'], key_ids: ['bbbbbbbbbbbb'] };
    assert.equal(canReach(token('svc-billing', []), { tenant: 'acme', acl }).allowed, true);
    assert.equal(canReach(token('alice', ['finance']), { tenant: 'acme', acl }).allowed, true);
    const denied = canReach(token('bob', ['sales']), { tenant: 'acme', acl });
    assert.equal(denied.allowed, false);
    assert.equal(
      denied.reason,
      'subject bob (groups [sales]) has scopes [send]; the capability needs one of 1 listed keys or one of 1 listed subjects or group "ops" or "finance"',
    );
    assert.equal(canReach(caller(['send']), { tenant: 'acme', acl: { groups: ['ops'] } }).allowed, false);
    assert.equal(
      canReach(token('bbbbbbbbbbbb', ['ops']), { tenant: 'other', acl }).allowed,
      false,
      'never across tenants',
    );
  });
});
