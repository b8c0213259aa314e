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
  const init = {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(authorization ? { authorization } : {}),
      ...rest,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  };
  const response = await fetch(url, init).catch(async (error: unknown) => {
    // On a loaded shared machine a loopback connection is now and then reset or refused before the request is read;
    // one retry tells that apart from a server that is really down (and the cause is printed for diagnosis).
    if (!isConnectionError(error)) throw error;
    console.error(`[test http] ${method} ${url}: ${connectionErrorCode(error)}, retrying once`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    return fetch(url, init);
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

const CONNECTION_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET']);

function connectionErrorCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: string } })?.cause;
  return cause?.code;
}

function isConnectionError(error: unknown): boolean {
  return error instanceof TypeError && CONNECTION_ERRORS.has(connectionErrorCode(error) ?? '');
}

/** Registers an agent with one capability at `endpoint`; returns its id and secret. */
export async function registerAgent(
  baseUrl: string,
  endpoint: string,
  overrides: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ agent_id: string; secret: string; signing_secret: string }> {
  const response = await request(
    'POST',
    `${baseUrl}/v1/agents`,
    {
      name: `agent-${Math.random().toString(36).slice(2, 10)}`,
      endpoint,
      capabilities: [{ name: 'echo', description: 'Echoes the payload back' }],
      ...overrides,
    },
    headers,
  );
  if (response.status !== 201)
    throw new Error(`registration failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}
