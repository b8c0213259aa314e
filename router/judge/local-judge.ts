/**
 * The local judge: a GGUF chat model run on the CPU by node-llama-cpp (installed on demand, judge-files.ts). The
 * native library evaluates off the JavaScript thread; one judgement at a time (the caller, bounded-judge.ts, queues
 * them, and so does this class). The answer is read, not generated: P(yes) against P(no) as the first token of the
 * assistant's turn.
 *
 * The prompt is system → card → request → question, so everything before the request is the same for every
 * judgement of a capability. Sequences of one context keep such card prefixes evaluated (prefix-pool.ts,
 * prefix-slots.ts): a judgement of a held card evaluates only the request and the question (~20–80 tokens
 * instead of ~200–330 with up to ten examples shown). Bounded: MIN_SLOTS to MAX_SLOTS sequences of SLOT_TOKENS
 * tokens, as many as the newest catalogue has cards (warm-up-plan.ts), whose prefixes are evaluated before anyone
 * asks (warm-up.ts); a prompt longer than a slot is read on one long sequence, made when first needed; a prompt
 * longer than that is not read (the judge abstains).
 */
import { basename } from 'node:path';
import { loadLlamaRuntime } from './judge-files';
import { PrefixPool, type LlamaSequence, type PoolRead } from './prefix-pool';
import { PriorityLine } from './priority-line';
import { CatalogueWarmUp, type JudgeCatalogue, type WarmUpStatus } from './warm-up';
import { MAX_SLOTS, MIN_SLOTS, slotsFor } from './warm-up-plan';
import { commonPrefixLength, type Token } from './prefix-slots';
import { FILL_SYSTEM_PROMPT, fillUserPrompt, type FillRequest } from '../params/fill-prompt';
import { filledFields, fillSchema, type GrammarSchema } from '../params/fill-schema';
import {
  answerWord,
  questionParts,
  SYSTEM_PROMPT,
  yesProbability,
  type JudgeProvider,
  type JudgeQuestion,
} from './question';
import type { CapabilityCandidate } from '../candidates';

/** The part of node-llama-cpp's API used here (the package is not a dependency of the project, so not typed by it). */
interface LlamaRuntime {
  getLlama(options: { gpu: false; build: 'never'; logLevel: 'error'; maxThreads: number }): Promise<Llama>;
  resolveChatWrapper(model: LlamaModel): ChatWrapper;
  LlamaChatSession: new (options: {
    contextSequence: LlamaSequence;
    systemPrompt: string;
    autoDisposeSequence: false;
  }) => LlamaChatSession;
}
interface Llama {
  loadModel(options: { modelPath: string; gpuLayers: 0 }): Promise<LlamaModel>;
  createGrammarForJsonSchema(schema: GrammarSchema): Promise<LlamaGrammar>;
  dispose(): Promise<void>;
}
interface LlamaGrammar {
  parse(json: string): unknown;
}
interface LlamaChatSession {
  prompt(
    text: string,
    options: { grammar: LlamaGrammar; maxTokens: number; temperature: 0; signal?: AbortSignal },
  ): Promise<string>;
  dispose(options: { disposeSequence: false }): void;
}
interface LlamaModel {
  readonly tokenizer: unknown;
  detokenize(tokens: readonly Token[]): string;
  createContext(options: {
    contextSize: number;
    threads: number;
    sequences: number;
    batchSize: number;
  }): Promise<LlamaContext>;
}
interface LlamaContext {
  readonly contextSize: number;
  getSequence(): LlamaSequence;
  dispose(): Promise<void>;
}
interface ChatWrapper {
  generateContextState(options: {
    chatHistory: (
      { type: 'system'; text: string } | { type: 'user'; text: string } | { type: 'model'; response: string[] }
    )[];
  }): {
    contextText: { tokenize(tokenizer: unknown): Token[] };
  };
}

export interface LocalJudgeOptions {
  modelPath: string;
  /** CPU threads for evaluation (default 2). */
  threads?: number;
  /** Card prefixes kept evaluated: at least (default MIN_SLOTS) … */
  slots?: number;
  /** … and at most, as a catalogue needs (default MAX_SLOTS). */
  maxSlots?: number;
}

/**
 * The KV cache costs 28 KiB a token with this model (28 layers × 2 KV heads × 128 dimensions × K and V × 2 bytes):
 * a slot of 512 tokens is 14 MiB (16 slots 224 MiB, 64 slots 896 MiB, 160 slots 2.2 GiB), the long sequence 112 MiB
 * more once made. A slot holds a card of up to ~400 tokens with its request (the zh catalogue's prompts: ~200–330
 * tokens, CLINC150's ~175–365, with up to ten examples shown).
 */
