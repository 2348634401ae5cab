// The TypeScript SDK's client against sabline: node client.mjs stdio
// SABLINE ARGS... | node client.mjs http URL (token in SABLINE_TOKEN).
// It calls run with a progress handler on a program that never ends,
// cancels the call after two progress notifications, reads the run's
// receipt as its resource, tries to read the run OTHER_ID (another
// client's) and prints what it saw as one line of JSON, with the errors
// the client reported (an answer to the cancelled call among them).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [mode, ...rest] = process.argv.slice(2);
const transport = mode === 'stdio'
  // The server is given this process's environment whole (the SDK's
  // default passes a few names only): SABLINE_REGISTER among it, so that
  // the test's server joins the test's register.
  ? new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: 'inherit', env: { ...process.env } })
  : new StreamableHTTPClientTransport(new URL(rest[0]), {
    requestInit: { headers: { Authorization: `Bearer ${process.env.SABLINE_TOKEN}` } },
  });
const client = new Client({ name: 'sabline-ts-test', version: '1.0.0' });
const out = { progress: [], errors: [] };
client.onerror = (e) => out.errors.push(String(e));
await client.connect(transport);

const abort = new AbortController();
try {
  await client.callTool(
    { name: 'run', arguments: { source: 'def spin():\n    while True:\n        pass\nspin()\n' } },
    undefined,
    {
      signal: abort.signal,
      timeout: 120000,
      onprogress: (p) => {
        out.progress.push(p);
        if (out.progress.length === 2) abort.abort('enough');
      },
    },
  );
  out.cancel = 'the call returned';
} catch (e) {
  out.cancel = String(e);
}

const deadline = Date.now() + 60000;
let listed = [];
while (listed.length === 0 && Date.now() < deadline) {
  listed = (await client.listResources()).resources;
  if (listed.length === 0) await new Promise((r) => setTimeout(r, 50));
}
out.listed = listed.map((r) => r.uri);
if (listed.length > 0) {
  const read = await client.readResource({ uri: listed[0].uri });
  out.receipt = JSON.parse(read.contents[0].text);
}
if (process.env.OTHER_ID) {
  try {
    await client.readResource({ uri: `sabline://receipts/${process.env.OTHER_ID}` });
    out.other = 'read';
  } catch (e) {
    out.other = String(e);
  }
}
await client.ping(); // what was sent before its answer has come
console.log(JSON.stringify(out));
await client.close();
