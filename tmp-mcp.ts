import { certify } from './src/runner/certify.ts';
const variants = (process.argv[2] ?? '').split(',') as any;
const { results } = await certify({ variants, patterns: ['mcp.jsonrpc.generated.errors'], seed: 29 });
const r = results[0]!;
console.log(r.verdict, r.reason?.slice(0, 300));
for (const c of r.cases.slice(0, 3)) { const e = r.evidence[c.exchange!]; console.log(JSON.stringify(e?.response).slice(0, 800)); }
process.exit(0);
