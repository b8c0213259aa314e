/** The SSRF policy: which addresses agent endpoints, card URLs and reply_to URLs may point at. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../platform/config';
import { addressVerdict, checkEndpoint, endpointPolicy } from '../../rules/endpoint-policy';

const strict = endpointPolicy(loadConfig({}));
const dev = endpointPolicy(loadConfig({ ENDPOINT_ALLOW_LOOPBACK: 'true', ENDPOINT_ALLOW_PRIVATE: 'true' }));
const resolvesTo =
  (...addresses: string[]) =>
  async () =>
    addresses;

describe('endpoint policy', () => {
  it('endpoint policy - metadata and link-local addresses are refused, even where loopback and private are allowed', () => {
    for (const address of ['169.254.169.254', 'fd00:ec2::254', '::ffff:169.254.169.254', '169.254.0.1', 'fe80::1']) {
      assert.equal(addressVerdict(address, dev).allowed, false, address);
    }
    assert.deepEqual(addressVerdict('::ffff:a9fe:a9fe', dev), {
      allowed: false,
      reason: '169.254.169.254 is a cloud metadata address',
    });
  });

  it('endpoint policy - loopback and private ranges only when configured', () => {
    for (const address of ['127.0.0.1', '::1', '10.1.2.3', '172.16.0.1', '192.168.0.1', '100.64.0.1', 'fd12::1']) {
      assert.equal(addressVerdict(address, strict).allowed, false, address);
      assert.equal(addressVerdict(address, dev).allowed, true, address);
    }
  });

  it('endpoint policy - unspecified, multicast, broadcast and IPv4-embedding IPv6 ranges are refused; public unicast is allowed', () => {
    for (const address of [
      '0.0.0.0',
      '::',
      '224.0.0.1',
      '255.255.255.255',
      '64:ff9b::a9fe:a9fe',
      '2002:a9fe:a9fe::1',
    ]) {
      assert.equal(addressVerdict(address, dev).allowed, false, address);
    }
    for (const address of ['93.184.216.34', '2606:4700::1111'])
      assert.equal(addressVerdict(address, strict).allowed, true, address);
  });

  it('endpoint policy - configured ranges: deny wins over allow, allow wins over the built-in rules', () => {
    const policy = endpointPolicy(
      loadConfig({
        ENDPOINT_ALLOW_CIDRS: '10.5.0.0/16, 169.254.7.0/24',
        ENDPOINT_DENY_CIDRS: '10.5.9.0/24,93.184.0.0/16',
      }),
    );
    assert.equal(addressVerdict('10.5.1.1', policy).allowed, true);
    assert.equal(addressVerdict('10.5.9.1', policy).allowed, false);
    assert.equal(addressVerdict('10.6.0.1', policy).allowed, false);
    assert.equal(addressVerdict('169.254.7.7', policy).allowed, true);
    assert.equal(addressVerdict('93.184.216.34', policy).allowed, false);
  });

  it('endpoint policy - a bad CIDR stops start-up naming the variable', () => {
    assert.throws(() => loadConfig({ ENDPOINT_DENY_CIDRS: '10.0.0.0/33' }), /ENDPOINT_DENY_CIDRS/);
  });

  it('endpoint policy - a host name passes only if every address it resolves to passes', async () => {
    assert.deepEqual(await checkEndpoint('https://agent.example/x', strict, resolvesTo('93.184.216.34')), {
      allowed: true,
    });
    const mixed = await checkEndpoint(
      'https://agent.example/x',
      strict,
      resolvesTo('93.184.216.34', '169.254.169.254'),
    );
    assert.deepEqual(mixed, {
      allowed: false,
      reason: 'agent.example resolves to 169.254.169.254 is a cloud metadata address',
    });
    const unresolvable = await checkEndpoint('https://nowhere.example/', strict, async () => {
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    });
    assert.deepEqual(unresolvable, { allowed: false, reason: 'nowhere.example does not resolve (ENOTFOUND)' });
    assert.equal(
      (await checkEndpoint('http://metadata.google.internal/', dev, resolvesTo('93.184.216.34'))).allowed,
      false,
      'by name, whatever it resolves to',
    );
  });

  it('endpoint policy - IP literals in URLs are judged without a lookup, whatever their spelling', async () => {
    const noLookup = async (): Promise<string[]> => assert.fail('no lookup for an IP literal');
    for (const url of [
      'http://[::ffff:169.254.169.254]/',
      'http://2852039166/',
      'http://0xa9fea9fe/',
      'http://[fd00:ec2::254]:80/',
    ]) {
      assert.equal((await checkEndpoint(new URL(url).toString(), dev, noLookup)).allowed, false, url);
    }
  });
});
