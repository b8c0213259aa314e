/** Small HTTP client for tests: JSON in, status and JSON out; the test system's admin key unless told otherwise. */

/** The `default` tenant's admin key (with the `metrics` scope) that every test system accepts (from API_KEYS). */
export const TEST_API_KEY = `rk_7e57ab1e0001_${'T'.repeat(43)}`;

export interface JsonResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function request<T = any>(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse<T>> {
  // An `authorization` header replaces the default key; an empty one sends none.
  const { authorization = `Bearer ${TEST_API_KEY}`, ...rest } = headers;
  const response = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(authorization ? { authorization } : {}), ...rest },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** Registers an agent with one capability at `endpoint`; returns its id and secret. */
export async function registerAgent(
  baseUrl: string,
  endpoint: string,
  overrides: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ agent_id: string; secret: string; signing_secret: string }> {
  const response = await request('POST', `${baseUrl}/v1/agents`, {
    name: `agent-${Math.random().toString(36).slice(2, 10)}`,
    endpoint,
    capabilities: [{ name: 'echo', description: 'Echoes the payload back' }],
    ...overrides,
  }, headers);
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}
