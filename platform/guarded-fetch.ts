/**
 * `fetch` that connects only to addresses the endpoint policy allows, checked on the very addresses the connection
 * uses: the host name is resolved once, by our lookup, and refused if any address fails the policy. So a name that
 * resolved to a public address when it was checked and to a metadata address a moment later (DNS rebinding) is still
 * refused. An IP literal has no lookup to hook: it is checked here, before connecting, against the same policy.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import ipaddr from 'ipaddr.js';
import { addressVerdict, type EndpointPolicy } from '../rules/endpoint-policy';

/** Thrown (as the fetch's cause) when the host resolves to an address the policy refuses. */
export class EndpointNotAllowedError extends Error {
  readonly code = 'ENDPOINT_NOT_ALLOWED';
  constructor(reason: string) {
    super(`endpoint not allowed: ${reason}`);
    this.name = 'EndpointNotAllowedError';
  }
}

export function policyLookup(policy: EndpointPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      for (const { address } of addresses) {
        const verdict = addressVerdict(address, policy);
        if (!verdict.allowed)
          return callback(new EndpointNotAllowedError(`${hostname} resolves to ${verdict.reason}`), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses;
      if (!first)
        return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** The refusal for a URL whose host is an IP literal the policy refuses (names are checked by the lookup). */
function literalRefusal(input: string | URL, policy: EndpointPolicy): EndpointNotAllowedError | undefined {
  let host: string;
  try {
    host = new URL(String(input)).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return undefined; // fetch itself refuses what is not a URL
  }
  if (!ipaddr.isValid(host)) return undefined;
  const verdict = addressVerdict(host, policy);
  return verdict.allowed ? undefined : new EndpointNotAllowedError(verdict.reason);
}

export function guardedFetch(policy: EndpointPolicy): typeof fetch {
  const dispatcher = new Agent({ connect: { lookup: policyLookup(policy) } });
  return (async (input: string | URL, init?: RequestInit) => {
    const refusal = literalRefusal(input, policy);
    // Failed as fetch fails on a connection it could not make: a TypeError whose cause says why.
    if (refusal) throw new TypeError('fetch failed', { cause: refusal });
    return undiciFetch(input, { ...(init as object), dispatcher });
  }) as unknown as typeof fetch;
}
