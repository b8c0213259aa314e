/**
 * Which addresses Agent-Reach may connect to on a caller's or an agent's word (agent endpoints, A2A card URLs,
 * reply_to webhooks): the SSRF policy. Addresses are parsed with ipaddr.js; a host name is resolved and every
 * address it resolves to must pass.
 *
 * Order of the rules, first match wins:
 * 1. ENDPOINT_DENY_CIDRS → refused;  2. ENDPOINT_ALLOW_CIDRS → allowed;
 * 3. cloud metadata addresses (169.254.169.254, fd00:ec2::254, metadata.google.internal) and link-local
 *    (169.254.0.0/16, fe80::/10) → refused;
 * 4. loopback → ENDPOINT_ALLOW_LOOPBACK;  5. private (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) →
 *    ENDPOINT_ALLOW_PRIVATE;
 * 6. anything else that is not public unicast (unspecified, broadcast, multicast, reserved, and IPv6 ranges that
 *    embed an IPv4 address: NAT64, 6to4, Teredo) → refused;  7. public unicast → allowed.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

export interface EndpointPolicy {
  allowLoopback: boolean;
  allowPrivate: boolean;
  allow: Cidr[];
  deny: Cidr[];
}

export type EndpointVerdict = { allowed: true } | { allowed: false; reason: string };

/** Resolves a host name to all its addresses. */
export type Lookup = (host: string) => Promise<string[]>;

const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254']);
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);
const PRIVATE_RANGES = new Set(['private', 'uniqueLocal', 'carrierGradeNat']);

/** The configuration knobs of the policy (platform/config.ts documents them). */
export interface EndpointSettings {
  ENDPOINT_ALLOW_LOOPBACK: boolean;
  ENDPOINT_ALLOW_PRIVATE: boolean;
  ENDPOINT_ALLOW_CIDRS: string[];
  ENDPOINT_DENY_CIDRS: string[];
}

export function endpointPolicy(config: EndpointSettings): EndpointPolicy {
  return {
    allowLoopback: config.ENDPOINT_ALLOW_LOOPBACK,
    allowPrivate: config.ENDPOINT_ALLOW_PRIVATE,
    allow: config.ENDPOINT_ALLOW_CIDRS.map((c) => ipaddr.parseCIDR(c)),
    deny: config.ENDPOINT_DENY_CIDRS.map((c) => ipaddr.parseCIDR(c)),
  };
}

function inAny(address: ipaddr.IPv4 | ipaddr.IPv6, ranges: Cidr[]): boolean {
  return ranges.some((range) => address.kind() === range[0].kind() && address.match(range));
}

/** The verdict for one IP address (IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry). */
export function addressVerdict(text: string, policy: EndpointPolicy): EndpointVerdict {
  if (!ipaddr.isValid(text)) return { allowed: false, reason: `${text} is not an IP address` };
  const address = ipaddr.process(text);
  const shown = address.toString();
  if (inAny(address, policy.deny)) return { allowed: false, reason: `${shown} is in a denied range` };
  if (inAny(address, policy.allow)) return { allowed: true };
  if (METADATA_ADDRESSES.has(shown)) return { allowed: false, reason: `${shown} is a cloud metadata address` };
  const range = address.range();
  if (range === 'linkLocal') return { allowed: false, reason: `${shown} is link-local` };
  if (range === 'loopback')
    return policy.allowLoopback
      ? { allowed: true }
      : { allowed: false, reason: `${shown} is loopback (ENDPOINT_ALLOW_LOOPBACK is off)` };
  if (PRIVATE_RANGES.has(range))
    return policy.allowPrivate
      ? { allowed: true }
      : { allowed: false, reason: `${shown} is private (ENDPOINT_ALLOW_PRIVATE is off)` };
  if (range !== 'unicast') return { allowed: false, reason: `${shown} is not a public unicast address (${range})` };
  return { allowed: true };
}

const systemLookup: Lookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** The verdict for a URL: its host, or every address its host name resolves to. */
export async function checkEndpoint(
  url: string,
  policy: EndpointPolicy,
  lookup: Lookup = systemLookup,
): Promise<EndpointVerdict> {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return { allowed: false, reason: 'not a URL' };
  }
  if (ipaddr.isValid(host)) return addressVerdict(host, policy);
  if (METADATA_HOSTS.has(host.replace(/\.$/, '')))
    return { allowed: false, reason: `${host} is a cloud metadata host` };
  let addresses: string[];
  try {
    addresses = await lookup(host);
  } catch (error) {
    return {
      allowed: false,
      reason: `${host} does not resolve (${(error as { code?: string }).code ?? 'lookup failed'})`,
    };
  }
  if (addresses.length === 0) return { allowed: false, reason: `${host} does not resolve` };
  for (const address of addresses) {
    const verdict = addressVerdict(address, policy);
    if (!verdict.allowed) return { allowed: false, reason: `${host} resolves to ${verdict.reason}` };
  }
  return { allowed: true };
}
