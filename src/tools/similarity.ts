/**
 * Python difflib.SequenceMatcher(None, a, b) similarity over UTF-16 code units: `ratio()` with the
 * default autojunk heuristic (b ≥ 200 elements → elements occurring more than 1% + 1 times are
 * "popular" and only matched by extension), plus the cheap upper bounds `quickRatio` and
 * `realQuickRatio`. Hermes' thresholds (0.50 / 0.70 / 0.80) were tuned against these exact numbers.
 */

// b's positions per character as linked lists in scratch tables (head by char code, next by
// position): no allocation per call. A generation stamp marks which head entries are current.
const head = new Int32Array(65536);
const headStamp = new Int32Array(65536);
const charCount = new Int32Array(65536);
let next = new Int32Array(256);
let headGeneration = 0;

function chainB(b: string): void {
  headGeneration++;
  if (headGeneration === 0x7fffffff) {
    headStamp.fill(0);
    headGeneration = 1;
  }
  if (next.length < b.length) next = new Int32Array(b.length * 2);
  for (let j = b.length - 1; j >= 0; j--) {
    const c = b.charCodeAt(j);
    if (headStamp[c] !== headGeneration) {
      headStamp[c] = headGeneration;
      head[c] = -1;
      charCount[c] = 0;
    }
    next[j] = head[c] ?? -1;
    head[c] = j;
    charCount[c] = (charCount[c] ?? 0) + 1;
  }
  if (b.length >= 200) {
    const ntest = Math.floor(b.length / 100) + 1;
    for (let j = 0; j < b.length; j++) {
      const c = b.charCodeAt(j);
      if ((charCount[c] ?? 0) > ntest) head[c] = -1;
    }
  }
}

function firstIndexOf(c: number): number {
  return headStamp[c] === headGeneration ? (head[c] ?? -1) : -1;
}

// Scratch rows for find_longest_match: row[j + 1] = length of the match ending at a[i], b[j].
// Typed arrays with explicit clearing of touched cells beat a Map per row by an order of magnitude.
let rowPrev = new Int32Array(256);
let rowNext = new Int32Array(256);
let touchedPrev: number[] = [];
let touchedNext: number[] = [];

/** difflib find_longest_match; there is no junk predicate, so only the first two extension loops apply. */
function findLongestMatch(
  a: string,
  b: string,
  alo: number,
  ahi: number,
  blo: number,
  bhi: number,
): [number, number, number] {
  if (rowPrev.length < b.length + 1) {
    rowPrev = new Int32Array(b.length + 1);
    rowNext = new Int32Array(b.length + 1);
  }
  let besti = alo;
  let bestj = blo;
  let bestsize = 0;
  for (let i = alo; i < ahi; i++) {
    for (let j = firstIndexOf(a.charCodeAt(i)); j !== -1; j = next[j] ?? -1) {
      if (j < blo) continue;
      if (j >= bhi) break;
      const k = (rowPrev[j] ?? 0) + 1;
      rowNext[j + 1] = k;
      touchedNext.push(j + 1);
      if (k > bestsize) {
        besti = i - k + 1;
        bestj = j - k + 1;
        bestsize = k;
      }
    }
    for (const t of touchedPrev) rowPrev[t] = 0;
    touchedPrev.length = 0;
    const row = rowPrev;
    rowPrev = rowNext;
    rowNext = row;
    const touched = touchedPrev;
    touchedPrev = touchedNext;
    touchedNext = touched;
  }
  for (const t of touchedPrev) rowPrev[t] = 0;
  touchedPrev.length = 0;
  while (besti > alo && bestj > blo && a.charCodeAt(besti - 1) === b.charCodeAt(bestj - 1)) {
    besti--;
    bestj--;
    bestsize++;
  }
  while (besti + bestsize < ahi && bestj + bestsize < bhi && a.charCodeAt(besti + bestsize) === b.charCodeAt(bestj + bestsize)) {
    bestsize++;
  }
  return [besti, bestj, bestsize];
}

/**
 * Total size of difflib's matching blocks. With `stopAt`, returns early once the total reaches it
 * or once even matching every pending range fully could not reach it (the total is independent
 * of the order ranges are processed in, so partial sums are exact bounds).
 */
function matchedChars(a: string, b: string, stopAt = Number.POSITIVE_INFINITY): number {
  chainB(b);
  const queue: [number, number, number, number][] = [[0, a.length, 0, b.length]];
  let pending = Math.min(a.length, b.length);
  let total = 0;
  for (let q = queue.pop(); q; q = queue.pop()) {
    const [alo, ahi, blo, bhi] = q;
    pending -= Math.min(ahi - alo, bhi - blo);
    const [i, j, k] = findLongestMatch(a, b, alo, ahi, blo, bhi);
    if (k === 0) continue;
    total += k;
    if (total >= stopAt) return total;
    if (alo < i && blo < j) {
      queue.push([alo, i, blo, j]);
      pending += Math.min(i - alo, j - blo);
    }
    if (i + k < ahi && j + k < bhi) {
      queue.push([i + k, ahi, j + k, bhi]);
      pending += Math.min(ahi - i - k, bhi - j - k);
    }
    if (stopAt !== Number.POSITIVE_INFINITY && total + pending < stopAt) return total;
  }
  return total;
}

/** SequenceMatcher(None, a, b).ratio(): 2·M / (|a| + |b|), 1 when both are empty. */
export function ratio(a: string, b: string): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  if (a === b) return 1;
  return (2 * matchedChars(a, b)) / total;
}

/** Upper bound of `ratio` from lengths alone (difflib real_quick_ratio). */
export function realQuickRatio(a: string, b: string): number {
  const total = a.length + b.length;
  return total === 0 ? 1 : (2 * Math.min(a.length, b.length)) / total;
}

// Scratch tables for quickRatio: a generation stamp avoids clearing 64 Ki entries per call.
const avail = new Int32Array(65536);
const stamp = new Int32Array(65536);
let generation = 0;

/** Upper bound of `ratio` from character multisets (difflib quick_ratio). */
export function quickRatio(a: string, b: string): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  generation++;
  if (generation === 0x7fffffff) {
    stamp.fill(0);
    generation = 1;
  }
  for (let j = 0; j < b.length; j++) {
    const c = b.charCodeAt(j);
    if (stamp[c] !== generation) {
      stamp[c] = generation;
      avail[c] = 0;
    }
    avail[c] = (avail[c] ?? 0) + 1;
  }
  let matches = 0;
  for (let i = 0; i < a.length; i++) {
    const c = a.charCodeAt(i);
    if (stamp[c] === generation && (avail[c] ?? 0) > 0) {
      avail[c] = (avail[c] ?? 0) - 1;
      matches++;
    }
  }
  return (2 * matches) / total;
}

/** ratio(a, b) >= threshold, trying the cheap upper bounds first. */
export function similarAtLeast(a: string, b: string, threshold: number): boolean {
  if (a === b) return true;
  if (realQuickRatio(a, b) < threshold) return false;
  if (quickRatio(a, b) < threshold) return false;
  const total = a.length + b.length;
  // Smallest M with 2·M / total ≥ threshold (same float comparison as on the final ratio).
  let needed = Math.max(0, Math.floor((threshold * total) / 2) - 1);
  while ((2 * needed) / total < threshold) needed++;
  return (2 * matchedChars(a, b, needed)) / total >= threshold;
}
