/**
 * A real OpenID Provider in the test process: `oidc-provider` (OpenID Certified) on a free loopback port, issuing
 * signed JWT access tokens — client credentials for services, authorization code + PKCE for users (its built-in
 * development login and consent pages: any login name, no password), with dynamic client registration as MCP
 * clients expect. Any resource indicator is a resource server here: its tokens' audience is the resource asked for.
 *
 * Claims: a service client's tokens carry the tenant and groups given for it in `clients`; a user's those given in
 * `users`. `jwksDown` makes the JWKS endpoint answer 503 (the rest keeps working); `signingKey` is the provider's
 * own key, for tokens the provider would not make (expired ones).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, type KeyLike } from 'jose';

export interface IdentityClaims {
  tenant?: string;
  groups?: string[];
}

export interface TestIdpOptions {
  /** Confidential service clients (client credentials), by client id; their secret is `<client id>-secret`. */
  clients?: Record<string, IdentityClaims>;
  /** Users by login name. */
  users?: Record<string, IdentityClaims>;
  /** Scopes a token may carry (the resource's). @default read send register admin */
  scopes?: string[];
}

export interface TestIdp {
  issuer: string;
  /** While true, `GET /jwks` answers 503. */
  jwksDown: boolean;
  signingKey: { key: KeyLike; kid: string };
  /** Registers a public client (authorization code + PKCE) under `clientId`, redirecting to `redirectUri`. */
  registerPublicClient(clientId: string, redirectUri: string): Promise<void>;
  /** A client-credentials access token of `clientId` for `resource`. */
  serviceToken(clientId: string, resource: string, scope?: string): Promise<string>;
  stop(): Promise<void>;
}

/** What these tests use of oidc-provider (an ES module without type declarations). */
interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  on(event: 'server_error', listener: (ctx: unknown, error: Error) => void): void;
}
type ProviderModule = { default: new (issuer: string, configuration: Record<string, unknown>) => OidcProvider };
type Token = { accountId?: string; clientId?: string };

const DEFAULT_SCOPES = ['read', 'send', 'register', 'admin'];

export async function startTestIdp(options: TestIdpOptions = {}): Promise<TestIdp> {
  const { default: Provider } = (await import('oidc-provider' as string)) as ProviderModule;
  const scopes = (options.scopes ?? DEFAULT_SCOPES).join(' ');
  const clients = options.clients ?? {};
  const users = options.users ?? {};
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `test-${process.pid}-${Date.now()}`;
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };

  let onRequest: (req: IncomingMessage, res: ServerResponse) => void = () => {};
  const server: Server = createServer((req, res) => onRequest(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const issuer = `http://127.0.0.1:${port}`;

  const namedIds: string[] = [];
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    // Registered clients may name the resource's scopes too (MCP clients register with the scopes they will ask for).
    scopes: ['openid', 'offline_access', ...scopes.split(' ')],
    clients: Object.keys(clients).map((clientId) => ({
      client_id: clientId,
      client_secret: `${clientId}-secret`,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    })),
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    cookies: { keys: ['test-idp-cookie-key-0123456789abcdef'] },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      // Clients registered by the test (registerPublicClient) get the id it names; others (MCP clients) a random one.
      registration: { enabled: true, idFactory: () => namedIds.shift() ?? randomUUID() },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf ?? undefined,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resourceIndicator: string) => ({
          scope: scopes,
          audience: resourceIndicator,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    extraTokenClaims: async (_ctx: unknown, token: Token) => {
      const claims = token.accountId ? users[token.accountId] : clients[token.clientId ?? ''];
      return claims ? { ...claims } : undefined;
    },
    // The provider's own login page needs no interaction beyond login and consent.
    ttl: {
      AccessToken: 300,
      ClientCredentials: 300,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
      AuthorizationCode: 120,
    },
  });
  provider.on('server_error', (_ctx, error) => console.error('[test idp] server_error', error));
  const callback = provider.callback();

  const idp: TestIdp = {
    issuer,
    jwksDown: false,
    signingKey: { key: privateKey, kid },
    async registerPublicClient(clientId, redirectUri) {
      namedIds.push(clientId);
      const response = await fetch(`${issuer}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      });
      if (response.status !== 201)
        throw new Error(`the test IdP refused to register ${clientId}: ${response.status} ${await response.text()}`);
    },
    async serviceToken(clientId, resource, scope = 'read send') {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${clientId}:${clientId}-secret`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!response.ok || !body.access_token)
        throw new Error(`the test IdP gave no token to ${clientId}: ${response.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  onRequest = (req, res) => {
    if (idp.jwksDown && req.url?.startsWith('/jwks')) {
      res.writeHead(503).end();
      return;
    }
    callback(req, res);
  };
  return idp;
}
