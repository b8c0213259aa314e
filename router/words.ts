/**
 * Words of a text in Chinese and English, for the rules stage (tag-keywords.ts) and the lexical matcher: Chinese
 * runs are segmented by jieba (its dictionary ships inside the npm package), Latin words are lower-cased and lightly
 * stemmed.
 */
import { Jieba } from '@node-rs/jieba';
import { dict, idf } from '@node-rs/jieba/dict';

let jieba: Jieba | undefined;
function segmenter(): Jieba {
  jieba ??= Jieba.withDict(dict);
  return jieba;
}

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
const STOPWORDS = new Set([
  'a',
  'an',
  'the',
  'to',
  'of',
  'for',
  'in',
  'on',
  'at',
  'by',
  'and',
  'or',
  'is',
  'are',
  'be',
  'it',
  'my',
  'me',
  'i',
  'you',
  'your',
  'we',
  'our',
  'this',
  'that',
  'with',
  'can',
  'could',
  'please',
  'do',
  'does',
  'what',
  'how',
  'will',
  'would',
  'should',
  'from',
  'as',
  'not',
  'no',
  'so',
  'if',
  'any',
  'some',
  'have',
  'has',
  'was',
  'am',
  '的',
  '了',
  '吗',
  '呢',
  '吧',
  '啊',
  '呀',
  '我',
  '你',
  '他',
  '她',
  '它',
  '们',
  '是',
  '在',
  '和',
  '与',
  '或',
  '把',
  '被',
  '帮',
  '帮我',
  '请',
  '一下',
  '下',
  '给',
  '个',
  '这',
  '那',
  '就',
  '都',
  '也',
  '还',
  '要',
  '想',
  '能',
  '可以',
]);

/** A crude English stemmer: enough to make "refunds", "refunded" and "refunding" one word. */
export function stem(word: string): string {
  if (word.length <= 4) return word;
  for (const suffix of ['ing', 'ed', 'es', 's']) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) return word.slice(0, -suffix.length);
  }
  return word;
}

/** Content words of `text`: segmented Chinese, stemmed English, numbers dropped (they are parameters, not topics). */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const piece of segmenter().cut(text.toLowerCase().normalize('NFKC'), false)) {
    const token = piece.trim();
    if (!token || STOPWORDS.has(token)) continue;
    if (CJK.test(token)) out.push(token);
    else if (/^[a-z][a-z'_-]*$/.test(token)) out.push(stem(token.replace(/'s$/, '')));
  }
  return out;
}

/**
 * Below this inverse document frequency a Chinese word is one of the general language's most common: about 3,500 of
 * the 270,000 words of jieba's corpus, such as 能否, 具体, 内容, 用于, 业务 (7.0 and above: 赔偿, 催促, 发票).
 */
const COMMON_IDF = 7;
let commonChinese: Set<string> | undefined;

/** Whether a Chinese word is among the most common of general Chinese (jieba's IDF table, shipped in its package). */
export function isCommonChineseWord(word: string): boolean {
  commonChinese ??= new Set(
    Buffer.from(idf)
      .toString('utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .filter(([, value]) => Number(value) < COMMON_IDF)
      .map(([w]) => w!),
  );
  return commonChinese.has(word);
}

/** Overlapping character pairs of the Chinese runs: catch typos and words jieba splits differently. */
export function cjkBigrams(text: string): string[] {
  const out: string[] = [];
  for (const run of text.match(/[\u3400-\u9fff\uf900-\ufaff]+/g) ?? []) {
    for (let i = 0; i + 1 < run.length; i++) out.push(run.slice(i, i + 2));
  }
  return out;
}

/** The terms the lexical matcher indexes: words plus Chinese character pairs. */
export function terms(text: string): string[] {
  return [...words(text), ...cjkBigrams(text).map((b) => `#${b}`)];
}

export function containsCjk(text: string): boolean {
  return CJK.test(text);
}
