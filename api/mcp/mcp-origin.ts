/**
 * DNS-rebinding protection for `/mcp`: a web page that makes its own host name resolve to 127.0.0.1 reaches a local
 * gateway from the browser with `Host: its-name` (and its own `Origin`). So requests are refused (403) unless their
 * Host names one of MCP_ALLOWED_HOSTS (port-agnostic: the SDK's hostHeaderValidation) and their Origin, when they
 * carry one, is in MCP_ALLOWED_ORIGINS, or else is on an allowed host. On by default when the api binds a loopback
 * address (localhost, 127.0.0.1, [::1] and PUBLIC_URL's host are allowed); `MCP_ALLOWED_HOSTS=*` turns it off.
 */
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import type { RequestHandler } from 'express';
import ipaddr from 'ipaddr.js';
import type { Config } from '../../platform/config';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

function isLoopbackBind(host: string): boolean {
  if (host === 'localhost') return true;
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === 'loopback';
}

function hostnameOf(url: string): string {
  return new URL(url).hostname;
}

/** The host names `/mcp` answers for, or undefined when any is (the check is off). */
export function mcpAllowedHosts(
  config: Pick<Config, 'MCP_ALLOWED_HOSTS' | 'API_HOST' | 'PUBLIC_URL'>,
): string[] | undefined {
  const configured = config.MCP_ALLOWED_HOSTS;
  if (configured === '*') return undefined;
  if (configured) return configured;
  if (!isLoopbackBind(config.API_HOST)) return undefined;
  return [...new Set([...LOOPBACK_NAMES, hostnameOf(config.PUBLIC_URL)])];
}

function originAllowed(origin: string, hosts: string[] | undefined, origins: string[] | undefined): boolean {
  if (origins) return origins.includes(origin);
  if (!hosts) return true;
  try {
    return hosts.includes(hostnameOf(origin));
  } catch {
    return false; // "null" and other opaque origins
  }
}

export function originGuard(
  config: Pick<Config, 'MCP_ALLOWED_HOSTS' | 'MCP_ALLOWED_ORIGINS' | 'API_HOST' | 'PUBLIC_URL'>,
): RequestHandler {
  const hosts = mcpAllowedHosts(config);
  const origins = config.MCP_ALLOWED_ORIGINS;
  const hostCheck = hosts ? hostHeaderValidation(hosts) : undefined;
  return (req, res, next) => {
    const origin = req.get('origin');
    if (origin !== undefined && !originAllowed(origin, hosts, origins)) {
      res.status(403).json({
        jsonrpc: '2.0',
        error: { code: -32000, message: `Origin ${origin} is not allowed (MCP_ALLOWED_ORIGINS)` },
        id: null,
      });
      return;
    }
    if (hostCheck) return hostCheck(req, res, next);
    next();
  };
}
