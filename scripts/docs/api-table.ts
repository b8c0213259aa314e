/**
 * The API reference table, from the OpenAPI document the api serves (`openApiDocument` in api/openapi.ts): one row
 * per operation with who may call it, what it does, its query and body fields, and its answers.
 */
import { openApiDocument } from '../../api/openapi';
import { cell } from './markers';

interface JsonSchema {
  properties?: Record<string, unknown>;
  required?: string[];
}

interface OperationDoc {
  summary: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters: { name: string; in: string }[];
  requestBody?: { content: { 'application/json': { schema: JsonSchema } } };
  responses: Record<string, { description: string; 'x-common'?: boolean }>;
}

/** `GET /v1/agents/:agent_id?limit=`: the path as Express writes it, with the query's fields. */
function route(method: string, path: string, op: OperationDoc): string {
  const query = op.parameters.filter((p) => p.in === 'query').map((p) => `${p.name}=`);
  return `\`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}${query.length ? `?${query.join('&')}` : ''}\``;
}

function who(op: OperationDoc): string {
  const ways = (op.security ?? []).flatMap((s) => [
    ...(s.apiKey ? s.apiKey.map((scope) => `key: *${scope}*`) : []),
    ...(s.agentSecret ? ['🔑 agent secret'] : []),
  ]);
  return ways.length ? ways.join(', or ') : 'public';
}

/** Top-level fields of the JSON body, `?` marking the optional ones. */
function bodyFields(op: OperationDoc): string {
  const schema = op.requestBody?.content['application/json'].schema;
  if (!schema?.properties) return '';
  const required = new Set(schema.required ?? []);
  const fields = Object.keys(schema.properties).map((name) => `\`${name}${required.has(name) ? '' : '?'}\``);
  return ` Body: ${fields.join(', ')}.`;
}

/** The OpenAPI description without the sentence on authentication, which the "Who" column says. */
function details(op: OperationDoc): string {
  const text = (op.description ?? '').replace(
    / ?Needs an API key with the `[a-z]+` scope(, or the agent secret)?\./,
    '',
  );
  return text ? ` ${text}` : '';
}

function answers(op: OperationDoc): string {
  return Object.entries(op.responses)
    .filter(([, response]) => !response['x-common'])
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, response]) => `${status} ${response.description}`)
    .join('; ');
}

export function apiTable(): string {
  const paths = openApiDocument('http://127.0.0.1:3000').paths as Record<string, Record<string, OperationDoc>>;
  const rows = Object.entries(paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(
      ([method, op]) =>
        `| ${route(method, path, op)} | ${who(op)} | ${cell(`${op.summary}.${details(op)}${bodyFields(op)}`)} | ${cell(answers(op))} |`,
    ),
  );
  return ['| Method and path | Who | Does | Answers |', '|---|---|---|---|', ...rows].join('\n');
}
