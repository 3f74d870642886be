/**
 * Every substring of every registered secret form, as one suffix automaton (generalised to many
 * strings, built online as secrets are learned). Reading a text through it gives, at each position,
 * the longest stretch ending there that occurs in some form, in time linear in the text whatever
 * the forms look like: a 4,096-character run of `a` against a 4 MiB body of `a` costs what any
 * other text of that length costs. The seed-and-extend search it replaces followed every place of a
 * periodic seed at every position, which is quadratic.
 *
 * Each maximal stretch is handed to the caller with one form it occurs in (where it occurs first);
 * a stretch that holds a whole form is reported as that whole form as well, so a short secret inside
 * a longer one's vocabulary is never judged by the longer one's fragment rules.
 */
import { FormProfile, SECRET_RUN, type StretchJudge } from './fragments.ts';

export interface AutomatonForm {
  profile: StretchJudge;
  label: string;
}

/** A stretch of the text that occurs in `form`, ending (exclusive) at `formEnd` there. */
export interface Stretch {
  start: number;
  end: number;
  form: AutomatonForm;
  formEnd: number;
  /** The stretch is the whole form. */
  whole: boolean;
}

const NONE = -1;

/*
 * A filter in front of the automaton. Every stretch the scan reports holds SECRET_RUN characters or
 * more, so it holds a GRAM-character piece starting at a multiple of GRAM_STEP (GRAM_STEP + GRAM - 1
 * <= SECRET_RUN), and that piece occurs in a form. The pieces of every form are kept, hashed, in a
 * bit set; the scan tests the text's pieces at those positions only (one in GRAM_STEP) and runs the
 * automaton only from GRAM_STEP - 1 characters before a piece that passes. Hash collisions only
 * make it run where it need not: what it finds is what reading every character finds.
 */
const GRAM = 5;
const GRAM_STEP = 8;
const GRAM_BITS = 18;
// The filter is exact only while every reported run holds a whole aligned piece: a shorter SECRET_RUN must change GRAM or GRAM_STEP.
if (GRAM_STEP + GRAM - 1 > SECRET_RUN) throw new Error(`form-automaton: GRAM_STEP + GRAM - 1 (${GRAM_STEP + GRAM - 1}) exceeds SECRET_RUN (${SECRET_RUN})`);

/** The hash of `text[at, at + GRAM)`: GRAM_BITS bits. */
function gramAt(text: string, at: number): number {
  let h = text.charCodeAt(at);
  h = Math.imul(h, 0x01000193) + text.charCodeAt(at + 1);
  h = Math.imul(h, 0x01000193) + text.charCodeAt(at + 2);
  h = Math.imul(h, 0x01000193) + text.charCodeAt(at + 3);
  h = Math.imul(h, 0x01000193) + text.charCodeAt(at + 4);
  return Math.imul(h, 0x9e3779b1) >>> (32 - GRAM_BITS);
}

export class FormAutomaton {
  readonly forms: AutomatonForm[] = [];
  /*
   * Per state, in typed arrays grown by doubling: a recording's secrets make some 140k states, and
   * pushing each onto seven plain arrays cost more than the rest of building them.
   */
  private states = 1;
  private len: Int32Array = Int32Array.of(0);
  private link: Int32Array = Int32Array.of(NONE);
  /** Form index and (exclusive) end position of the first occurrence of each state's strings. */
  private formOf: Int32Array = Int32Array.of(NONE);
  private endOf: Int32Array = Int32Array.of(0);
  /** The first transition inline (most states have one), the others in a map. */
  private firstChar: Int32Array = Int32Array.of(NONE);
  private firstNext: Int32Array = Int32Array.of(NONE);
  /** The other transitions' codes per state (for copying a state), and the transitions themselves in one open-addressing table. */
  private readonly moreCodes: Array<number[] | undefined> = [undefined];
  private table = new Int32Array(0);
  private tableUsed = 0;
  /** Per state, the shortest whole form among its strings and the longest among its suffix links' strings; rebuilt lazily after a form is added. */
  private ownWhole: Int32Array = new Int32Array(0);
  private chainWhole: Int32Array = new Int32Array(0);
  private dirty = false;
  /** The root's transitions by character code: most characters of most texts lead nowhere from it, and are asked here first. */
  private readonly rootNext = new Int32Array(0x10000).fill(NONE);
  /** One bit per gram hash that some form's GRAM-character piece has (see `gramAt`). */
  private readonly grams = new Int32Array(1 << (GRAM_BITS - 5));

  get size(): number {
    return this.forms.length;
  }

  /** Whether some form holds the character `code` (every character of a form leads somewhere from the root). */
  holds(code: number): boolean {
    return this.rootNext[code] !== NONE;
  }

  private next(state: number, code: number): number {
    if (state === 0) return this.rootNext[code]!;
    if (this.firstChar[state] === code) return this.firstNext[state]!;
    if (this.moreCodes[state] === undefined) return NONE;
    return this.lookup(state, code);
  }

