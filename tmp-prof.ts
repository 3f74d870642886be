import { readFileSync, readdirSync } from 'node:fs';
const dir = '/tmp/i31prof/';
const prof = JSON.parse(readFileSync(dir + readdirSync(dir)[0], 'utf8'));
const self = new Map<number, number>();
const dt = prof.timeDeltas as number[];
const samples = prof.samples as number[];
for (let i = 0; i < samples.length; i++) self.set(samples[i], (self.get(samples[i]) ?? 0) + (dt[i] ?? 0));
const byId = new Map(prof.nodes.map((n: any) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const total = new Map<string, number>();
const selfBy = new Map<string, number>();
const name = (n: any) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/^.*\/i31\//, '')}:${n.callFrame.lineNumber}`;
for (const [id, t] of self) {
  const n: any = byId.get(id);
  selfBy.set(name(n), (selfBy.get(name(n)) ?? 0) + t);
  const seen = new Set<string>();
  let cur: number | undefined = id;
  while (cur !== undefined) { const k = name(byId.get(cur)); if (!seen.has(k)) { total.set(k, (total.get(k) ?? 0) + t); seen.add(k); } cur = parent.get(cur); }
}
const all = [...self.values()].reduce((a, b) => a + b, 0);
console.log('total ms', (all / 1000).toFixed(0));
for (const [k, v] of [...total].filter(([k]) => /^[^ ]* (src|bench)\//.test(k)).sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log((v / 1000).toFixed(0).padStart(7), k);
console.log('--- self');
for (const [k, v] of [...selfBy].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((v / 1000).toFixed(0).padStart(7), k);