export const SLOT_TOKENS = 512;
const LONG_TOKENS = 4096;
/** Context of parameter filling: the prompt (a card and the wanted fields' schema, ~200–600 tokens) and the answer. */
const FILL_TOKENS = 2048;
/** Most tokens of a filled answer (a few fields of a request: ~20–120). */
const FILL_ANSWER_TOKENS = 256;
/** The first token's probabilities of yes and no are summed over the most likely tokens only. */
const TOKENS_READ = 40;
const BATCH_SIZE = 512;
/** Any request: only the prompt's prefix before it is kept. */
const ANY_INTENT = 'x';

interface Loaded {
  runtime: LlamaRuntime;
  llama: Llama;
  model: LlamaModel;
  wrapper: ChatWrapper;
  slots: { pool: PrefixPool; context: LlamaContext };
  long?: PrefixPool;
  /** The sequence parameters are generated on (its own context, made when first needed). */
  filling?: LlamaSequence;
}

export class LocalJudge implements JudgeProvider {
  readonly name: string;
  private loaded?: Promise<Loaded>;
  /** One use of the model at a time, as the pools' state changes between awaits; live uses before the warm-up. */
  private readonly line = new PriorityLine();
  private readonly warmUp = new CatalogueWarmUp({
    idle: (step) => this.line.run(step, 'idle'),
    resize: (cards) => this.resize(cards),
    prefix: async (candidate) => this.prefix(await this.load(), candidate),
    holds: (prefix) => this.heldSlots?.pool.holds(prefix) ?? false,
    hold: async (prefix, most, slot) => {
      const { index, done } = await (await this.load()).slots.pool.hold(prefix, most, slot);
      return { slot: index, done };
    },
  });
  /** The slots, once loaded (the warm-up's status reads them without waiting). */
  private heldSlots?: Loaded['slots'];
  /** How the last judgement was read (a hit, and the tokens evaluated), for tests and diagnostics. */
  lastRead?: Omit<PoolRead, 'probabilities'> & { prompt: number; prefix: number };

  constructor(private readonly options: LocalJudgeOptions) {
    this.name = `local:${basename(options.modelPath)}`;
  }

  private get threads(): number {
    return this.options.threads ?? 2;
  }

  /** Loads the runtime and the model (once; seconds from a warm page cache): at start, so no request waits for it. */
  warm(): Promise<unknown> {
    return this.load();
  }

  private load(): Promise<Loaded> {
    this.loaded ??= (async () => {
      const runtime = (await loadLlamaRuntime()) as LlamaRuntime | undefined;
      if (!runtime) throw new Error('node-llama-cpp is not installed: run `npm run models -- --judge`');
      const llama = await runtime.getLlama({ gpu: false, build: 'never', logLevel: 'error', maxThreads: this.threads });
      const model = await llama.loadModel({ modelPath: this.options.modelPath, gpuLayers: 0 });
      const slots = await this.pool(model, this.options.slots ?? MIN_SLOTS, SLOT_TOKENS);
      this.heldSlots = slots;
      return { runtime, llama, model, wrapper: runtime.resolveChatWrapper(model), slots };
    })();
    this.loaded.catch(() => (this.loaded = undefined));
    return this.loaded;
  }

  private async pool(
    model: LlamaModel,
    sequences: number,
    tokens: number,
  ): Promise<{ pool: PrefixPool; context: LlamaContext }> {
    const context = await model.createContext({
      contextSize: tokens,
      threads: this.threads,
      sequences,
      batchSize: BATCH_SIZE,
    });
    const pool = new PrefixPool(
      Array.from({ length: sequences }, () => context.getSequence()),
      context.contextSize,
    );
    return { pool, context };
  }

  /**
   * Holds the catalogue's cards ahead of their first judgement, in the background (warm-up.ts); a newer catalogue
   * replaces it.
   */
  hold(catalogue: JudgeCatalogue): Promise<void> {
    return this.warmUp.start(catalogue);
  }

  /** The warm-up of the newest catalogue: how many of its cards are held. */
  warming(): WarmUpStatus | undefined {
    return this.warmUp.status();
  }

  /** Slots for a catalogue of `cards` (warm-up-plan.ts): the slots are made anew when their number changes. */
  private async resize(cards: number): Promise<{ slots: number; slotTokens: number }> {
    const loaded = await this.load();
    const min = this.options.slots ?? MIN_SLOTS;
    const wanted = slotsFor(cards, { min, max: Math.max(min, this.options.maxSlots ?? MAX_SLOTS) });
    if (wanted !== loaded.slots.pool.size) {
      const old = loaded.slots;
      loaded.slots = await this.pool(loaded.model, wanted, SLOT_TOKENS);
      this.heldSlots = loaded.slots;
      await old.context.dispose();
    }
    return { slots: loaded.slots.pool.size, slotTokens: loaded.slots.pool.capacity };
  }