  private setNext(state: number, code: number, to: number): void {
    if (state === 0) {
      this.rootNext[code] = to;
      return;
    }
    if (this.firstChar[state] === NONE || this.firstChar[state] === code) {
      this.firstChar[state] = code;
      this.firstNext[state] = to;
      return;
    }
    let codes = this.moreCodes[state];
    if (!codes) {
      codes = [];
      this.moreCodes[state] = codes;
    }
    if (this.lookup(state, code) === NONE) codes.push(code);
    this.store(state, code, to);
  }

  /** Slot of (state, code) in the table: three ints per slot (state + 1, code, target); 0 marks an empty slot. */
  private slot(state: number, code: number): number {
    const mask = this.table.length / 3 - 1;
    let i = (Math.imul(state, 0x9e3779b1) ^ Math.imul(code, 0x85ebca77)) & mask;
    for (;;) {
      const at = i * 3;
      const key = this.table[at]!;
      if (key === 0 || (key === state + 1 && this.table[at + 1] === code)) return at;
      i = (i + 1) & mask;
    }
  }

  private lookup(state: number, code: number): number {
    if (this.table.length === 0) return NONE;
    const at = this.slot(state, code);
    return this.table[at] === 0 ? NONE : this.table[at + 2]!;
  }

  private store(state: number, code: number, to: number): void {
    if ((this.tableUsed + 1) * 2 > this.table.length / 3) this.grow();
    const at = this.slot(state, code);
    if (this.table[at] === 0) {
      this.table[at] = state + 1;
      this.table[at + 1] = code;
      this.tableUsed += 1;
    }
    this.table[at + 2] = to;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(Math.max(3 * 1024, old.length * 2));
    this.tableUsed = 0;
    for (let at = 0; at < old.length; at += 3) if (old[at] !== 0) this.store(old[at]! - 1, old[at + 1]!, old[at + 2]!);
  }

  private newState(len: number, link: number, form: number, end: number): number {
    const state = this.states;
    if (state === this.len.length) this.growStates();
    this.states = state + 1;
    this.len[state] = len;
    this.link[state] = link;
    this.formOf[state] = form;
    this.endOf[state] = end;
    this.firstChar[state] = NONE;
    this.firstNext[state] = NONE;
    this.moreCodes[state] = undefined;
    return state;
  }

  private growStates(): void {
    const size = Math.max(1024, this.len.length * 2);
    const grown = (old: Int32Array): Int32Array => {
      const out = new Int32Array(size);
      out.set(old);
      return out;
    };
    this.len = grown(this.len);
    this.link = grown(this.link);
    this.formOf = grown(this.formOf);
    this.endOf = grown(this.endOf);
    this.firstChar = grown(this.firstChar);
    this.firstNext = grown(this.firstNext);
  }

  private cloneOf(q: number, len: number): number {
    const clone = this.newState(len, this.link[q]!, this.formOf[q]!, this.endOf[q]!);
    this.firstChar[clone] = this.firstChar[q]!;
    this.firstNext[clone] = this.firstNext[q]!;
    const codes = this.moreCodes[q];
    if (codes) {
      this.moreCodes[clone] = [...codes];
      for (const code of codes) this.store(clone, code, this.lookup(q, code));
    }
    return clone;
  }

  /** Redirects `p` and its suffix links from `q` to `clone` while they lead to `q` on `code`. */
  private redirect(p: number, code: number, q: number, clone: number): void {
    for (let s = p; s !== NONE && this.next(s, code) === q; s = this.link[s]!) this.setNext(s, code, clone);
  }

  private extend(last: number, code: number, form: number, end: number): number {
    const existing = this.next(last, code);
    if (existing !== NONE) {
      if (this.len[existing] === this.len[last]! + 1) return existing;
      const clone = this.cloneOf(existing, this.len[last]! + 1);
      this.link[existing] = clone;
      this.redirect(last, code, existing, clone);
      return clone;
    }
    const cur = this.newState(this.len[last]! + 1, 0, form, end);
    let p = last;
    while (p !== NONE && this.next(p, code) === NONE) {
      this.setNext(p, code, cur);
      p = this.link[p]!;
    }
    if (p === NONE) return cur;
    const q = this.next(p, code);
    if (this.len[p]! + 1 === this.len[q]) {
      this.link[cur] = q;
      return cur;
    }
    const clone = this.cloneOf(q, this.len[p]! + 1);
    this.link[q] = clone;
    this.link[cur] = clone;
    this.redirect(p, code, q, clone);
    return cur;
  }

  /** `profile` judges stretches of the form (by default as the secret itself: fragments.ts). */
  add(text: string, label: string, profile: StretchJudge = new FormProfile(text)): void {
    const index = this.forms.length;
    this.forms.push({ profile, label });
    let last = 0;
    for (let i = 0; i < text.length; i += 1) last = this.extend(last, text.charCodeAt(i), index, i + 1);
    for (let i = 0; i + GRAM <= text.length; i += 1) {
      const h = gramAt(text, i);
      this.grams[h >>> 5]! |= 1 << (h & 31);
    }
    this.dirty = true;
  }

