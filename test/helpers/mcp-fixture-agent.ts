/**
 * The MCP conformance suite's fixtures as an agent of the gateway: the tools, prompts and resources the suite calls
 * by name (its reference "everything server", examples/servers/typescript in github.com/modelcontextprotocol/
 * conformance), each a capability of one SDK agent. Seen through the agent face (`/mcp?agent=<name>`), they are the
 * MCP server the suite expects, and every call goes through the gateway as a message: the agent's answers carry MCP
 * content (text, image, audio, embedded resources), the gateway reports progress and logs the message's life while
 * it waits, and a failing capability is a tool error.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { answersOf, InputRequiredError, type AgentCard, type Delivery, type ReachAgent } from '../../sdk';
import { sdkAgent } from './mcp';

export const FIXTURE_AGENT = 'mcp-conformance-fixture';

/** A 1×1 red PNG and a minimal WAV, as the suite's reference server sends them. */
const IMAGE = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const AUDIO = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value: string) => ({ type: 'text', text: value });
const strings = (...names: string[]) => ({
  type: 'object',
  required: names,
  properties: Object.fromEntries(names.map((name) => [name, { type: 'string', description: `The ${name}` }])),
});

type Fixture = { card: AgentCard['capabilities'][number]; answer(delivery: Delivery): unknown };

/** What the gateway passes of a 2026-07-28 round (api/mcp/input-rounds.ts), from a delivery's payload. */
interface Round {
  client_capabilities: Record<string, unknown>;
  input_responses?: Record<string, { content?: Record<string, unknown>; roots?: unknown[] } & Record<string, unknown>>;
  request_state?: string;
}

function roundOf(delivery: Delivery): Round {
  const mcp = (delivery.payload as { mcp?: Round } | null)?.mcp;
  return mcp ?? { client_capabilities: {} };
}

const elicit = (message: string, property: string, type = 'string') => ({
  method: 'elicitation/create',
  params: { message, requestedSchema: { type: 'object', properties: { [property]: { type } }, required: [property] } },
});
const sample = (prompt: string, maxTokens = 100) => ({
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: text(prompt) }], maxTokens },
});
const askFor = (inputRequests: Record<string, unknown>, requestState?: unknown) => ({
  resultType: 'input_required',
  inputRequests,
  ...(requestState === undefined ? {} : { requestState: JSON.stringify(requestState) }),
});
const answered = (round: Round, key: string, field: string): string | undefined => {
  const value = round.input_responses?.[key]?.content?.[field];
  return typeof value === 'string' ? value : undefined;
};
const stateOf = (round: Round): Record<string, unknown> | undefined =>
  round.request_state ? (JSON.parse(round.request_state) as Record<string, unknown>) : undefined;

/**
 * The fixture's own integrity check of its state, as the suite's reference server has: the gateway seals it too, so
 * a state changed on the way never reaches the agent (the suite's tampered-state scenario is answered by the gateway).
 */
const STATE_SECRET = `fixture-${randomUUID()}`;
const signed = (payload: object) => {
  const data = JSON.stringify(payload);
  return { data, hmac: createHmac('sha256', STATE_SECRET).update(data).digest('hex') };
};
const verified = (round: Round): Record<string, unknown> | undefined => {
  const state = stateOf(round) as { data?: string; hmac?: string } | undefined;
  if (!state?.data || state.hmac !== createHmac('sha256', STATE_SECRET).update(state.data).digest('hex'))
    return undefined;
  return JSON.parse(state.data) as Record<string, unknown>;
};

