/**
 * `reach` — the operator's command line, over the public HTTP API.
 *   npm run reach -- agents ls [--tag T] [--state S] [--q TEXT]
 *   npm run reach -- agents show <agent_id>
 *   npm run reach -- send <agent_id> <capability> [--payload JSON] [--intent TEXT] [--id MESSAGE_ID] [--no-wait]
 *   npm run reach -- status <message_id>
 *   npm run reach -- trace <trace_id>
 *   npm run reach -- redrive <message_id>
 *   npm run reach -- keys ls | keys new --scope read --scope send [--name N] | keys revoke <key_id>
 * Human output by default, `--json` for scripts. The api is `--api URL`, else $REACH_API, else http://127.0.0.1:3000;
 * the API key is `--key rk_…`, else $REACH_API_KEY.
 */
import { Command } from 'commander';

interface Context {
  api: string;
  json: boolean;
  key?: string;
}

class CliError extends Error {}

async function call(ctx: Context, method: string, path: string, body?: unknown): Promise<any> {
  let response: Response;
  try {
    response = await fetch(`${ctx.api}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(ctx.key ? { authorization: `Bearer ${ctx.key}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new CliError(`cannot reach the api at ${ctx.api}: ${(error as Error).message}`);
  }
  const text = await response.text();
  if (response.status === 204) return undefined;
  const parsed = text ? (JSON.parse(text) as any) : undefined;
  if (response.status >= 400)
    throw new CliError(`${response.status} ${parsed?.error?.code}: ${parsed?.error?.message}`);
  return parsed;
}

function print(ctx: Context, value: unknown, human: () => string): void {
  console.log(ctx.json ? JSON.stringify(value, null, 2) : human());
}

const humanStatus = (s: any) =>
  [
    `${s.message_id}  ${s.state}${s.reason ? ` (${s.reason.code}: ${s.reason.message})` : ''}`,
    `  trace ${s.trace_id}  agent ${s.agent?.agent_id ?? s.target.agent_id}/${s.target.capability}`,
    ...s.attempts.map(
      (a: any) =>
        `  attempt ${a.attempt}: ${a.outcome}${a.http_status ? ` ${a.http_status}` : ''} ${a.latency_ms} ms${a.instance_id ? ` @${a.instance_id}` : ''}${a.error ? ` — ${a.error}` : ''}`,
    ),
    ...(s.result !== undefined ? [`  result ${JSON.stringify(s.result)}`] : []),
  ].join('\n');

const TERMINAL = new Set(['processed', 'failed', 'rejected', 'cancelled', 'expired']);

/** The catalogue: `agents ls`, `agents show`. */
function addAgentCommands(program: Command, ctx: () => Context): void {
  const agents = program.command('agents').description('the catalogue');
  agents
    .command('ls')
    .option('--tag <tag>')
    .option('--capability <name>')
    .option('--state <state>', 'online, offline, healthy, busy or draining')
    .option('--q <text>', 'free text')
    .action(async (options: Record<string, string>) => {
      const query = new URLSearchParams(Object.entries(options).filter(([, v]) => v !== undefined));
      const page = await call(ctx(), 'GET', `/v1/agents?${query}`);
      print(
        ctx(),
        page.items,
        () =>
          page.items
            .map(
              (a: any) =>
                `${a.agent_id}  ${a.online ? 'online ' : 'offline'}  ${a.name}  [${a.capabilities.map((c: any) => c.name).join(', ')}]`,
            )
            .join('\n') || 'no agents',
      );
    });
  agents.command('show <agent_id>').action(async (agentId: string) => {
    const a = await call(ctx(), 'GET', `/v1/agents/${agentId}`);
    print(ctx(), a, () =>
      [
        `${a.agent_id}  ${a.name} v${a.version} (revision ${a.revision})  ${a.online ? 'online' : 'offline'}`,
        ...a.capabilities.map((c: any) => `  capability ${c.name}: ${c.description}`),
        ...a.instances.map(
          (i: any) =>
            `  instance ${i.instance_id} ${i.transport} ${i.endpoint ?? ''} ${i.state} ${i.online ? 'online' : 'offline'} in_flight=${i.load.in_flight}`,
        ),
      ].join('\n'),
    );
  });
}

/** `send`: a message to a named capability, by default waiting until it ends. */
function addSendCommand(program: Command, ctx: () => Context): void {
  program
    .command('send <agent_id> <capability>')
    .option('--payload <json>', 'payload as JSON', '{}')
    .option('--intent <text>')
    .option('--id <message_id>', 'message id (the idempotency key)')
    .option('--no-wait', 'return once accepted')
    .action(
      async (
        agentId: string,
        capability: string,
        options: { payload: string; intent?: string; id?: string; wait: boolean },
      ) => {
        let payload: unknown;
        try {
          payload = JSON.parse(options.payload);
        } catch {
          throw new CliError('--payload is not valid JSON');
        }
        const body = {
          target: { agent_id: agentId, capability },
          payload,
          ...(options.intent ? { intent: options.intent } : {}),
          ...(options.id ? { message_id: options.id } : {}),
        };
        let status = await call(ctx(), 'POST', '/v1/messages', body);
        if (!ctx().json) console.error(`${status.message_id}: ${status.state}`);
        while (options.wait && !TERMINAL.has(status.state)) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          const next = await call(ctx(), 'GET', `/v1/messages/${status.message_id}`);
          if (!ctx().json && next.state !== status.state) console.error(`${status.message_id}: ${next.state}`);
          status = next;
        }
        print(ctx(), status, () => humanStatus(status));
        if (['failed', 'rejected', 'expired', 'cancelled'].includes(status.state)) process.exitCode = 1;
      },
    );
}

