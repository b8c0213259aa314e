/** The SSRF policy applied to request fields: every URL Agent-Reach would later connect to must pass. */
import { checkEndpoint, type EndpointPolicy, type Lookup } from '../rules/endpoint-policy';
import { ApiError } from './errors';

export interface EndpointGuard {
  policy: EndpointPolicy;
  /** Resolves host names; the system resolver unless a test gives another. */
  lookup?: Lookup;
}

export interface UrlAt {
  /** Where the URL is in the request, e.g. `body.instances.0.endpoint`. */
  location: string;
  url: string;
}

/** 422 `endpoint_not_allowed` naming each refused URL and why; nothing is stored before this passes. */
export async function requireAllowedEndpoints(guard: EndpointGuard, urls: UrlAt[]): Promise<void> {
  const verdicts = await Promise.all(
    urls.map(async (u) => ({ ...u, verdict: await checkEndpoint(u.url, guard.policy, guard.lookup) })),
  );
  const refused = verdicts.flatMap((v) =>
    v.verdict.allowed ? [] : [{ location: v.location, message: v.verdict.reason }],
  );
  if (refused.length > 0) {
    throw new ApiError(
      422,
      'endpoint_not_allowed',
      'An endpoint points where Agent-Reach may not connect (see ENDPOINT_* settings)',
      refused,
    );
  }
}

/** The endpoints of a registration or update body, with their locations. */
export function cardEndpoints(
  card: { endpoint?: string | undefined; instances?: { endpoint?: string | undefined }[] | undefined },
  where = 'body',
): UrlAt[] {
  if (card.endpoint) return [{ location: `${where}.endpoint`, url: card.endpoint }];
  return (card.instances ?? []).flatMap((i, index) =>
    i.endpoint ? [{ location: `${where}.instances.${index}.endpoint`, url: i.endpoint }] : [],
  );
}
