/**
 * The cheapest proxy Node can be, for `npm run bench:proxy`'s BENCH_REFERENCE=node-pipe arm: each
 * client connection gets its own upstream connection and bytes are passed on as they arrive, with
 * no HTTP read, no record and no judging. What it gets from a machine is what any proxy written in
 * Node could get at most; what apicert's proxy spends beyond it is reading, recording and judging.
 * Usage: node bench/pipe-proxy.ts UPSTREAM_URL; prints its URL once it listens.
 */
import { connect, createServer, type AddressInfo } from 'node:net';

const upstream = new URL(process.argv[2]!);
const server = createServer((client) => {
  const origin = connect(Number(upstream.port), upstream.hostname);
  for (const socket of [client, origin]) socket.setNoDelay(true);
  client.on('data', (chunk: Buffer) => origin.write(chunk));
  origin.on('data', (chunk: Buffer) => client.write(chunk));
  client.on('close', () => origin.destroy());
  origin.on('close', () => client.destroy());
  client.on('error', () => origin.destroy());
  origin.on('error', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => console.log(`listening: http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.once('SIGTERM', () => process.exit(0));