/** A wait that does not keep the process alive (a cancelled task's agent may still be sleeping when the test ends). */
const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** The suite's Tasks fixtures (2026-07-28, api/mcp/tasks.ts): `mcp:task=…` tags say which may or must be tasks. */
const TASK_FIXTURES: Fixture[] = [
  {
    card: {
      name: 'greet',
      description: 'Greets, at once (never a task)',
      tags: ['mcp:task=forbidden'],
      parameters: strings('name'),
    },
    answer: ({ params }) => ({ content: [text(`Hello, ${String(params.name)}!`)] }),
  },
  {
    card: {
      name: 'slow_compute',
      description: 'Works `seconds` seconds',
      parameters: { type: 'object', properties: { seconds: { type: 'number' }, label: { type: 'string' } } },
    },
    answer: async ({ params }) => {
      await idle(Number(params.seconds ?? 0) * 1000);
      return { content: [text(`computed ${String(params.label ?? '')} in ${String(params.seconds ?? 0)} s`)] };
    },
  },
  {
    card: {
      name: 'failing_job',
      description: 'Reports a tool error after a second (only as a task)',
      tags: ['mcp:task=required'],
    },
    answer: async () => {
      await idle(1_000);
      return { isError: true, content: [text('failing_job failed, as it always does')] };
    },
  },
  {
    // Called without its name: the gateway asks for it before the task exists (api/mcp/task-parameters.ts).
    card: {
      name: 'test_tool_with_task',
      description: 'Greets by name, only as a task',
      tags: ['mcp:task=required'],
      parameters: strings('name'),
    },
    answer: ({ params }) => ({ content: [text(`Hello, ${String(params.name)}! (from a task)`)] }),
  },
  {
    card: { name: 'protocol_error_job', description: 'Fails: the message ends failed, no result' },
    answer: () => {
      throw new Error('protocol_error_job fails on purpose');
    },
  },
  {
    // As a task: the message waits for the caller (the agent's input_required receipt), tasks/update replies.
    card: { name: 'confirm_delete', description: 'Deletes after the caller confirms' },
    answer: (d) => {
      if (d.turn === undefined || d.turn < 2)
        throw new InputRequiredError('Delete it?', {
          type: 'object',
          properties: { confirm: { type: 'boolean' } },
          required: ['confirm'],
        });
      return { content: [text(d.params.confirm === true ? 'deleted' : 'kept')] };
    },
  },
  {
    // As a task: two questions at once (two input requests), answered one tasks/update at a time or together.
    card: { name: 'multi_input', description: 'Asks for a name and a confirmation at once' },
    answer: (d) => {
      const answers = answersOf(d);
      if (!answers)
        throw InputRequiredError.several('Two things before I go on.', {
          name: { message: 'Your name?', schema: strings('name') },
          confirm: {
            message: 'Go ahead?',
            schema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
          },
        });
      const name = answers.name?.params?.name;
      const confirm = answers.confirm?.params?.confirm;
      return { content: [text(`name=${String(name)}, confirm=${String(confirm)}`)] };
    },
  },
];

/** What an elicitation came to, as the suite's reference server says it. */
const elicited = (response: Record<string, unknown> | undefined) =>
  `action=${String(response?.action)}, content=${JSON.stringify(response?.content ?? {})}`;
const elicitWith = (message: string, properties: Record<string, unknown>, required?: string[]) => ({
  method: 'elicitation/create',
  params: { message, requestedSchema: { type: 'object', properties, ...(required ? { required } : {}) } },
});

/**
 * The suite's 2025-11-25 fixtures that ask the client in the middle of a call (sampling, elicitation): the agent asks
 * with an input_required result, which the gateway plays to a 2025-11-25 session as requests on the call's stream
 * (api/mcp/session-rounds.ts), and answers with what it got.
 */