  /** Which whole forms end in each state, and in its suffix links; O(states + forms' length), once per batch of additions. */
  private rebuild(): void {
    const states = this.states;
    const own = new Int32Array(states).fill(NONE);
    const chain = new Int32Array(states).fill(NONE);
    for (let f = 0; f < this.forms.length; f += 1) {
      const text = this.forms[f]!.profile.text;
      let s = 0;
      for (let i = 0; i < text.length; i += 1) s = this.next(s, text.charCodeAt(i));
      const known = own[s]!;
      if (known === NONE || this.forms[known]!.profile.text.length > text.length) own[s] = f;
    }
    // States in order of length: a suffix link always leads to a shorter state.
    const byLength: number[][] = [];
    for (let s = 0; s < states; s += 1) (byLength[this.len[s]!] ??= []).push(s);
    for (const bucket of byLength) {
      if (!bucket) continue;
      for (const s of bucket) {
        const parent = this.link[s]!;
        if (parent === NONE) continue;
        const inherited = chain[parent]!;
        const parentOwn = own[parent]!;
        chain[s] = parentOwn !== NONE && (inherited === NONE || this.forms[parentOwn]!.profile.text.length > this.forms[inherited]!.profile.text.length) ? parentOwn : inherited;
      }
    }
    this.ownWhole = own;
    this.chainWhole = chain;
    this.dirty = false;
  }

  /**
   * Reads `input` once and calls `found` with each maximal stretch of SECRET_RUN characters or more
   * that occurs in a form (in order of their ends), and with each whole form it holds. The stretch
   * passed is one object reused for every call (a long run of a periodic form holds the whole form
   * at every character): read it in `found`, copy what is kept.
   */
  scan(input: string, found: (stretch: Stretch) => void): void {
    if (this.forms.length === 0 || input.length < SECRET_RUN) return;
    if (this.dirty) this.rebuild();
    let state = 0;
    let length = 0;
    const { rootNext, len, link, formOf, endOf, firstChar, firstNext, moreCodes, ownWhole, chainWhole, forms, grams } = this;
    const stretch: Stretch = { start: 0, end: 0, form: forms[0]!, formEnd: 0, whole: false };
    const size = input.length;
    // The first position, a multiple of GRAM_STEP, at or after the current match's start whose piece passes the filter; and where the search for it stopped.
    let hit = -1;
    let searched = 0;
    for (let i = 0; i <= size; i += 1) {
      // While the match is shorter than a run, no stretch to report has begun before its start
      // (matches only move right), and one that begins there holds a passing piece at `hit` or
      // later, so begins at hit - GRAM_STEP + 1 or later: the automaton can start afresh there.
      if (length < SECRET_RUN) {
        const from = i - length;
        if (hit < from) {
          let p = Math.max(searched, (from + GRAM_STEP - 1) & -GRAM_STEP);
          for (; p + GRAM <= size; p += GRAM_STEP) {
            const h = gramAt(input, p);
            if ((grams[h >>> 5]! & (1 << (h & 31))) !== 0) break;
          }
          // No piece left that passes: nothing more to report.
          if (p + GRAM > size) return;
          hit = p;
          searched = p + GRAM_STEP;
        }
        if (hit - GRAM_STEP + 1 > i) {
          i = hit - GRAM_STEP + 1;
          state = 0;
          length = 0;
        }
      }
      let next = NONE;
      let code = NONE;
      if (i < size) {
        code = input.charCodeAt(i);
        // Most characters of most texts lead nowhere from the root: skip them here, without a call.
        if (state === 0) {
          next = rootNext[code]!;
          if (next === NONE) continue;
        } else if (firstChar[state] === code) next = firstNext[state]!;
        else if (moreCodes[state] !== undefined) next = this.lookup(state, code);
      }
      // The stretch ending at i cannot grow by one more character: it is maximal.
      if (next === NONE && length >= SECRET_RUN) {
        const form = forms[formOf[state]!]!;
        stretch.start = i - length;
        stretch.end = i;
        stretch.form = form;
        stretch.formEnd = endOf[state]!;
        stretch.whole = length >= form.profile.text.length;
        found(stretch);
      }
      if (i === size) return;
      while (next === NONE && state !== 0) {
        state = link[state]!;
        length = len[state]!;
        next = this.next(state, code);
      }
      if (next === NONE) {
        length = 0;
        continue;
      }
      state = next;
      length += 1;
      if (length < SECRET_RUN) continue;
      let whole = ownWhole[state]!;
      if (whole === NONE || forms[whole]!.profile.text.length > length) whole = chainWhole[state]!;
      if (whole !== NONE) {
        const form = forms[whole]!;
        const n = form.profile.text.length;
        stretch.start = i + 1 - n;
        stretch.end = i + 1;
        stretch.form = form;
        stretch.formEnd = n;
        stretch.whole = true;
        found(stretch);
      }
    }
  }
}
