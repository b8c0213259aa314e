/**
 * The OpenAI-compatible embedder and LLM assistant against a small local server speaking the same HTTP API
 * (as Ollama or vLLM would): request shapes, ordering, structured output, and errors.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { AddressInfo } from 'node:net';
import { OpenAiEmbedder } from '../../router/embeddings/openai-embedder';
import { OpenAiLlm } from '../../router/llm';
import { agentFromCard } from '../../bench/lib/routing-data';
import { candidatesOf } from '../../router/candidates';

let server: Server;
let baseURL: string;
const requests: { path: string; body: any; auth?: string }[] = [];
let chatAnswer: unknown = { capability: null };

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      requests.push({ path: req.url!, body, auth: req.headers.authorization });
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v1/embeddings') {
        // Answered out of order on purpose: the client must sort by index.
        const data = (body.input as string[])
          .map((text, index) => ({ object: 'embedding', index, embedding: [text.length, 1, 0] }))
          .reverse();
        res.end(
          JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }),
        );
      } else if (req.url === '/v1/chat/completions') {
        res.end(
          JSON.stringify({
            id: 'c1',
            object: 'chat.completion',
            created: 0,
            model: body.model,
            choices: [
              { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(chatAnswer) } },
            ],
          }),
        );
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(() => server.close());

describe('openai-compatible adapters', () => {
  it('openai-compatible adapters - embeddings are batched, re-ordered by index and normalised', async () => {
    const embedder = new OpenAiEmbedder({ model: 'nomic-embed-text', baseURL, apiKey: 'k1', batch: 2 });
    const vectors = await embedder.embedDocuments(['a', 'bbb', 'cc']);
    const calls = requests.filter((r) => r.path === '/v1/embeddings');
    assert.equal(calls.length, 2);
    assert.deepEqual(calls[0]!.body.input, ['a', 'bbb']);
    assert.equal(calls[0]!.body.model, 'nomic-embed-text');
    assert.equal(calls[0]!.auth, 'Bearer k1');
    // [len, 1, 0] normalised: the first coordinate grows with the text length, in input order.
    assert.ok(vectors[0]![0]! < vectors[2]![0]! && vectors[2]![0]! < vectors[1]![0]!);
    assert.ok(Math.abs(Math.hypot(...vectors[1]!) - 1) < 1e-6);
    assert.equal(embedder.id, `openai:${baseURL}:nomic-embed-text`);
  });

  it('openai-compatible adapters - the LLM chooses among the shortlist with a JSON Schema answer, or none', async () => {
    const llm = new OpenAiLlm({ model: 'qwen2.5', baseURL });
    const shortlist = candidatesOf([
      agentFromCard(
        {
          agent_id: 'w',
          name: 'w',
          description: '',
          tags: [],
          capabilities: [{ name: 'forecast', description: 'Weather forecast' }],
        },
        't',
      ),
    ]);
    chatAnswer = { capability: 'w/forecast' };
    assert.equal(await llm.chooseCapability('umbrella?', shortlist), 'w/forecast');
    const call = requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!;
    assert.equal(call.body.response_format.type, 'json_schema');
    assert.deepEqual(call.body.response_format.json_schema.schema.properties.capability.enum, ['w/forecast', null]);
    assert.match(call.body.messages[1].content, /w\/forecast: forecast: Weather forecast/);
    chatAnswer = { capability: 'made/up' };
    assert.equal(await llm.chooseCapability('umbrella?', shortlist), null);
    chatAnswer = { order_id: '2024090112' };
    assert.deepEqual(
      await llm.extractParameters('order 2024090112', { type: 'object', properties: { order_id: { type: 'string' } } }),
      { order_id: '2024090112' },
    );
  });

  it('openai-compatible adapters - an unreachable endpoint is an error the router can catch', async () => {
    const embedder = new OpenAiEmbedder({ model: 'm', baseURL: 'http://127.0.0.1:9/v1', timeoutMs: 2_000 });
    await assert.rejects(embedder.embedQuery('x'));
  });
});
