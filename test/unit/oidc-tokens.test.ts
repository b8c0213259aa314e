/**
 * OIDC access tokens, the pure parts: claims → caller (identity/token-caller.ts), jose's errors → our refusal codes
 * (identity/token-refusal.ts), the issuer settings (https, or http on loopback), and the verifier's checks that need
 * no provider (tokens signed here, keys served by a local JWKS endpoint).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, it } from 'node:test';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { loadConfig } from '../../platform/config';
import { callerIdOf } from '../../rules/api-key';
import { callerFromClaims, claimList } from '../../identity/token-caller';
import { discoveryUrl } from '../../identity/discovery-url';
import { looksLikeJwt, tokenVerifierOf } from '../../identity/token-verifier';
import { TokenRefusal } from '../../identity/token-refusal';
import { withTokenSchemes } from '../../catalogue/a2a';

const mapping = { tenantClaim: 'tenant', scopesClaim: 'scope', groupsClaim: 'groups' };

describe('oidc tokens', () => {
  it('oidc tokens - claims map to a caller: tenant, scopes (string or array, invalid names dropped), groups, subject', () => {
    const mapped = callerFromClaims(
      {
        iss: 'https://idp.example',
        sub: 'svc-1',
        tenant: 'acme',
        scope: 'read send openid Bad!',
        groups: ['ops', 'ops', 7],
      },
      mapping,
    );
    assert.deepEqual(mapped, {
      caller: {
        tenant: 'acme',
        subject: { issuer: 'https://idp.example', sub: 'svc-1', groups: ['ops'] },
        scopes: ['read', 'send', 'openid'],
      },
    });
    assert.equal(callerIdOf((mapped as { caller: never }).caller), 'sub:https://idp.example#svc-1');
    const custom = callerFromClaims(
      { iss: 'i', sub: 's', org: 'globex', scp: ['read'], roles: 'a b' },
      { tenantClaim: 'org', scopesClaim: 'scp', groupsClaim: 'roles' },
    );
    assert.deepEqual(custom, {
      caller: { tenant: 'globex', subject: { issuer: 'i', sub: 's', groups: ['a', 'b'] }, scopes: ['read'] },
    });
    assert.deepEqual(claimList(42), []);
  });

  it('oidc tokens - a token that names no tenant, an invalid tenant or no subject maps to nothing', () => {
    assert.match(
      (callerFromClaims({ iss: 'i', sub: 's' }, mapping) as { unmapped: string }).unmapped,
      /no "tenant" claim/,
    );
    assert.match(
      (callerFromClaims({ iss: 'i', sub: 's', tenant: 'Not A Tenant' }, mapping) as { unmapped: string }).unmapped,
      /not a tenant name/,
    );
    assert.match(
      (callerFromClaims({ iss: 'i', tenant: 'acme' }, mapping) as { unmapped: string }).unmapped,
      /no subject/,
    );
  });

  it('oidc tokens - AUTH_OIDC_ISSUER: https issuers, http only on loopback, several comma-separated', () => {
    const ok = loadConfig({
      AUTH_OIDC_ISSUER: 'https://idp.example/realms/acme/, http://127.0.0.1:8080,http://localhost:9000',
    });
    assert.deepEqual(
      ok.AUTH_OIDC_ISSUER,
      ['https://idp.example/realms/acme/', 'http://127.0.0.1:8080', 'http://localhost:9000'],
      'exactly as iss, trailing slash and all',
    );
    assert.equal(
      discoveryUrl('https://tenant.auth0.example/'),
      'https://tenant.auth0.example/.well-known/openid-configuration',
    );
    assert.equal(ok.AUTH_OIDC_TENANT_CLAIM, 'tenant');
    assert.equal(ok.AUTH_OIDC_SCOPES_CLAIM, 'scope');
    assert.throws(
      () => loadConfig({ AUTH_OIDC_ISSUER: 'http://idp.example' }),
      /AUTH_OIDC_ISSUER: http:\/\/idp.example: an issuer must be https/,
    );
    assert.throws(() => loadConfig({ AUTH_OIDC_ISSUER: 'not a url' }), /AUTH_OIDC_ISSUER/);
    assert.equal(tokenVerifierOf(loadConfig({})), undefined, 'no issuer, no verifier');
  });

  it('oidc tokens - only JWT-shaped bearer credentials are tokens (API keys and agent secrets are not)', () => {
    assert.equal(looksLikeJwt('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'), true);
    assert.equal(
      looksLikeJwt('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'),
      true,
      'an unsigned one is a token, to be refused',
    );
    assert.equal(looksLikeJwt(`rk_7e57ab1e0001_${'T'.repeat(43)}`), false);
    assert.equal(looksLikeJwt('as_0123456789abcdef0123456789abcdef'), false);
  });

  it('oidc tokens - the verifier: issuer, audience (and the MCP resource on /mcp only), HMAC refused, discovery down is a clear 401', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    let discoveryDown = false;
    const server = createServer((req, res) => {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      if (discoveryDown) return res.writeHead(503).end();
      if (req.url === '/.well-known/openid-configuration')
        return res.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks` }));
      if (req.url === '/jwks') return res.end(JSON.stringify({ keys: [jwk] }));
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const config = loadConfig({ AUTH_OIDC_ISSUER: issuer, PUBLIC_URL: 'https://reach.example' });
      const sign = (aud: string, key = privateKey, alg = 'ES256') =>
        new SignJWT({ tenant: 'acme', scope: 'read' })
          .setProtectedHeader({ alg, kid: 'k1' })
          .setIssuer(issuer)
          .setAudience(aud)
          .setSubject('s')
          .setExpirationTime('1m')
          .sign(key);
      const refusal = async (promise: Promise<unknown>) =>
        (
          (await promise.then(
            () => undefined,
            (e: unknown) => e,
          )) as TokenRefusal | undefined
        )?.code;

      discoveryDown = true;
      assert.equal(
        await refusal(tokenVerifierOf(config)!.verify(await sign('https://reach.example'), { forMcp: false })),
        'token_keys_unavailable',
      );
      discoveryDown = false;
      const verifier = tokenVerifierOf(config)!;
      assert.equal((await verifier.verify(await sign('https://reach.example'), { forMcp: false })).tenant, 'acme');
      assert.equal(
        await refusal(verifier.verify(await sign('https://reach.example/mcp'), { forMcp: false })),
        'token_wrong_audience',
      );
      assert.equal((await verifier.verify(await sign('https://reach.example/mcp'), { forMcp: true })).tenant, 'acme');
      const secret = new TextEncoder().encode('a shared secret the gateway never accepts!!');
      assert.equal(
        await refusal(
          verifier.verify(await sign('https://reach.example', secret as never, 'HS256'), { forMcp: false }),
        ),
        'token_invalid',
      );
      assert.equal(
        await refusal(verifier.verify('eyJhbGciOiJFUzI1NiJ9.bm90IGpzb24.c2ln', { forMcp: false })),
        'token_invalid',
      );
      const custom = tokenVerifierOf(
        loadConfig({
          AUTH_OIDC_ISSUER: issuer,
          PUBLIC_URL: 'https://reach.example',
          AUTH_OIDC_AUDIENCE: 'api://agent-reach',
        }),
      )!;
      assert.equal(
        (await custom.verify(await sign('api://agent-reach'), { forMcp: false })).tenant,
        'acme',
        'AUTH_OIDC_AUDIENCE replaces PUBLIC_URL',
      );
      assert.equal(
        await refusal(custom.verify(await sign('https://reach.example'), { forMcp: false })),
        'token_wrong_audience',
      );
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
  it('oidc tokens - cards declare one OpenID Connect scheme per issuer, each enough alone; none without issuers', () => {
    const card = {
      supportedInterfaces: [],
      securitySchemes: { reach_api_key: {} },
      securityRequirements: [{ schemes: { reach_api_key: { list: [] } } }],
    };
    const two = withTokenSchemes(card, ['https://a.example', 'https://b.example']);
    assert.deepEqual(Object.keys(two.securitySchemes), ['reach_api_key', 'reach_oidc_1', 'reach_oidc_2']);
    assert.equal(
      (two.securitySchemes as Record<string, any>).reach_oidc_2.openIdConnectSecurityScheme.openIdConnectUrl,
      'https://b.example/.well-known/openid-configuration',
    );
    assert.equal(two.securityRequirements.length, 3);
    assert.equal(withTokenSchemes(card, undefined), card);
    const withFlows = withTokenSchemes(card, ['https://a.example'], [{ token_endpoint: 'https://a.example/token' }]);
    assert.deepEqual(
      Object.keys(withFlows.securitySchemes),
      ['reach_api_key', 'reach_oidc', 'reach_oauth2_client'],
      'no authorization endpoint: client credentials only',
    );
  });
});
