/**
 * MCP authorization as the specification describes it, end to end: the official TypeScript MCP client with no
 * credential gets a 401 whose `WWW-Authenticate` names the protected-resource metadata (RFC 9728), reads it, finds
 * the authorization server (a real `oidc-provider`), registers itself (dynamic client registration), sends the user
 * through authorization code + PKCE with the MCP resource (RFC 8707) — the login and consent pages driven by HTTP —
 * gets a token, retries and lists its tools. Also: the metadata documents, and `insufficient_scope`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { request } from '../helpers/http';
import { authorizeAs } from '../helpers/oauth-browserless';
import { startTestIdp, type TestIdp } from '../helpers/oidc-provider';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;
let idp: TestIdp;

const REDIRECT = 'http://127.0.0.1:1/callback';

before(async () => {
  servers = await startTestServers();
  idp = await startTestIdp({
    users: { alice: { tenant: 'default', groups: ['ops'] } },
    clients: { 'svc-register-only': { tenant: 'default' } },
  });
  system = await startSystem(servers, { AUTH_OIDC_ISSUER: idp.issuer });
});

after(async () => {
  await system?.stop();
  await idp?.stop();
  await servers?.stop();
});

/** What an MCP client application keeps between runs: its registration, the PKCE verifier, its tokens. */
class MemoryOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'agent-reach mcp-oauth test',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('mcp oauth', () => {
  it('mcp oauth - protected-resource metadata, the 401 challenge, insufficient_scope', async () => {
    const mcpMeta = await request('GET', `${system.baseUrl}/.well-known/oauth-protected-resource/mcp`, undefined, {
      authorization: '',
    });
    assert.equal(mcpMeta.status, 200);
    assert.deepEqual(mcpMeta.body.resource, `${system.baseUrl}/mcp`);
    assert.deepEqual(mcpMeta.body.authorization_servers, [idp.issuer]);
    assert.deepEqual(mcpMeta.body.scopes_supported, ['read', 'send', 'register', 'admin']);
    const gatewayMeta = await request('GET', `${system.baseUrl}/.well-known/oauth-protected-resource`, undefined, {
      authorization: '',
    });
    assert.equal(gatewayMeta.body.resource, system.baseUrl);

    const challenge = await request(
      'POST',
      `${system.baseUrl}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
      { authorization: '' },
    );
    assert.equal(challenge.status, 401);
    assert.equal(
      challenge.headers.get('www-authenticate'),
      `Bearer resource_metadata="${system.baseUrl}/.well-known/oauth-protected-resource/mcp", scope="read send"`,
    );

    const registerOnly = await idp.serviceToken('svc-register-only', `${system.baseUrl}/mcp`, 'register');
    const tooNarrow = await request(
      'POST',
      `${system.baseUrl}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
      { authorization: `Bearer ${registerOnly}` },
    );
    assert.equal(tooNarrow.status, 403);
    assert.equal(tooNarrow.body.error.code, 'insufficient_scope');
    assert.match(
      tooNarrow.headers.get('www-authenticate') ?? '',
      /^Bearer error="insufficient_scope", scope="read send", resource_metadata="/,
    );
  });

  it('mcp oauth - a client with no credential follows 401 → metadata → registration → authorize (code + PKCE) → token → retry, and lists tools', async () => {
    const oauth = new MemoryOAuthProvider();
    const url = new URL(`${system.baseUrl}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: oauth });
    await assert.rejects(
      new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first),
      UnauthorizedError,
      'no token yet: the user must authorize',
    );
    assert.ok(oauth.client?.client_id, 'the client registered itself with the provider');
    const authorization = oauth.authorizationUrl!;
    assert.equal(authorization.origin, idp.issuer);
    assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorization.searchParams.get('resource'), `${system.baseUrl}/mcp`);

    const back = await authorizeAs(authorization, 'alice', REDIRECT);
    await first.finishAuth(back.searchParams.get('code')!);
    const claims = decodeJwt(oauth.saved!.access_token);
    assert.equal(claims.aud, `${system.baseUrl}/mcp`);
    assert.equal(claims.sub, 'alice');

    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: oauth }));
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(tools.includes('reach_send') && tools.includes('reach_status'), tools.join(','));
    } finally {
      await client.close();
    }
  });
});