const SESSION_FIXTURES: Fixture[] = [
  {
    card: {
      name: 'test_sampling',
      description: 'Asks the client for a sampling of `prompt`',
      parameters: strings('prompt'),
    },
    answer: (d) => {
      const sampled = roundOf(d).input_responses?.['sampling'];
      if (!sampled) return askFor({ sampling: sample(String(d.params.prompt ?? '')) });
      const said = (sampled.content as { text?: unknown } | undefined)?.text;
      return { content: [text(`LLM response: ${typeof said === 'string' ? said : 'no response'}`)] };
    },
  },
  {
    card: {
      name: 'test_elicitation',
      description: "Asks the client's user for a name and an email, with `message`",
      parameters: strings('message'),
    },
    answer: (d) => {
      const response = roundOf(d).input_responses?.['user'];
      if (response) return { content: [text(`User response: ${elicited(response)}`)] };
      return askFor({
        user: elicitWith(
          String(d.params.message ?? ''),
          {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          ['username', 'email'],
        ),
      });
    },
  },
  {
    card: {
      name: 'test_elicitation_sep1034_defaults',
      description: 'Asks with a default for every primitive type (SEP-1034)',
    },
    answer: (d) => {
      const response = roundOf(d).input_responses?.['defaults'];
      if (response) return { content: [text(`Elicitation completed: ${elicited(response)}`)] };
      return askFor({
        defaults: elicitWith('Please review and update the form fields with defaults', {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: {
            type: 'string',
            description: 'User status',
            enum: ['active', 'inactive', 'pending'],
            default: 'active',
          },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        }),
      });
    },
  },
  {
    card: { name: 'test_elicitation_sep1330_enums', description: 'Asks with every kind of enum (SEP-1330)' },
    answer: (d) => {
      const response = roundOf(d).input_responses?.['enums'];
      if (response) return { content: [text(`Elicitation completed: ${elicited(response)}`)] };
      return askFor({
        enums: elicitWith('Please select options from the enum fields', {
          untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            description: 'Select one option with titles',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            description: 'Select one option (legacy)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Select multiple options',
            minItems: 1,
            maxItems: 3,
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Select multiple options with titles',
            minItems: 1,
            maxItems: 3,
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        }),
      });
    },
  },
];

/** The suite's multi-round-trip fixtures (2026-07-28): each asks the client for input, then answers with what it got. */
const INPUT_FIXTURES: Fixture[] = [
  {
    card: { name: 'test_missing_capability', description: 'Needs sampling from the client' },
    answer: (d) =>
      roundOf(d).input_responses?.['sampling']
        ? { content: [text('Success')] }
        : askFor({ sampling: sample('Say something') }),
  },
  {
    card: { name: 'test_streaming_elicitation', description: 'Answers on its response stream' },
    answer: () => ({ content: [text('Streaming complete')] }),
  },
  {
    card: { name: 'test_logging_tool', description: 'Logs nothing unless asked' },
    answer: () => ({ content: [text('Logging evaluated')] }),
  },
  {
    card: { name: 'test_input_required_result_elicitation', description: 'Asks the client for a name' },
    answer: (d) => {
      const name = answered(roundOf(d), 'user_name', 'name');
      return name !== undefined || roundOf(d).input_responses?.['user_name']
        ? { content: [text(`Hello, ${name ?? 'unknown'}!`)] }
        : askFor({ user_name: elicit('What is your name?', 'name') });
    },
  },
  {
    card: { name: 'test_input_required_result_sampling', description: 'Asks the client for a sampling' },
    answer: (d) => {
      const sampled = roundOf(d).input_responses?.['sample_request'];
      if (!sampled) return askFor({ sample_request: sample('What is the capital of France?') });
      const said = (sampled.content as { text?: unknown } | undefined)?.text;
      return { content: [text(`Sampling result: ${typeof said === 'string' ? said : 'no response'}`)] };
    },
  },
  {
    card: { name: 'test_input_required_result_list_roots', description: 'Asks the client for its roots' },
    answer: (d) => {
      const roots = roundOf(d).input_responses?.['roots_request'];
      return roots
        ? { content: [text(`Found ${Array.isArray(roots.roots) ? roots.roots.length : 0} root(s)`)] }
        : askFor({ roots_request: { method: 'roots/list', params: {} } });
    },
  },
  {
    card: {
      name: 'test_input_required_result_request_state',
      description: 'Asks for a confirmation, keeping its state in the client',
    },
    answer: (d) => {
      const round = roundOf(d);
      const ok = round.input_responses?.['confirm']?.content?.ok;
      if (stateOf(round)?.kind === 'request-state' && ok === true)
        return { content: [text('state-ok: requestState validated')] };
      return askFor(
        { confirm: elicit('Please confirm', 'ok', 'boolean') },
        { kind: 'request-state', nonce: randomUUID() },
      );
    },
  },
  {
    card: {
      name: 'test_input_required_result_multiple_inputs',
      description: 'Asks for a name, a greeting and the roots at once',
    },
    answer: (d) => {
      const round = roundOf(d);
      const responses = round.input_responses ?? {};
      if (
        stateOf(round)?.kind === 'multiple-inputs' &&
        responses['user_name'] &&
        responses['greeting'] &&
        responses['client_roots']
      ) {
        const greeting = (responses['greeting'].content as { text?: unknown } | undefined)?.text;
        const roots = responses['client_roots'].roots;
        return {
          content: [
            text(
              `Name: ${answered(round, 'user_name', 'name') ?? 'unknown'}; Greeting: ${typeof greeting === 'string' ? greeting : 'Hello there!'}; Roots: ${Array.isArray(roots) ? roots.length : 0}`,
            ),
          ],
        };
      }
      return askFor(
        {
          user_name: elicit('What is your name?', 'name'),
          greeting: sample('Generate a greeting', 50),
          client_roots: { method: 'roots/list', params: {} },
        },
        { kind: 'multiple-inputs', nonce: randomUUID() },
      );
    },
  },
  {
    card: { name: 'test_input_required_result_multi_round', description: 'Asks twice, one question a round' },
    answer: (d) => {
      const round = roundOf(d);
      const state = stateOf(round);
      if (state?.round === 1 && round.input_responses?.['step1']) {
        return askFor(
          { step2: elicit('Step 2: What is your favorite color?', 'color') },
          { round: 2, name: answered(round, 'step1', 'name') ?? 'unknown', nonce: randomUUID() },
        );
      }
      if (state?.round === 2 && round.input_responses?.['step2']) {
        return {
          content: [
            text(
              `Multi-round complete for ${typeof state.name === 'string' ? state.name : 'friend'} who likes ${answered(round, 'step2', 'color') ?? 'unknown'}`,
            ),
          ],
        };
      }
      return askFor({ step1: elicit('Step 1: What is your name?', 'name') }, { round: 1, nonce: randomUUID() });
    },
  },
  {
    card: {
      name: 'test_input_required_result_tampered_state',
      description: 'Asks for a confirmation with a signed state',
    },
    answer: (d) => {
      const round = roundOf(d);
      if (round.request_state !== undefined) {
        const state = verified(round);
        if (!state) throw new Error('requestState integrity check failed');
        if (state.kind === 'tamper-test' && round.input_responses?.['confirm'])
          return { content: [text('integrity-ok: state verified')] };
      }
      return askFor(
        { confirm: elicit('Please confirm', 'ok', 'boolean') },
        signed({ kind: 'tamper-test', nonce: randomUUID() }),
      );
    },
  },
  {
    card: { name: 'test_input_required_result_capabilities', description: 'Asks only for what the client declared' },
    answer: (d) => {
      const round = roundOf(d);
      if (round.input_responses && Object.keys(round.input_responses).length > 0) {
        return { content: [text(`capabilities-ok: received ${Object.keys(round.input_responses).join(',')}`)] };
      }
      const inputRequests: Record<string, unknown> = {
        ...(round.client_capabilities.elicitation ? { elicit_input: elicit('Elicitation input', 'value') } : {}),
        ...(round.client_capabilities.sampling ? { sample_input: sample('Sample request', 50) } : {}),
      };
      if (Object.keys(inputRequests).length === 0) return { content: [text('No supported capabilities declared')] };
      return askFor(inputRequests, signed({ kind: 'capabilities-test', nonce: randomUUID() }));
    },
  },
  {
    card: {
      name: 'test_input_required_result_prompt',
      description: 'MRTR: prompt that requires elicitation input',
      tags: ['mcp:prompt'],
    },
    answer: (d) => {
      const context = answered(roundOf(d), 'user_context', 'context');
      if (context !== undefined)
        return { messages: [{ role: 'user', content: text(`Prompt with context: ${context}`) }] };
      return askFor({ user_context: elicit('What context should the prompt use?', 'context') });
    },
  },
];

/** How long the slow fixtures work: long enough for the gateway to report progress and log states meanwhile. */
export const FIXTURE_WORK_MS = 3_000;

const FIXTURES: Fixture[] = [
  {
    card: { name: 'test_simple_text', description: 'Tests simple text content response' },
    answer: () => ({ content: [text('This is a simple text response for testing.')] }),
  },
  {
    card: { name: 'test_image_content', description: 'Tests image content response' },
    answer: () => ({ content: [{ type: 'image', data: IMAGE, mimeType: 'image/png' }] }),
  },
  {
    card: { name: 'test_audio_content', description: 'Tests audio content response' },
    answer: () => ({ content: [{ type: 'audio', data: AUDIO, mimeType: 'audio/wav' }] }),
  },
  {
    card: { name: 'test_embedded_resource', description: 'Tests embedded resource content response' },
    answer: () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  },
  {
    card: {
      name: 'test_multiple_content_types',
      description: 'Tests response with multiple content types (text, image, resource)',
    },
    answer: () => ({
      content: [
        text('Multiple content types test:'),
        { type: 'image', data: IMAGE, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  },
  {
    card: { name: 'test_tool_with_logging', description: 'Works a while; the gateway logs the message as it goes' },
    answer: async () => {
      await sleep(FIXTURE_WORK_MS);
      return { content: [text('Tool with logging executed successfully')] };
    },
  },
  {
    card: { name: 'test_tool_with_progress', description: 'Works a while; the gateway reports progress as it goes' },
    answer: async () => {
      await sleep(FIXTURE_WORK_MS);
      return { content: [text('Tool with progress executed successfully')] };
    },
  },
  {
    card: { name: 'test_error_handling', description: 'Tests error response handling' },
    answer: () => {
      throw new Error('This tool intentionally returns an error for testing');
    },
  },
  {
    card: { name: 'test_simple_prompt', description: 'A simple prompt without arguments', tags: ['mcp:prompt'] },
    answer: () => ({ messages: [{ role: 'user', content: text('This is a simple prompt for testing.') }] }),
  },
  {
    card: {
      name: 'test_prompt_with_arguments',
      description: 'A prompt with required arguments',
      tags: ['mcp:prompt'],
      parameters: strings('arg1', 'arg2'),
    },
    answer: ({ params }) => ({
      messages: [
        { role: 'user', content: text(`Prompt with arguments: arg1='${params.arg1}', arg2='${params.arg2}'`) },
      ],
    }),
  },
  {
    card: {
      name: 'test_prompt_with_embedded_resource',
      description: 'A prompt that includes an embedded resource',
      tags: ['mcp:prompt'],
      parameters: strings('resourceUri'),
    },
    answer: ({ params }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: params.resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        { role: 'user', content: text('Please process the embedded resource above.') },
      ],
    }),
  },
  {
    card: { name: 'test_prompt_with_image', description: 'A prompt that includes image content', tags: ['mcp:prompt'] },
    answer: () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: IMAGE, mimeType: 'image/png' } },
        { role: 'user', content: text('Please analyze the image above.') },
      ],
    }),
  },
  {
    card: {
      name: 'static-text',
      description: 'A static text resource for testing',
      tags: ['mcp:resource=test://static-text'],
    },
    answer: () => ({
      contents: [
        { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
      ],
    }),
  },
  {
    card: {
      name: 'static-binary',
      description: 'A static binary resource (image) for testing',
      tags: ['mcp:resource=test://static-binary'],
    },
    answer: () => ({ contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: IMAGE }] }),
  },
  {
    card: {
      name: 'template',
      description: 'A resource template with parameter substitution',
      tags: ['mcp:resource=test://template/{id}/data'],
      parameters: strings('uri', 'id'),
    },
    answer: ({ params }) => ({
      contents: [
        {
          uri: params.uri,
          mimeType: 'application/json',
          text: JSON.stringify({ id: params.id, templateTest: true, data: `Data for ID: ${params.id}` }),
        },
      ],
    }),
  },
];

