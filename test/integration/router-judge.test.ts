/**
 * The judge on an OpenAI-compatible chat endpoint: a tiny local HTTP server speaks the chat completions protocol
 * (answers with first-token log-probabilities, or plain text, slowly, or with an error), the real OpenAiJudge and
 * BoundedJudge call it, and a Router with a scripted head (fixed probabilities, so the verdict is known) acts on
 * the answer: a "no" overrules a narrow acceptance, a "yes" keeps it; where no card states a fence, a "yes" takes
 * back a narrow refusal; a timeout or an error leaves the head's verdict.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { HeadPrediction } from '../../router/head/head';
import { BoundedJudge } from '../../router/judge/bounded-judge';
import { NARROW_LOSS, NEAR_BORDER, UNCERTAIN_ABOVE } from '../../router/judge/decision';
import { OpenAiJudge } from '../../router/judge/openai-judge';
import type { MatcherFactory } from '../../router/matcher';
import { Router } from '../../router/router';
import { agentFromCard } from '../../bench/lib/routing-data';

interface ChatRequest {
  model: string;
  max_tokens?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  messages: { role: string; content: string }[];
}

/** How the fake endpoint answers a request whose text contains the key. */
type Behaviour = { yes: number } | { text: string } | { delayMs: number; yes: number } | { status: number };

let server: Server;
let baseURL: string;
const received: ChatRequest[] = [];
const behaviours: [string, Behaviour][] = [];

function completion(body: ChatRequest, content: string, topLogprobs?: { token: string; logprob: number }[]) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [
      {
        index: 0,
        finish_reason: 'length',
        message: { role: 'assistant', content },
        logprobs: topLogprobs
          ? { content: [{ token: content, logprob: topLogprobs[0]!.logprob, bytes: null, top_logprobs: topLogprobs }] }
          : null,
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 1, total_tokens: 101 },
  };
}

