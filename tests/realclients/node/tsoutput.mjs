// tsoutput.mjs calls one tool of an MCP server with the official
// TypeScript SDK's Client, over stdio or Streamable HTTP, reads back every
// resource its result links to, and prints what it saw as one JSON object.
// The Go tests TestTypeScriptSDKReadsCutOutput and
// TestTypeScriptSDKLongRunWithProgress run it; it is not meant for people.
//
//   node tsoutput.mjs PLAN_JSON
//
// PLAN_JSON: {"modules": dir holding node_modules/@modelcontextprotocol/sdk,
//             "command": path, "args": [...]   (stdio), or "url": URL (HTTP),
//             "tool": name, "arguments": {...},
//             "timeoutMs": the request timeout (default the SDK's 60 s),
//             "resetTimeoutOnProgress": bool}
// Output:    {"capabilities", "result", "progress": [{progress, message, atMs}],
//             "resources": [{uri, mimeType, text, blob}], "listed": [uris], "elapsedMs"}
//            or {"fatal": message}. Exit 0 when the call and reads succeeded.
import { createRequire } from 'node:module';
import path from 'node:path';

const plan = JSON.parse(process.argv[2]);
const require = createRequire(path.join(plan.modules, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const transport = plan.url
  ? new StreamableHTTPClientTransport(new URL(plan.url))
  : new StdioClientTransport({ command: plan.command, args: plan.args, stderr: 'inherit' });
const client = new Client({ name: 'mcpship-realclients-ts-output', version: '0' });
const out = { progress: [], resources: [] };
const start = Date.now();
try {
  await client.connect(transport);
  out.capabilities = client.getServerCapabilities();
  const options = {
    onprogress: (p) => out.progress.push({ progress: p.progress, message: p.message, atMs: Date.now() - start }),
    resetTimeoutOnProgress: !!plan.resetTimeoutOnProgress,
  };
  if (plan.timeoutMs) options.timeout = plan.timeoutMs;
  out.result = await client.callTool({ name: plan.tool, arguments: plan.arguments }, undefined, options);
  out.elapsedMs = Date.now() - start;
  for (const block of out.result.content) {
    if (block.type !== 'resource_link') continue;
    const read = await client.readResource({ uri: block.uri });
    for (const c of read.contents) out.resources.push(c);
  }
  if (out.capabilities.resources) {
    out.listed = (await client.listResources()).resources.map((r) => r.uri);
  }
  await client.close();
} catch (e) {
  out.fatal = String(e && e.stack ? e.stack : e);
  out.elapsedMs = Date.now() - start;
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(1);
}
process.stdout.write(JSON.stringify(out) + '\n');
