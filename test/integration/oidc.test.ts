/**
 * OIDC access tokens on every face (docs/security.md, "Signing in with an identity provider"): a real
 * `oidc-provider` in this process issues client-credentials tokens; the real gateway (Temporal, FerretDB, worker)
 * takes them on `/v1` (messages, chains), `/mcp` (the official TypeScript client) and `/a2a`, with the mapped tenant,
 * scopes and groups, ACLs that admit subjects and groups, and API keys working beside them. Every refusal: another
 * issuer, another audience, expired, `alg: none`, a key not in the JWKS, no tenant, another tenant, a JWKS endpoint
 * that is down (cached keys keep working; a new key id is a 401, never a 500).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT, generateKeyPair } from 'jose';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, NexusOperationFailure } from '@temporalio/common';
import { messageWorkflowId } from '../../messages/temporal';
import { ensureNexusEndpoint } from '../../temporal-callers/nexus/endpoint';
import { startCallerNamespace, type CallerNamespace } from '../helpers/caller-namespace';
import { request } from '../helpers/http';
import { mcpClient, sdkAgent } from '../helpers/mcp';
import { startTestIdp, type TestIdp } from '../helpers/oidc-provider';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;
let idp: TestIdp;
let otherIdp: TestIdp;
let agentId: string;
let callerNamespace: CallerNamespace;
const CALLER_QUEUE = 'oidc-caller-workflows';
const NEXUS_ENDPOINT = 'agent-reach-oidc-test';
const stops: (() => Promise<unknown> | void)[] = [];
let n = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++n}`;

const CLIENTS = {
  'svc-ops': { tenant: 'acme', groups: ['ops'] },
  'svc-plain': { tenant: 'acme', groups: [] },
  'svc-globex': { tenant: 'globex', groups: ['ops'] },
  'svc-nowhere': { groups: ['ops'] },
};

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

type SdkClient = typeof import('@a2a-js/sdk/client', { with: { 'resolution-mode': 'import' } });
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } = require('@a2a-js/sdk/client') as SdkClient;

before(async () => {
  servers = await startTestServers();
  idp = await startTestIdp({ clients: CLIENTS });
  otherIdp = await startTestIdp({ clients: CLIENTS });
  // A refetch of the JWKS for an unknown key id is never held back, so a JWKS that is down is tried every time.
  system = await startSystem(servers, {
    AUTH_OIDC_ISSUER: idp.issuer,
    AUTH_OIDC_JWKS_COOLDOWN_MS: '0',
    NEXUS_DEFAULT_TENANT: 'acme',
  });
  // The agent registers with a token (the `register` scope) in the token's tenant.
  const registrar = await idp.serviceToken('svc-ops', system.baseUrl, 'register read');
  const worker = await sdkAgent(
    system.baseUrl,
    {
      name: `oidc-${process.pid}`,
      capabilities: [
        { name: 'echo', description: 'Echoes its input' },
        { name: 'ops-only', description: 'Only for the ops group', acl: { groups: ['ops'] } },
        { name: 'plain-only', description: 'Only for one subject', acl: { subjects: ['svc-plain'] } },
      ],
    },
    async (d) => ({ echoed: d.payload ?? d.params ?? null, capability: d.capability }),
    { apiKey: registrar },
  );
  stops.push(worker.stop);
  agentId = worker.agentId;
  callerNamespace = await startCallerNamespace(system.config.TEMPORAL_ADDRESS, {
    namespace: 'oidc-callers',
    taskQueue: CALLER_QUEUE,
    workflowsPath: require.resolve('../helpers/caller-workflows'),
  });
  await ensureNexusEndpoint(callerNamespace.admin, {
    name: NEXUS_ENDPOINT,
    namespace: system.config.TEMPORAL_NAMESPACE,
    taskQueue: system.config.TEMPORAL_TASK_QUEUE,
  });
});

after(async () => {
  for (const stop of stops.reverse()) await stop();
  await callerNamespace?.stop();
  await system?.stop();
  await idp?.stop();
  await otherIdp?.stop();
  await servers?.stop();
});

async function send(token: string, capability: string, extra: Record<string, unknown> = {}) {
  return request(
    'POST',
    `${system.baseUrl}/v1/messages?wait=20s`,
    { target: { agent_id: agentId, capability }, payload: { n: 1 }, ...extra },
    bearer(token),
  );
}

describe('oidc', () => {
  it('oidc - a client-credentials token sends and reads on /v1 as its tenant, with its scopes; the run records the subject and groups', async () => {
    const token = await idp.serviceToken('svc-ops', system.baseUrl, 'read send');
    const messageId = unique('oidc-v1');
    const sent = await send(token, 'echo', { message_id: messageId });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.state, 'processed');
    assert.equal(sent.body.tenant, 'acme');
    assert.deepEqual(sent.body.result, { echoed: { n: 1 }, capability: 'echo' });
    const read = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`, undefined, bearer(token));
    assert.equal(read.status, 200);
    assert.equal(read.body.state, 'processed');
    // The message's record (its run's input in Temporal) names the token's subject, issuer and groups.
    const history = await system.client.workflow.getHandle(messageWorkflowId('acme', messageId)).fetchHistory();
    const input = JSON.parse(
      Buffer.from(history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!.data!).toString(),
    );
    assert.deepEqual(input.caller, {
      tenant: 'acme',
      subject: { issuer: idp.issuer, sub: 'svc-ops', groups: ['ops'] },
      scopes: ['read', 'send'],
    });
    // Scopes are the token's: one with `read` only cannot send.
    const readOnly = await idp.serviceToken('svc-ops', system.baseUrl, 'read');
    const refused = await send(readOnly, 'echo');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'insufficient_scope');
  });

  it('oidc - capability ACLs admit token callers by group and by subject, and refuse the others', async () => {
    const ops = await idp.serviceToken('svc-ops', system.baseUrl);
    const plain = await idp.serviceToken('svc-plain', system.baseUrl);
    assert.equal((await send(ops, 'ops-only')).body.state, 'processed', 'the ops group is admitted');
    const notInGroup = await send(plain, 'ops-only');
    assert.equal(notInGroup.status, 403);
    assert.equal(notInGroup.body.error.code, 'capability_forbidden');
    assert.equal((await send(plain, 'plain-only')).body.state, 'processed', 'the listed subject is admitted');
    assert.equal((await send(ops, 'plain-only')).status, 403, 'another subject is not');
  });

  it('oidc - API keys keep working beside tokens', async () => {
    const key = (await system.keys.create('acme', { scopes: ['send', 'read'] }, 'oidc-test')).key;
    const sent = await send(key, 'echo');
    assert.equal(sent.status, 200);
    assert.equal(sent.body.state, 'processed');
    assert.equal((await send(key, 'ops-only')).status, 403, 'a key is in no group');
  });

  it('oidc - a token starts a chain whose steps are sent as its subject', async () => {
    const token = await idp.serviceToken('svc-ops', system.baseUrl);
    const chainId = unique('oidc-chain');
    const started = await request(
      'POST',
      `${system.baseUrl}/v1/chains`,
      {
        chain_id: chainId,
        steps: [
          { id: 'first', target: { agent_id: agentId, capability: 'echo' }, input: { step: 1 } },
          { id: 'second', target: { agent_id: agentId, capability: 'ops-only' }, input: { step: 2 } },
        ],
      },
      bearer(token),
    );
    assert.equal(started.status, 202, JSON.stringify(started.body));
    let chain;
    for (let i = 0; i < 200; i++) {
      chain = await request('GET', `${system.baseUrl}/v1/chains/${chainId}`, undefined, bearer(token));
      if (chain.body.state !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(chain!.body.state, 'completed', JSON.stringify(chain!.body));
  });

  it("oidc - Nexus: an access token is the caller's credential (tenant, scopes, groups); the gateway's run keeps its subject, never the token", async () => {
    const viaNexus = (input: Record<string, unknown>) =>
      callerNamespace.callers.workflow.execute('nexusCallerWorkflow', {
        workflowId: unique('oidc-nexus-caller'),
        taskQueue: CALLER_QUEUE,
        args: [{ tenant: 'acme', ...input }, NEXUS_ENDPOINT],
      });
    const failureOf = async (run: Promise<unknown>) => {
      const error = await run.then(
        () => assert.fail('the caller should have failed'),
        (e: unknown) => e,
      );
      assert.ok(
        error instanceof WorkflowFailedError &&
          error.cause instanceof NexusOperationFailure &&
          error.cause.cause instanceof ApplicationFailure,
        String(error),
      );
      return error.cause.cause;
    };
    const token = await idp.serviceToken('svc-ops', system.baseUrl);
    const messageId = unique('oidc-nexus');
    const done = (await viaNexus({
      message_id: messageId,
      target: { agent_id: agentId, capability: 'ops-only' },
      payload: { n: 3 },
      access_token: token,
    })) as { state: string; result: unknown };
    assert.equal(done.state, 'processed');
    assert.deepEqual(done.result, { echoed: { n: 3 }, capability: 'ops-only' });
    const history = await system.client.workflow.getHandle(messageWorkflowId('acme', messageId)).fetchHistory();
    const started = JSON.parse(
      Buffer.from(history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!.data!).toString(),
    );
    assert.equal(started.access_token, undefined, "the token is not in the gateway's history");
    assert.deepEqual(started.caller.subject, { issuer: idp.issuer, sub: 'svc-ops', groups: ['ops'] });

    const plain = await idp.serviceToken('svc-plain', system.baseUrl);
    assert.equal(
      (
        await failureOf(
          viaNexus({
            message_id: unique('oidc-nexus'),
            target: { agent_id: agentId, capability: 'ops-only' },
            access_token: plain,
          }),
        )
      ).type,
      'capability_forbidden',
      "the ACL sees the token's groups",
    );
    const globex = await idp.serviceToken('svc-globex', system.baseUrl);
    assert.equal(
      (
        await failureOf(
          viaNexus({
            message_id: unique('oidc-nexus'),
            target: { agent_id: agentId, capability: 'echo' },
            access_token: globex,
          }),
        )
      ).type,
      'tenant_mismatch',
    );
    const readOnly = await idp.serviceToken('svc-ops', system.baseUrl, 'read');
    assert.equal(
      (
        await failureOf(
          viaNexus({
            message_id: unique('oidc-nexus'),
            target: { agent_id: agentId, capability: 'echo' },
            access_token: readOnly,
          }),
        )
      ).type,
      'insufficient_scope',
    );
    const otherIssuer = await otherIdp.serviceToken('svc-ops', system.baseUrl);
    const refused = await failureOf(
      viaNexus({
        message_id: unique('oidc-nexus'),
        target: { agent_id: agentId, capability: 'echo' },
        access_token: otherIssuer,
      }),
    );
    assert.equal(refused.type, 'invalid_access_token');
    assert.match(refused.message, /^token_wrong_issuer: /);
    // A direct start may not carry a token (its input is the gateway's history), nor a caller of its own making.
    const direct = system.client.workflow.execute('sendMessage', {
      workflowId: messageWorkflowId('acme', 'oidc-direct-' + process.pid),
      taskQueue: system.config.TEMPORAL_TASK_QUEUE,
      args: [
        {
          tenant: 'acme',
          message_id: 'oidc-direct-' + process.pid,
          target: { agent_id: agentId, capability: 'echo' },
          access_token: token,
        },
      ],
    });
    const directError = await direct.then(
      () => assert.fail('refused'),
      (e: unknown) => e,
    );
    assert.ok(directError instanceof WorkflowFailedError && directError.cause instanceof ApplicationFailure);
    assert.equal(directError.cause.type, 'invalid_access_token');
    const forgedId = 'oidc-forged-' + process.pid;
    const forged = system.client.workflow.execute('sendMessage', {
      workflowId: messageWorkflowId('acme', forgedId),
      taskQueue: system.config.TEMPORAL_TASK_QUEUE,
      args: [
        {
          tenant: 'acme',
          message_id: forgedId,
          target: { agent_id: agentId, capability: 'ops-only' },
          caller: {
            tenant: 'acme',
            subject: { issuer: idp.issuer, sub: 'svc-ops', groups: ['ops'] },
            scopes: ['send'],
          },
          seal: { at: new Date().toISOString(), mac: 'x'.repeat(43) },
        },
      ],
    });
    const forgedError = await forged.then(
      () => assert.fail('refused'),
      (e: unknown) => e,
    );
    assert.ok(forgedError instanceof WorkflowFailedError && forgedError.cause instanceof ApplicationFailure);
    assert.equal(forgedError.cause.type, 'invalid_access_token');
  });

  it('oidc - the MCP face: a token for the MCP resource or for the gateway lists tools; one for /mcp is refused on /v1', async () => {
    const forMcp = await idp.serviceToken('svc-ops', `${system.baseUrl}/mcp`);
    const client = await mcpClient(system.baseUrl, forMcp);
    stops.push(() => client.close());
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('reach_send'), names.join(','));
    const forGateway = await idp.serviceToken('svc-ops', system.baseUrl);
    const other = await mcpClient(system.baseUrl, forGateway);
    stops.push(() => other.close());
    assert.ok((await other.listTools()).tools.length > 0);
    const onV1 = await request('GET', `${system.baseUrl}/v1/messages/none-such`, undefined, bearer(forMcp));
    assert.equal(onV1.status, 401);
    assert.equal(onV1.body.error.code, 'token_wrong_audience');
  });

  it('oidc - the A2A face takes a token: the key card of its tenant, SendMessage as its subject', async () => {
    const token = await idp.serviceToken('svc-ops', system.baseUrl);
    const card = await request('GET', `${system.baseUrl}/.well-known/agent-card.json`, undefined, bearer(token));
    assert.equal(card.status, 200);
    assert.ok(
      card.body.skills.some((s: { id: string }) => s.id === `${agentId}/ops-only`),
      "the card lists the tenant's skills the token may reach",
    );
    const sent = await request(
      'POST',
      `${system.baseUrl}/a2a`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: {
            messageId: unique('oidc-a2a'),
            role: 'ROLE_USER',
            parts: [{ data: { n: 2 } }],
            metadata: { skill: `${agentId}/ops-only` },
          },
        },
      },
      { ...bearer(token), 'a2a-version': '1.0' },
    );
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.result.task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(sent.body));
  });

  it('oidc - A2A cards declare the OpenID Connect scheme beside the API key; the official client reads the extended card with a token', async () => {
    const publicCard = await request('GET', `${system.baseUrl}/.well-known/agent-card.json`, undefined, {
      authorization: '',
    });
    assert.deepEqual(publicCard.body.securitySchemes.reach_oidc, {
      openIdConnectSecurityScheme: {
        openIdConnectUrl: `${idp.issuer}/.well-known/openid-configuration`,
        description: 'An access token of the identity provider, sent as "Authorization: Bearer …" (docs/security.md)',
      },
    });
    assert.deepEqual(
      publicCard.body.securityRequirements.map((r: { schemes: object }) => Object.keys(r.schemes)),
      [['reach_api_key'], ['reach_oidc'], ['reach_oauth2_code'], ['reach_oauth2_client']],
      'any one is enough',
    );
    // OAuth2 flows from the provider's metadata: a user's (code + PKCE) and a service's.
    assert.deepEqual(publicCard.body.securitySchemes.reach_oauth2_code.oauth2SecurityScheme.flows, {
      authorizationCode: {
        authorizationUrl: `${idp.issuer}/auth`,
        tokenUrl: `${idp.issuer}/token`,
        scopes: { read: 'read agents, messages and tasks', send: 'send and cancel messages' },
        pkceRequired: true,
      },
    });
    assert.equal(
      publicCard.body.securitySchemes.reach_oauth2_client.oauth2SecurityScheme.flows.clientCredentials.tokenUrl,
      `${idp.issuer}/token`,
    );
    const v03 = await request(
      'GET',
      `${system.baseUrl}/v1/agents/${agentId}/agent-card.json?a2a_version=0.3`,
      undefined,
      bearer(await idp.serviceToken('svc-ops', system.baseUrl)),
    );
    assert.equal(v03.body.securitySchemes.reach_oidc.type, 'openIdConnect');
    assert.deepEqual(v03.body.security, [
      { reach_api_key: [] },
      { reach_oidc: ['read', 'send'] },
      { reach_oauth2_code: ['read', 'send'] },
      { reach_oauth2_client: ['read', 'send'] },
    ]);
    assert.equal(v03.body.securitySchemes.reach_oauth2_client.type, 'oauth2');

    const token = await idp.serviceToken('svc-plain', system.baseUrl);
    const fetchImpl: typeof fetch = (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${token}` },
      });
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
      }),
    );
    const client = await factory.createFromUrl(system.baseUrl);
    const card = await client.getAgentCard();
    const skills = card.skills.map((s) => s.id);
    assert.ok(
      skills.includes(`${agentId}/plain-only`) && !skills.includes(`${agentId}/ops-only`),
      `the extended card of this subject: ${skills.join(', ')}`,
    );
    assert.ok(Object.keys(card.securitySchemes).includes('reach_oidc'), 'the SDK keeps the scheme');
    const parsedFlow = card.securitySchemes.reach_oauth2_code?.scheme;
    assert.equal(parsedFlow?.$case, 'oauth2SecurityScheme', 'the SDK parses the OAuth2 scheme');
  });

  it('oidc - refused: another issuer, another audience, expired, alg none, an unknown key, no tenant, another tenant', async () => {
    const v1 = (token: string) => request('GET', `${system.baseUrl}/v1/agents`, undefined, bearer(token));
    const expectRefusal = async (name: string, token: string, status: number, code: string) => {
      const answer = await v1(token);
      assert.equal(answer.status, status, `${name}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.error.code, code, name);
      if (status === 401)
        assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/, name);
    };
    await expectRefusal(
      'another issuer',
      await otherIdp.serviceToken('svc-ops', system.baseUrl),
      401,
      'token_wrong_issuer',
    );
    await expectRefusal(
      'another audience',
      await idp.serviceToken('svc-ops', 'https://elsewhere.example'),
      401,
      'token_wrong_audience',
    );
    const signed = (claims: Record<string, unknown>, key = idp.signingKey.key, kid = idp.signingKey.kid) =>
      new SignJWT({ tenant: 'acme', scope: 'read send', ...claims })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'at+jwt' })
        .setIssuer(idp.issuer)
        .setAudience(system.baseUrl)
        .setSubject('svc-ops')
        .sign(key);
    const now = Math.floor(Date.now() / 1000);
    await expectRefusal(
      'expired (past the clock skew)',
      await signed({ iat: now - 600, exp: now - 300 }),
      401,
      'token_expired',
    );
    assert.equal((await v1(await signed({ exp: now + 60 }))).status, 200, 'the same key, unexpired: accepted');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ iss: idp.issuer, aud: system.baseUrl, sub: 'svc-ops', tenant: 'acme', scope: 'read', exp: now + 60 })).toString('base64url')}.`;
    await expectRefusal('alg none', unsigned, 401, 'token_invalid');
    const stranger = await generateKeyPair('RS256');
    await expectRefusal(
      'a key not in the JWKS',
      await signed({ exp: now + 60 }, stranger.privateKey, 'not-published'),
      401,
      'token_unknown_key',
    );
    await expectRefusal(
      'a forged signature under a published kid',
      await signed({ exp: now + 60 }, stranger.privateKey),
      401,
      'token_invalid',
    );
    await expectRefusal(
      'no tenant claim',
      await idp.serviceToken('svc-nowhere', system.baseUrl),
      403,
      'token_unmapped',
    );
    // Another tenant's token: acme's agent does not exist for it.
    const globex = await idp.serviceToken('svc-globex', system.baseUrl);
    const crossTenant = await send(globex, 'ops-only');
    assert.equal(crossTenant.status, 404, JSON.stringify(crossTenant.body));
    assert.equal(crossTenant.body.error.code, 'agent_not_found');
    assert.equal(
      (await request('GET', `${system.baseUrl}/v1/agents/${agentId}`, undefined, bearer(globex))).status,
      404,
    );
  });

  it('oidc - JWKS endpoint down: tokens under cached keys keep working; a new key id is a 401 saying the keys cannot be fetched', async () => {
    const token = await idp.serviceToken('svc-ops', system.baseUrl);
    const v1 = (t: string) => request('GET', `${system.baseUrl}/v1/agents`, undefined, bearer(t));
    assert.equal((await v1(token)).status, 200, 'the keys are fetched and cached');
    idp.jwksDown = true;
    try {
      assert.equal(
        (await v1(await idp.serviceToken('svc-ops', system.baseUrl))).status,
        200,
        'a new token under the cached key',
      );
      const rotated = await generateKeyPair('RS256');
      const now = Math.floor(Date.now() / 1000);
      const newKid = await new SignJWT({ tenant: 'acme', scope: 'read' })
        .setProtectedHeader({ alg: 'RS256', kid: 'rotated-1' })
        .setIssuer(idp.issuer)
        .setAudience(system.baseUrl)
        .setSubject('svc-ops')
        .setExpirationTime(now + 60)
        .sign(rotated.privateKey);
      const refused = await v1(newKid);
      assert.equal(refused.status, 401, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'token_keys_unavailable');
    } finally {
      idp.jwksDown = false;
    }
  });
});