type Capability = AgentCard['capabilities'][number];

/**
 * The suite's list-change triggers (2026-07-28, `server-stateless`): each adds its capability to the fixture agent's
 * card, or takes it away, and registers the card again (a new revision); the gateway tells the open
 * `subscriptions/listen` streams that the agent face's tools or prompts changed.
 */
function triggerFixtures(recard: (toggled: Capability) => Promise<void>): Fixture[] {
  const dynamicTool: Fixture = {
    card: { name: 'test_dynamic_tool', description: 'Comes and goes with test_trigger_tool_change' },
    answer: () => ({ content: [text('Dynamic tool')] }),
  };
  const dynamicPrompt: Fixture = {
    card: {
      name: 'test_dynamic_prompt',
      description: 'Comes and goes with test_trigger_prompt_change',
      tags: ['mcp:prompt'],
    },
    answer: () => ({ messages: [{ role: 'user', content: text('Dynamic prompt') }] }),
  };
  const trigger = (name: string, toggled: Fixture, said: string): Fixture => ({
    card: { name, description: `Adds or removes ${toggled.card.name}` },
    answer: async () => {
      await recard(toggled.card);
      return { content: [text(said)] };
    },
  });
  return [
    trigger('test_trigger_tool_change', dynamicTool, 'Tool list changed'),
    trigger('test_trigger_prompt_change', dynamicPrompt, 'Prompt list changed'),
    // Not on the card at first (a trigger adds them), answered when they are.
    dynamicTool,
    dynamicPrompt,
  ];
}