  judge(question: JudgeQuestion): Promise<number | undefined> {
    return this.line.run(() => this.read(question));
  }

  private async read(question: JudgeQuestion): Promise<number | undefined> {
    const loaded = await this.load();
    const { prompt, prefixLength } = this.tokens(loaded, question);
    const pool = loaded.slots.pool.fits(prompt) ? loaded.slots.pool : await this.longPool(loaded);
    if (!pool.fits(prompt)) return undefined;
    const { probabilities, hit, evaluated } = await pool.read(prompt, prefixLength);
    this.lastRead = { hit, evaluated, prompt: prompt.length, prefix: prefixLength };
    if (!probabilities) return undefined;
    const mass = { yes: 0, no: 0 };
    let read = 0;
    for (const [token, p] of probabilities) {
      if (read++ >= TOKENS_READ) break;
      const word = answerWord(loaded.model.detokenize([token]));
      if (word) mass[word] += p;
    }
    return yesProbability(mass.yes, mass.no);
  }

  /**
   * The request's values of `request.fields`, generated under the grammar of their schema (fill-schema.ts): what
   * the model left null is left out. On the same line as judgements (one use of the model at a time).
   */
  fill(request: FillRequest, signal?: AbortSignal): Promise<Record<string, unknown>> {
    return this.line.run(() => this.generate(request, signal));
  }

  private async generate(request: FillRequest, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const answer = await this.generateJson(
      {
        system: FILL_SYSTEM_PROMPT,
        user: fillUserPrompt(request),
        schema: fillSchema(request.schema, request.fields),
        maxTokens: FILL_ANSWER_TOKENS,
      },
      signal,
    );
    return filledFields(answer, request.fields);
  }

  /**
   * A JSON value generated under the grammar of `schema` (the planner's proposed split, planner/model-split.ts), on
   * the same line and sequence as filling.
   */
  propose(
    request: { system: string; user: string; schema: GrammarSchema; maxTokens: number },
    signal?: AbortSignal,
  ): Promise<unknown> {
    return this.line.run(() => this.generateJson(request, signal));
  }

  private async generateJson(
    request: { system: string; user: string; schema: GrammarSchema; maxTokens: number },
    signal?: AbortSignal,
  ): Promise<unknown> {
    const loaded = await this.load();
    loaded.filling ??= (
      await loaded.model.createContext({
        contextSize: FILL_TOKENS,
        threads: this.threads,
        sequences: 1,
        batchSize: BATCH_SIZE,
      })
    ).getSequence();
    const grammar = await loaded.llama.createGrammarForJsonSchema(request.schema);
    const session = new loaded.runtime.LlamaChatSession({
      contextSequence: loaded.filling,
      systemPrompt: request.system,
      autoDisposeSequence: false,
    });
    try {
      const answer = await session.prompt(request.user, {
        grammar,
        maxTokens: request.maxTokens,
        temperature: 0,
        ...(signal ? { signal } : {}),
      });
      return grammar.parse(answer);
    } finally {
      session.dispose({ disposeSequence: false });
    }
  }

  private async longPool(loaded: Loaded): Promise<PrefixPool> {
    loaded.long ??= (await this.pool(loaded.model, 1, LONG_TOKENS)).pool;
    return loaded.long;
  }

  /** The prompt's tokens, and how many of them are its card's prefix (the same for every request to that card). */
  private tokens({ model, wrapper }: Loaded, question: JudgeQuestion): { prompt: Token[]; prefixLength: number } {
    const render = (user: string) =>
      wrapper
        .generateContextState({
          chatHistory: [
            { type: 'system', text: SYSTEM_PROMPT },
            { type: 'user', text: user },
            { type: 'model', response: [] },
          ],
        })
        .contextText.tokenize(model.tokenizer);
    const { card, request } = questionParts(question);
    const prompt = render(card + request);
    return { prompt, prefixLength: commonPrefixLength(render(card), prompt) };
  }

  /**
   * The tokens of the card's prefix, as a judgement of it reads them: every prompt of the card starts with them
   * (the prefix ends with `Request:`, a token of its own whatever the request: docs/routing.md).
   */
  private prefix(loaded: Loaded, candidate: CapabilityCandidate): Token[] {
    const { prompt, prefixLength } = this.tokens(loaded, { intent: ANY_INTENT, candidate });
    return prompt.slice(0, prefixLength);
  }

  async close(): Promise<void> {
    this.warmUp.stop();
    const loaded = await this.loaded?.catch(() => undefined);
    this.loaded = undefined;
    await loaded?.llama.dispose();
  }
}
