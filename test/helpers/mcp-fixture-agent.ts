/**
 * The MCP conformance suite's fixtures as an agent of the gateway: the tools, prompts and resources the suite calls
 * by name (its reference "everything server", examples/servers/typescript in github.com/modelcontextprotocol/
 * conformance), each a capability of one SDK agent. Seen through the agent face (`/mcp?agent=<name>`), they are the
 * MCP server the suite expects, and every call goes through the gateway as a message: the agent's answers carry MCP
 * content (text, image, audio, embedded resources), the gateway reports progress and logs the message's life while
 * it waits, and a failing capability is a tool error.
 */
import type { AgentCard, Delivery } from '../../sdk';
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

/** How long the slow fixtures work: long enough for the gateway to report progress and log states meanwhile. */
export const FIXTURE_WORK_MS = 3_000;

const FIXTURES: Fixture[] = [
  { card: { name: 'test_simple_text', description: 'Tests simple text content response' }, answer: () => ({ content: [text('This is a simple text response for testing.')] }) },
  { card: { name: 'test_image_content', description: 'Tests image content response' }, answer: () => ({ content: [{ type: 'image', data: IMAGE, mimeType: 'image/png' }] }) },
  { card: { name: 'test_audio_content', description: 'Tests audio content response' }, answer: () => ({ content: [{ type: 'audio', data: AUDIO, mimeType: 'audio/wav' }] }) },
  {
    card: { name: 'test_embedded_resource', description: 'Tests embedded resource content response' },
    answer: () => ({ content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] }),
  },
  {
    card: { name: 'test_multiple_content_types', description: 'Tests response with multiple content types (text, image, resource)' },
    answer: () => ({
      content: [
        text('Multiple content types test:'),
        { type: 'image', data: IMAGE, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
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
    card: { name: 'test_prompt_with_arguments', description: 'A prompt with required arguments', tags: ['mcp:prompt'], parameters: strings('arg1', 'arg2') },
    answer: ({ params }) => ({ messages: [{ role: 'user', content: text(`Prompt with arguments: arg1='${params.arg1}', arg2='${params.arg2}'`) }] }),
  },
  {
    card: { name: 'test_prompt_with_embedded_resource', description: 'A prompt that includes an embedded resource', tags: ['mcp:prompt'], parameters: strings('resourceUri') },
    answer: ({ params }) => ({
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: params.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
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
    card: { name: 'static-text', description: 'A static text resource for testing', tags: ['mcp:resource=test://static-text'] },
    answer: () => ({ contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] }),
  },
  {
    card: { name: 'static-binary', description: 'A static binary resource (image) for testing', tags: ['mcp:resource=test://static-binary'] },
    answer: () => ({ contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: IMAGE }] }),
  },
  {
    card: { name: 'template', description: 'A resource template with parameter substitution', tags: ['mcp:resource=test://template/{id}/data'], parameters: strings('uri', 'id') },
    answer: ({ params }) => ({
      contents: [{ uri: params.uri, mimeType: 'application/json', text: JSON.stringify({ id: params.id, templateTest: true, data: `Data for ID: ${params.id}` }) }],
    }),
  },
];

/** Registers the fixture agent (a key with the `register` scope) and serves its capabilities. */
export async function startFixtureAgent(gateway: string, apiKey: string): Promise<{ agentId: string; stop(): Promise<void> }> {
  const byName = new Map(FIXTURES.map((fixture) => [fixture.card.name, fixture]));
  const card: AgentCard = { name: FIXTURE_AGENT, description: "The MCP conformance suite's fixtures", capabilities: FIXTURES.map((f) => f.card) };
  return sdkAgent(gateway, card, (delivery) => {
    const fixture = byName.get(delivery.capability);
    if (!fixture) throw new Error(`no fixture ${delivery.capability}`);
    return fixture.answer(delivery);
  }, { apiKey });
}