/** `status` of a message, `trace` of a chain of messages. */
function addTrackingCommands(program: Command, ctx: () => Context): void {
  program.command('status <message_id>').action(async (messageId: string) => {
    const status = await call(ctx(), 'GET', `/v1/messages/${messageId}`);
    print(ctx(), status, () => humanStatus(status));
  });

  program.command('trace <trace_id>').action(async (traceId: string) => {
    const trace = await call(ctx(), 'GET', `/v1/traces/${traceId}`);
    print(ctx(), trace, () =>
      [
        `trace ${trace.trace_id}`,
        ...trace.messages.map(
          (m: any) =>
            `  ${m.parent_message_id ? '└─ ' : ''}${m.message_id}  ${m.state}  ${m.agent_id}/${m.capability}  ${m.duration_ms ?? '…'} ms`,
        ),
      ].join('\n'),
    );
  });
}

/** `route`: the router's dry run. */
function addRouteCommand(program: Command, ctx: () => Context): void {
  program
    .command('route <intent...>')
    .description('dry run of the router: which capability an intent would reach, and why')
    .action(async (words: string[]) => {
      const decision = await call(ctx(), 'POST', '/v1/route', { intent: words.join(' ') });
      print(ctx(), decision, () => {
        const head =
          decision.kind === 'refused'
            ? `refused (${decision.code}): ${decision.message}`
            : `${decision.target.agent_id}/${decision.target.capability} on ${decision.target.instance_id}, by ${decision.explanation.decided_by}` +
              (decision.kind === 'input_required' ? `; missing ${decision.missing.join(', ')}` : '') +
              `; params ${JSON.stringify(decision.params)}`;
        const rows = decision.explanation.candidates.map(
          (c: any) =>
            `  ${c.key}  match ${c.match}${c.rules.length ? `  rules ${c.rules.join(',')}` : ''}${c.eligible ? '' : `  (${c.reason})`}`,
        );
        return [
          head,
          `candidates (threshold ${decision.explanation.threshold}, ${decision.explanation.provider}):`,
          ...rows,
        ].join('\n');
      });
    });
}

/** `redrive` of a message that ended badly. */
function addRedriveCommand(program: Command, ctx: () => Context): void {
  program.command('redrive <message_id>').action(async (messageId: string) => {
    const status = await call(ctx(), 'POST', `/v1/messages/${messageId}/redrive`);
    print(
      ctx(),
      status,
      () => `${messageId}: redriven (${status.redrives.length} redrive${status.redrives.length === 1 ? '' : 's'})`,
    );
  });
}

/** The tenant's API keys: `keys ls`, `keys new`, `keys revoke`. */
function addKeyCommands(program: Command, ctx: () => Context): void {
  const keys = program.command('keys').description("the tenant's API keys (admin scope)");
  keys.command('ls').action(async () => {
    const list = await call(ctx(), 'GET', '/v1/keys');
    print(
      ctx(),
      list.items,
      () =>
        list.items
          .map((k: any) => `${k.key_id}  ${k.scopes.join(',')}  ${k.name}${k.revoked_at ? '  (revoked)' : ''}`)
          .join('\n') || 'no keys',
    );
  });
  keys
    .command('new')
    .requiredOption(
      '--scope <scope>',
      'read, send, register, admin or a custom scope (repeat for several)',
      (s: string, all: string[] = []) => [...all, s],
    )
    .option('--name <name>')
    .action(async (options: { scope: string[]; name?: string }) => {
      const created = await call(ctx(), 'POST', '/v1/keys', {
        scopes: options.scope,
        ...(options.name ? { name: options.name } : {}),
      });
      print(
        ctx(),
        created,
        () =>
          `${created.key}\n  key id ${created.key_id}, tenant ${created.tenant}, scopes ${created.scopes.join(',')} — shown once`,
      );
    });
  keys.command('revoke <key_id>').action(async (keyId: string) => {
    await call(ctx(), 'DELETE', `/v1/keys/${keyId}`);
    print(ctx(), { key_id: keyId, revoked: true }, () => `${keyId}: revoked`);
  });
}

export function buildProgram(): Command {
  const program = new Command('reach')
    .description('Operate Agent-Reach from the command line')
    .option('--api <url>', 'api base URL', process.env.REACH_API ?? 'http://127.0.0.1:3000')
    .option('--key <rk_…>', 'API key (default $REACH_API_KEY)', process.env.REACH_API_KEY)
    .option('--json', 'machine-readable output', false)
    .showHelpAfterError();
  const ctx = (): Context => ({
    api: program.opts().api.replace(/\/$/, ''),
    json: program.opts().json,
    key: program.opts().key,
  });

  addAgentCommands(program, ctx);
  addSendCommand(program, ctx);
  addTrackingCommands(program, ctx);
  addRouteCommand(program, ctx);
  addRedriveCommand(program, ctx);
  addKeyCommands(program, ctx);
  return program;
}

if (require.main === module) {
  buildProgram()
    .parseAsync(process.argv)
    .catch((error: unknown) => {
      console.error(error instanceof CliError ? `reach: ${error.message}` : error);
      process.exitCode = 2;
    });
}