before(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as ChatRequest;
      received.push(body);
      const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
      const behaviour = behaviours.find(([key]) => user.includes(`Request: ${key}`))?.[1] ?? { yes: 0.5 };
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if ('status' in behaviour)
        return send(behaviour.status, { error: { message: 'judge endpoint failed', type: 'server_error' } });
      if ('text' in behaviour) return send(200, completion(body, behaviour.text));
      const yes = behaviour.yes;
      const answer = () =>
        send(
          200,
          completion(body, yes >= 0.5 ? 'Yes' : 'No', [
            { token: yes >= 0.5 ? 'Yes' : 'No', logprob: Math.log(Math.max(yes, 1 - yes)) },
            { token: yes >= 0.5 ? 'No' : 'Yes', logprob: Math.log(Math.min(yes, 1 - yes)) },
            { token: 'The', logprob: -9 },
          ]),
        );
      if ('delayMs' in behaviour) setTimeout(answer, behaviour.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const agents = [
  agentFromCard(
    {
      agent_id: 'weather',
      name: 'weather agent',
      description: 'weather',
      tags: [],
      capabilities: [
        {
          name: 'forecast',
          description: 'Weather forecast for the next days. Does not provide historical weather.',
          examples: ['rain tomorrow in Paris?'],
        },
      ],
    },
    't',
  ),
];

/** A head that gives the forecast capability `p` (accept threshold 0.3 below), read as a cross-lingual request or not. */
function scriptedHead(p: number, gap?: number, crossLingual = false): MatcherFactory {
  const prediction: HeadPrediction = {
    ranked: [{ key: 'weather/forecast', probability: p }],
    none: 1 - p,
    same: () => false,
    crossLingual: new Set(crossLingual ? ['weather/forecast'] : []),
    ...(gap === undefined
      ? {}
      : { gaps: new Map([['weather/forecast', { gap, fence: 'provide historical weather' }]]) }),
  };
  return async () => ({ provider: 'scripted+head', score: async () => new Map(), classify: async () => prediction });
}

function routerWith(p: number, judge: BoundedJudge, accept = 0.3, gap?: number, crossLingual = false) {
  return new Router({
    agents: async () => agents,
    matcherFactory: scriptedHead(p, gap, crossLingual),
    heartbeat: { intervalMs: 10_000, ttlMs: 3_600_000, graceWindows: 1 },
    openCircuits: async () => new Set(),
    stats: async () => new Map(),
    threshold: 0.5,
    head: { accept, escalate: accept, ambiguity: 0.8 },
    judge,
  });
}

const judgeAt = (timeoutMs = 5_000) =>
  new BoundedJudge(new OpenAiJudge({ model: 'fake-judge', baseURL, apiKey: 'test' }), { timeoutMs });
const route = (router: Router, intent: string) => router.route({ tenant: 't', caller: { tenant: 't' }, intent });

describe('judge on an OpenAI-compatible endpoint', () => {
  it('router judge llm - a confident "no" overrules the head\'s narrow acceptance; the request shows the card\'s border', async () => {
    behaviours.push(['What was the weather in Paris last July?', { yes: 0.03 }]);
    const decision = await route(routerWith(0.35, judgeAt()), 'What was the weather in Paris last July?');
    assert.equal(decision.kind, 'refused');
    assert.equal(decision.explanation.decided_by, 'judge');
    assert.equal(decision.explanation.head?.verdict, 'accept');
    assert.equal(decision.explanation.judge?.outcome, 'overruled');
    assert.equal(decision.explanation.judge?.p_yes, 0.03);
    assert.equal(decision.explanation.judge?.judge, 'llm:fake-judge');
    const sent = received.at(-1)!;
    assert.equal(sent.model, 'fake-judge');
    assert.equal(sent.max_tokens, 1);
    assert.equal(sent.logprobs, true);
    assert.match(sent.messages.find((m) => m.role === 'user')!.content, /It does NOT: provide historical weather/);
  });

  it('router judge llm - a confident "yes" keeps the acceptance', async () => {
    behaviours.push(['Will it rain in Paris tomorrow?', { yes: 0.97 }]);
    const kept = await route(routerWith(0.35, judgeAt()), 'Will it rain in Paris tomorrow?');
    assert.ok(
      kept.kind === 'routed' && kept.explanation.judge?.outcome === 'agreed' && kept.explanation.decided_by === 'head',
    );
  });

  it('router judge llm - where no card states a fence, a narrow loss is read: a confident "yes" routes it, a confident "no" keeps it refused', async () => {
    behaviours.push(['Umbrella needed in Paris on Friday?', { yes: 0.97 }]);
    const taken = await route(routerWith(0.25, judgeAt()), 'Umbrella needed in Paris on Friday?');
    assert.equal(taken.kind, 'routed');
    assert.equal(taken.explanation.head?.verdict, 'refuse');
    assert.equal(taken.explanation.decided_by, 'judge');
    assert.equal(taken.explanation.judge?.reason, 'narrow_loss');
    assert.equal(taken.explanation.judge?.outcome, 'overruled');
    behaviours.push(['Best umbrella shop in Paris?', { yes: 0.02 }]);
    const refused = await route(routerWith(0.25, judgeAt()), 'Best umbrella shop in Paris?');
    assert.equal(refused.kind, 'refused');
    assert.equal(refused.explanation.judge?.reason, 'narrow_loss');
    assert.equal(refused.explanation.judge?.outcome, 'agreed');
  });

  it("router judge llm - a refusal is not read near a card's fence, nor far under the threshold", async () => {
    behaviours.push(['Umbrella needed in Paris on Sunday?', { yes: 0.97 }]);
    const before = received.length;
    const fenced = await route(
      routerWith(0.25, judgeAt(), 0.3, -NEAR_BORDER - 0.01),
      'Umbrella needed in Paris on Sunday?',
    );
    assert.equal(fenced.kind, 'refused');
    assert.equal(fenced.explanation.judge, undefined);
    const far = await route(routerWith(0.3 * NARROW_LOSS - 0.01, judgeAt()), 'Umbrella needed in Paris on Sunday?');
    assert.equal(far.kind, 'refused');
    assert.equal(far.explanation.judge, undefined);
    assert.equal(received.length, before);
  });

  it('router judge llm - an endpoint without log-probabilities is read by its answer', async () => {
    behaviours.push(['Weather in Rome during the 1990 World Cup?', { text: 'no' }]);
    const decision = await route(routerWith(0.35, judgeAt()), 'Weather in Rome during the 1990 World Cup?');
    assert.equal(decision.kind, 'refused');
    assert.equal(decision.explanation.judge?.p_yes, 0);
  });

  it("router judge llm - a slow or failing endpoint leaves the head's verdict, said in the explanation", async () => {
    behaviours.push(['Snow in Oslo next week?', { delayMs: 500, yes: 0.01 }]);
    const slow = await route(routerWith(0.35, judgeAt(100)), 'Snow in Oslo next week?');
    assert.ok(
      slow.kind === 'routed' && slow.explanation.judge?.outcome === 'timeout' && slow.explanation.decided_by === 'head',
    );
    behaviours.push(['Storm in Lisbon tonight?', { status: 500 }]);
    const failing = await route(routerWith(0.35, judgeAt()), 'Storm in Lisbon tonight?');
    assert.equal(failing.kind, 'routed');
    assert.equal(failing.explanation.judge?.outcome, 'error');
  });

  it('router judge llm - a clear win on the head is not read at all', async () => {
    const before = received.length;
    const decision = await route(
      routerWith(0.9, judgeAt(), 0.9 / (UNCERTAIN_ABOVE + 1), -NEAR_BORDER - 0.01),
      'Will it be sunny in Nice tomorrow?',
    );
    assert.equal(decision.kind, 'routed');
    assert.equal(decision.explanation.judge, undefined);
    assert.equal(received.length, before);
  });

  it('router judge llm - a clear win near a fence on the card is read, and a confident "no" overrules it', async () => {
    behaviours.push(['How warm was Nice last August?', { yes: 0.01 }]);
    const decision = await route(
      routerWith(0.9, judgeAt(), 0.9 / (UNCERTAIN_ABOVE + 1), -NEAR_BORDER + 0.01),
      'How warm was Nice last August?',
    );
    assert.equal(decision.kind, 'refused');
    assert.equal(decision.explanation.judge?.reason, 'border');
    assert.equal(decision.explanation.judge?.outcome, 'overruled');
    assert.equal(decision.explanation.judge?.fence, 'provide historical weather');
    assert.equal(decision.explanation.judge?.gap, Math.round((-NEAR_BORDER + 0.01) * 1000) / 1000);
  });

  it('router judge llm - near a fence a lukewarm "no" refuses a same-language narrow win and keeps a cross-lingual one', async () => {
    behaviours.push(['Regen in Paris morgen?', { yes: 0.3 }]);
    const same = await route(routerWith(0.33, judgeAt(), 0.3, 0), 'Regen in Paris morgen?');
    assert.equal(same.kind, 'refused');
    assert.equal(same.explanation.judge?.outcome, 'overruled');
    const crossLingual = await route(routerWith(0.33, judgeAt(), 0.3, 0, true), 'Regen in Paris morgen?');
    assert.equal(crossLingual.kind, 'routed');
    assert.equal(crossLingual.explanation.head?.cross_lingual, true);
    assert.equal(crossLingual.explanation.judge?.outcome, 'agreed');
  });
});
