/**
 * TPC-H's comment text (specification 4.2.2.10): sentences from a small grammar over fixed word lists, cut
 * to a length drawn between a column's bounds. dbgen weighs the words and cuts from a pre-built text pool;
 * here each word is equally likely and the text is made per value, which keeps the vocabulary, the
 * sentence shapes and the lengths (what queries such as Q13's `o_comment NOT LIKE '%special%requests%'`
 * and Q16's `s_comment LIKE '%Customer%Complaints%'` look at).
 */
import type { Random } from './random.js';

const NOUNS = [
  'packages', 'requests', 'accounts', 'deposits', 'foxes', 'ideas', 'theodolites', 'pinto beans',
  'instructions', 'dependencies', 'excuses', 'platelets', 'asymptotes', 'courts', 'dolphins', 'multipliers',
  'sauternes', 'warthogs', 'frets', 'dinos', 'attainments', 'somas', 'Tiresias', 'patterns', 'forges',
  'braids', 'hockey players', 'frays', 'warhorses', 'dugouts', 'notornis', 'epitaphs', 'pearls', 'tithes',
  'waters', 'orbits', 'gifts', 'sheaves', 'depths', 'sentiments', 'decoys', 'realms', 'pains', 'grouches',
  'escapades',
]; // prettier-ignore
const VERBS = [
  'sleep', 'wake', 'are', 'cajole', 'haggle', 'nag', 'use', 'boost', 'affix', 'detect', 'integrate',
  'maintain', 'nod', 'was', 'lose', 'sublate', 'solve', 'thrash', 'promise', 'engage', 'hinder', 'print',
  'x-ray', 'breach', 'eat', 'grow', 'impress', 'mold', 'poach', 'serve', 'run', 'dazzle', 'snooze', 'doze',
  'unwind', 'kindle', 'play', 'hang', 'believe', 'doubt',
]; // prettier-ignore
const ADJECTIVES = [
  'furious', 'sly', 'careful', 'blithe', 'quick', 'fluffy', 'slow', 'quiet', 'ruthless', 'thin', 'close',
  'dogged', 'daring', 'brave', 'stealthy', 'permanent', 'enticing', 'idle', 'busy', 'regular', 'final',
  'ironic', 'even', 'bold', 'silent', 'special', 'express', 'unusual', 'pending',
]; // prettier-ignore
const ADVERBS = [
  'sometimes', 'always', 'never', 'furiously', 'slyly', 'carefully', 'blithely', 'quickly', 'fluffily',
  'slowly', 'quietly', 'ruthlessly', 'thinly', 'closely', 'doggedly', 'daringly', 'bravely', 'stealthily',
  'permanently', 'enticingly', 'idly', 'busily', 'regularly', 'finally', 'ironically', 'evenly', 'boldly',
  'silently',
]; // prettier-ignore
const PREPOSITIONS = [
  'about', 'above', 'according to', 'across', 'after', 'against', 'along', 'alongside of', 'among',
  'around', 'at', 'atop', 'before', 'behind', 'beneath', 'beside', 'besides', 'between', 'beyond', 'by',
  'despite', 'during', 'except', 'for', 'from', 'in place of', 'inside', 'instead of', 'into', 'near', 'of',
  'on', 'outside', 'over', 'past', 'since', 'through', 'throughout', 'to', 'toward', 'under', 'until', 'up',
  'upon', 'without', 'with', 'within',
]; // prettier-ignore
const AUXILIARIES = [
  'do', 'may', 'might', 'shall', 'will', 'would', 'can', 'could', 'should', 'ought to', 'must',
  'will have to', 'shall have to', 'could have to', 'should have to', 'must have to', 'need to', 'try to',
]; // prettier-ignore
const TERMINATORS = ['.', ';', ':', '?', '!', '--'];

function nounPhrase(r: Random): string {
  switch (r.int(0, 3)) {
    case 0:
      return r.pick(NOUNS);
    case 1:
      return `${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}`;
    case 2:
      return `${r.pick(ADJECTIVES)}, ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}`;
    default:
      return `${r.pick(ADVERBS)} ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}`;
  }
}

function verbPhrase(r: Random): string {
  switch (r.int(0, 3)) {
    case 0:
      return r.pick(VERBS);
    case 1:
      return `${r.pick(AUXILIARIES)} ${r.pick(VERBS)}`;
    case 2:
      return `${r.pick(VERBS)} ${r.pick(ADVERBS)}`;
    default:
      return `${r.pick(AUXILIARIES)} ${r.pick(VERBS)} ${r.pick(ADVERBS)}`;
  }
}

const prepositional = (r: Random) => `${r.pick(PREPOSITIONS)} the ${nounPhrase(r)}`;

function sentence(r: Random): string {
  let s: string;
  switch (r.int(0, 4)) {
    case 0:
      s = `${nounPhrase(r)} ${verbPhrase(r)}`;
      break;
    case 1:
      s = `${nounPhrase(r)} ${verbPhrase(r)} ${prepositional(r)}`;
      break;
    case 2:
      s = `${nounPhrase(r)} ${verbPhrase(r)} ${nounPhrase(r)}`;
      break;
    case 3:
      s = `${nounPhrase(r)} ${prepositional(r)} ${verbPhrase(r)} ${nounPhrase(r)}`;
      break;
    default:
      s = `${nounPhrase(r)} ${prepositional(r)} ${verbPhrase(r)} ${prepositional(r)}`;
  }
  return `${s}${r.pick(TERMINATORS)}`;
}

/** A comment of between `min` and `max` characters (dbgen's TEXT(min, max)), no trailing blank. */
export function text(r: Random, min: number, max: number): string {
  const len = r.int(min, max);
  let out = '';
  while (out.length < len) out += (out ? ' ' : '') + sentence(r);
  return out.slice(0, len).trimEnd();
}

/** A random alphanumeric string of 10 to 40 characters (dbgen's V-string, for addresses). */
export function vstring(r: Random, min: number, max: number): string {
  const alphabet = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,';
  const len = r.int(min, max);
  let s = '';
  for (let i = 0; i < len; i++) s += alphabet[r.int(0, alphabet.length - 1)];
  return s;
}
