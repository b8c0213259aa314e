/**
 * Methods on known paths: a method a path does not serve answers 405 with `Allow` (not 404, which says the path does
 * not exist), and `OPTIONS` answers 204 with `Allow`. The paths and methods are those of the OpenAPI operations, so
 * the document and this answer cannot disagree. Paths match as Express matches them (case-insensitive, an optional
 * trailing slash); where a literal path and a parameterised one both match (`/v1/agents/import` and
 * `/v1/agents/:agent_id`), the one with fewer parameters is the path meant.
 */
import type { RequestHandler } from 'express';
import { errorBody } from './errors';

interface KnownPath {
  pattern: RegExp;
  params: number;
  methods: Set<string>;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function knownPaths(operations: readonly { method: string; path: string }[]): KnownPath[] {
  const byPath = new Map<string, KnownPath>();
  for (const { method, path } of operations) {
    let known = byPath.get(path);
    if (!known) {
      const source = path
        .split('/')
        .map((segment) => (segment.startsWith(':') ? '[^/]+' : escape(segment)))
        .join('/');
      known = {
        pattern: new RegExp(`^${source}/?$`, 'i'),
        params: (path.match(/:/g) ?? []).length,
        methods: new Set(),
      };
      byPath.set(path, known);
    }
    known.methods.add(method.toUpperCase());
    if (method.toUpperCase() === 'GET') known.methods.add('HEAD');
  }
  return [...byPath.values()];
}

/** The methods `path` serves, or undefined for a path no operation has. */
export function allowedMethods(paths: readonly KnownPath[], path: string): string[] | undefined {
  const matches = paths.filter((known) => known.pattern.test(path));
  if (matches.length === 0) return undefined;
  const fewest = Math.min(...matches.map((m) => m.params));
  return [...new Set(matches.filter((m) => m.params === fewest).flatMap((m) => [...m.methods]))];
}

export function methodGuard(operations: readonly { method: string; path: string }[]): RequestHandler {
  const paths = knownPaths(operations);
  return (req, res, next) => {
    const allowed = allowedMethods(paths, req.path);
    if (!allowed || (allowed.includes(req.method) && req.method !== 'OPTIONS')) return next();
    const allow = [...allowed, 'OPTIONS'].join(', ');
    res.set('allow', allow);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    res
      .status(405)
      .json(
        errorBody('method_not_allowed', `${req.method} is not served on ${req.path}; use ${allow}`, { allow: allowed }),
      );
  };
}
