/**
 * The local judge: a GGUF chat model run on the CPU by node-llama-cpp (installed on demand, judge-files.ts). The
 * native library evaluates off the JavaScript thread; one sequence serves one judgement at a time (the caller,
 * bounded-judge.ts, queues them). The answer is read, not generated: P(yes) against P(no) as the first token of the
 * assistant's turn. The system prompt's tokens stay in the context between judgements, so only
 * what follows them is evaluated again.
 */
import { basename } from 'node:path';
import { loadLlamaRuntime } from './judge-files';
import { answerWord, questionText, SYSTEM_PROMPT, yesProbability, type JudgeProvider, type JudgeQuestion } from './question';

/** The part of node-llama-cpp's API used here (the package is not a dependency of the project, so not typed by it). */
interface LlamaRuntime {
  getLlama(options: { gpu: false; build: 'never'; logLevel: 'error'; maxThreads: number }): Promise<Llama>;
  resolveChatWrapper(model: LlamaModel): ChatWrapper;
}
interface Llama {
  loadModel(options: { modelPath: string; gpuLayers: 0 }): Promise<LlamaModel>;
  dispose(): Promise<void>;
}
type Token = number;
interface LlamaModel {
  readonly tokenizer: unknown;
  detokenize(tokens: readonly Token[]): string;
  createContext(options: { contextSize: number; threads: number; sequences: 1; batchSize: number }): Promise<LlamaContext>;
}
interface LlamaContext {
  getSequence(): LlamaSequence;
}
interface LlamaSequence {
  readonly contextTokens: readonly Token[];
  readonly nextTokenIndex: number;
  eraseContextTokenRanges(ranges: { start: number; end: number }[]): Promise<void>;
  controlledEvaluate(input: (Token | [Token, { generateNext: { probabilities: true } }])[]): Promise<({ next: { probabilities?: Map<Token, number> } } | undefined)[]>;
}
interface ChatWrapper {
  generateContextState(options: { chatHistory: ({ type: 'system'; text: string } | { type: 'user'; text: string } | { type: 'model'; response: string[] })[] }): {
    contextText: { tokenize(tokenizer: unknown): Token[] };
  };
}

export interface LocalJudgeOptions {
  modelPath: string;
  /** CPU threads for evaluation (default 2). */
  threads?: number;
}

/** The prompt holds a few cards with examples: 4k tokens leaves room for long Chinese ones. */
const CONTEXT_SIZE = 4096;
/** The first token's probabilities of yes and no are summed over the most likely tokens only. */
const TOKENS_READ = 40;

export class LocalJudge implements JudgeProvider {
  readonly name: string;
  private loaded?: Promise<{ llama: Llama; model: LlamaModel; sequence: LlamaSequence; wrapper: ChatWrapper }>;

  constructor(private readonly options: LocalJudgeOptions) {
    this.name = `local:${basename(options.modelPath)}`;
  }

  /** Loads the runtime and the model (once; seconds from a warm page cache): at start, so no request waits for it. */
  warm(): Promise<unknown> {
    return this.load();
  }

  private load() {
    this.loaded ??= (async () => {
      const runtime = (await loadLlamaRuntime()) as LlamaRuntime | undefined;
      if (!runtime) throw new Error('node-llama-cpp is not installed: run `npm run models -- --judge`');
      const threads = this.options.threads ?? 2;
      const llama = await runtime.getLlama({ gpu: false, build: 'never', logLevel: 'error', maxThreads: threads });
      const model = await llama.loadModel({ modelPath: this.options.modelPath, gpuLayers: 0 });
      const context = await model.createContext({ contextSize: CONTEXT_SIZE, threads, sequences: 1, batchSize: 512 });
      return { llama, model, sequence: context.getSequence(), wrapper: runtime.resolveChatWrapper(model) };
    })();
    this.loaded.catch(() => (this.loaded = undefined));
    return this.loaded;
  }

  async judge(question: JudgeQuestion): Promise<number | undefined> {
    const { model, sequence, wrapper } = await this.load();
    const state = wrapper.generateContextState({
      chatHistory: [
        { type: 'system', text: SYSTEM_PROMPT },
        { type: 'user', text: questionText(question) },
        { type: 'model', response: [] },
      ],
    });
    const tokens = state.contextText.tokenize(model.tokenizer);
    const kept = await this.keepCommonPrefix(sequence, tokens);
    const rest = tokens.slice(kept);
    const last: [Token, { generateNext: { probabilities: true } }] = [rest[rest.length - 1]!, { generateNext: { probabilities: true } }];
    const output = await sequence.controlledEvaluate([...rest.slice(0, -1), last]);
    const probabilities = output[output.length - 1]?.next.probabilities;
    if (!probabilities) return undefined;
    const mass = { yes: 0, no: 0 };
    let read = 0;
    for (const [token, p] of probabilities) {
      if (read++ >= TOKENS_READ) break;
      const word = answerWord(model.detokenize([token]));
      if (word) mass[word] += p;
    }
    return yesProbability(mass.yes, mass.no);
  }

  /** Erases what follows the prompt's common prefix with the context (keeping at least one token to evaluate). */
  private async keepCommonPrefix(sequence: LlamaSequence, tokens: readonly Token[]): Promise<number> {
    const held = sequence.contextTokens;
    let common = 0;
    while (common < held.length && common < tokens.length - 1 && held[common] === tokens[common]) common++;
    if (common < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: common, end: sequence.nextTokenIndex }]);
    return common;
  }

  async close(): Promise<void> {
    const loaded = await this.loaded?.catch(() => undefined);
    this.loaded = undefined;
    await loaded?.llama.dispose();
  }
}
