// A real MCP client against kws mcp serve: the TypeScript SDK
// (@modelcontextprotocol/sdk, installed in mcp/npm by make setup) connects,
// lists the tools, puts a text and a binary block and gets them back byte
// for byte, saves a memory and finds it, uses the board, and checks that a
// bad call is a tool error. It prints one JSON summary line and exits 0, or
// prints what went wrong and exits 1.
//
// Usage: node client.mjs NPM_DIR stdio COMMAND [ARG...]
//        node client.mjs NPM_DIR http URL
// A stdio server gets this process's environment; an HTTP server gets the
// bearer token in KWS_MCP_TOKEN.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

const [npmDir, mode, ...rest] = process.argv.slice(2);
const require = createRequire(join(npmDir, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');

function fail(msg) {
  console.error('client.mjs: ' + msg);
  process.exit(1);
}

let transport;
if (mode === 'stdio') {
  const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
  transport = new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: 'inherit' });
} else if (mode === 'http') {
  const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
  transport = new StreamableHTTPClientTransport(new URL(rest[0]),
    { requestInit: { headers: { Authorization: 'Bearer ' + (process.env.KWS_MCP_TOKEN || '') } } });
} else {
  fail('usage: node client.mjs NPM_DIR (stdio COMMAND [ARG...] | http URL)');
}

// The client tells the transport the protocol version it negotiated.
const summary = {};
const setVersion = transport.setProtocolVersion;
transport.setProtocolVersion = (v) => {
  summary.protocol = v;
  setVersion?.call(transport, v);
};
const client = new Client({ name: 'ts-sdk-test', version: '1.0.0' });
await client.connect(transport);
summary.server = client.getServerVersion();

const { tools } = await client.listTools();
summary.tools = tools.map((t) => t.name).sort();
const want = ['board_add', 'board_claim', 'board_done', 'board_list', 'ctx_get', 'ctx_search', 'memory_save', 'memory_search', 'vault_put'];
if (summary.tools.join() !== want.join()) fail('tools: ' + summary.tools.join());

async function call(name, args, isError = false) {
  const res = await client.callTool({ name, arguments: args });
  if (Boolean(res.isError) !== isError) {
    fail(`${name} ${JSON.stringify(args)}: isError=${res.isError}: ${JSON.stringify(res.content)}`);
  }
  return res;
}

// Text: every byte back, line endings and trailing spaces included.
const text = 'kws exact block\r\n\tFAIL TestFrobnicate: want 3, got 4   \nünïcödé ✓\n\n';
const put = await call('vault_put', { text, kind: 'log' });
summary.textId = put.structuredContent.id;
if (put.structuredContent.bytes !== Buffer.byteLength(text)) fail('put bytes: ' + JSON.stringify(put.structuredContent));
const got = await call('ctx_get', { id: summary.textId, reason: 'round trip' });
if (got.content.length !== 1 || got.content[0].type !== 'text' || got.content[0].text !== text) {
  fail('ctx_get text: ' + JSON.stringify(got.content));
}

// Binary: bytes that are not UTF-8 go in as base64 and come back as a blob.
const bin = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x80]), randomBytes(4096)]);
const putBin = await call('vault_put', { base64: bin.toString('base64') });
summary.binaryId = putBin.structuredContent.id;
const gotBin = await call('ctx_get', { id: summary.binaryId });
const res = gotBin.content.find((c) => c.type === 'resource');
if (!res || !Buffer.from(res.resource.blob, 'base64').equals(bin) || gotBin._meta['kws/encoding'] !== 'base64') {
  fail('ctx_get binary: ' + JSON.stringify(gotBin).slice(0, 300));
}
summary.binaryBytes = bin.length;

const found = await call('ctx_search', { query: 'TestFrobnicate' });
if (!found.content[0].text.includes(summary.textId)) fail('ctx_search: ' + found.content[0].text);

await call('memory_save', { text: 'The staging database runs on port 6543', kind: 'path' });
const recall = await call('memory_search', { query: 'which port does the staging database use' });
if (!recall.content[0].text.includes('port 6543')) fail('memory_search: ' + recall.content[0].text);
summary.memory = recall.content[0].text.split('\n')[1];

const task = (await call('board_add', { title: 'ship the MCP server' })).structuredContent.task;
await call('board_claim', { id: task.id });
const done = (await call('board_done', { id: task.id })).structuredContent.task;
if (done.status !== 'done' || done.owner !== 'mcp:ts-sdk-test') fail('board_done: ' + JSON.stringify(done));
const board = (await call('board_list', {})).structuredContent;
summary.board = board.tasks.map((t) => `${t.id} ${t.status} ${t.owner}`);

const bad = await call('ctx_get', { id: 'ctx:0123456789ab' }, true);
summary.badId = bad.content[0].text;

await client.close();
console.log(JSON.stringify(summary));