/** Registers the fixture agent (a key with the `register` scope) and serves its capabilities. */
export async function startFixtureAgent(
  gateway: string,
  apiKey: string,
): Promise<{ agentId: string; stop(): Promise<void> }> {
  let agent: ReachAgent | undefined;
  const card: AgentCard = {
    name: FIXTURE_AGENT,
    description: "The MCP conformance suite's fixtures",
    capabilities: [],
  };
  // The agent registers `card` itself (sdk/agent.ts), so a trigger changes it in place and registers again.
  const recard = async (toggled: Capability) => {
    const present = card.capabilities.some((c) => c.name === toggled.name);
    card.capabilities = present
      ? card.capabilities.filter((c) => c.name !== toggled.name)
      : [...card.capabilities, toggled];
    await agent!.register();
  };
  const [trigger, prompt, dynamicTool, dynamicPrompt] = triggerFixtures(recard);
  const listed = [...FIXTURES, ...INPUT_FIXTURES, ...SESSION_FIXTURES, ...TASK_FIXTURES, trigger!, prompt!];
  card.capabilities = listed.map((f) => f.card);
  const byName = new Map([...listed, dynamicTool!, dynamicPrompt!].map((fixture) => [fixture.card.name, fixture]));
  const started = await sdkAgent(
    gateway,
    card,
    (delivery) => {
      const fixture = byName.get(delivery.capability);
      if (!fixture) throw new Error(`no fixture ${delivery.capability}`);
      return fixture.answer(delivery);
    },
    { apiKey },
  );
  agent = started.agent;
  // Beats like any agent: the suite runs longer than an instance stays online without a heartbeat (HEARTBEAT_TTL_MS).
  agent.startHeartbeats();
  return { agentId: started.agentId, stop: () => agent!.drain(0).then(started.stop) };
}
